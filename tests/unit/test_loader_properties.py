"""Property: any eval file either loads or raises our AuthoringError -- nothing else.

Random YAML and JSON built from the case vocabulary, and mutations of a rich valid
eval file (keys dropped, renamed or duplicated, values of the wrong type, ``*`` and
``[`` dropped into the text, lines deleted or repeated), are written to a real file
and loaded with :func:`load_suite`. Every refusal must also say where it is and how
to fix it.
"""

from __future__ import annotations

import json
import string
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.loader import load_suite
from pytest_skill_lens.suite.skill import Skill

# The example count is the hypothesis profile's: 100 a test by default, 1,000 under
# ``pytest --hypothesis-profile thorough`` (tests/conftest.py).
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

CASE_KEYS = [
    "name",
    "task",
    "sessions",
    "assertions",
    "tags",
    "tools",
    "trajectory",
    "budget",
    "judge",
    "workspace",
    "mode",
]
NESTED_KEYS = [
    # assertion
    "kind",
    "value",
    "file",
    "file_glob",
    "json_schema",
    # tool
    "description",
    "parameters",
    "input_schema",
    "returns",
    "ref",
    "when",
    # trajectory
    "called",
    "forbidden",
    "order",
    "max_calls",
    "skill_triggered",
    "call_args",
    "tool",
    "contains",
    "equals",
    "every",
    # budget, judge, workspace
    "max_tokens",
    "max_cost_usd",
    "max_latency_ms",
    "expected",
    "rubric",
    "artifacts",
    "glob",
    "files",
    "type",
    "properties",
    "additionalProperties",
    "required",
]
WORDS = [
    "contains",
    "not_contains",
    "regex",
    "equals",
    "file-produced",
    "json-schema",
    "loaded",
    "offered",
    "string",
    "integer",
    "object",
    "array",
    "write_file",
    "run_script",
    "order_support",
    "lookup",
    "*.md",
    "**/x",
    "../x",
    "/abs",
    "a\\b",
    "[z-a]",
    "[ab",
    "(unclosed",
    "report.md",
    "TODO(skill-lens)",
    "the mocked data",
    "what the tool returned",
    "lib.yaml",
    "libs",
    "missing.yaml",
    "",
    " ",
    "yes",
    "off",
]

SKILL_NAME = "order-support"

# A rich valid file: every mutation starts from something that loads.
VALID = textwrap.dedent(
    """\
    owner: team
    tool_libraries: [lib.yaml]
    cases:
      - name: refund
        task: I want a refund for order 1234
        tags: [refund]
        tools:
          - ref: lookup_order
            returns:
              - when: {order_id: "1234"}
                value: '{"status": "delivered"}'
              - value: '{"error": "not found"}'
          - name: issue_refund
            description: Refund an order
            input_schema:
              type: object
              properties: {order_id: {type: string}}
              additionalProperties: false
            returns: [first, second]
        trajectory:
          called: [lookup_order]
          forbidden: [issue_refund]
          order: [lookup_order]
          max_calls: 3
          call_args:
            - tool: lookup_order
              contains: {order_id: "1234"}
        assertions:
          - kind: contains
            value: refund
          - kind: regex
            value: '(?i)window'
        budget: {max_tokens: 800, max_cost_usd: 0.05, max_latency_ms: 2000}
        judge:
          expected: A polite refusal.
          rubric: [The reply names order 1234]
      - name: plan
        sessions: [Plan it., Continue.]
        mode: offered
        workspace:
          files: {notes.md: seed}
        assertions:
          - kind: file-produced
            file_glob: ".planning/*/plan.md"
          - kind: json-schema
            file: out.json
            json_schema: {type: object}
        trajectory:
          skill_triggered: true
        judge:
          rubric: [The plan has three phases]
          artifacts: [notes.md, {glob: [plan.md, ".planning/*/plan.md"]}]
    """
)

LIBRARY = textwrap.dedent(
    """\
    tools:
      - name: lookup_order
        description: Look up an order
        parameters: {order_id: string}
        returns: '{}'
    """
)


@pytest.fixture(scope="module")
def skill_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / SKILL_NAME
        (root / "evals" / "libs").mkdir(parents=True)
        (root / "SKILL.md").write_text(f"---\nname: {SKILL_NAME}\n---\nHelp.\n", "utf-8")
        (root / "evals" / "lib.yaml").write_text(LIBRARY, "utf-8")
        (root / "evals" / "libs" / "more.yaml").write_text(
            LIBRARY.replace("lookup_order", "other_tool"), "utf-8"
        )
        (root / "input.txt").write_text("seed\n", "utf-8")
        yield root


def load(skill_dir: Path, content: str | bytes, name: str = "cases.yaml") -> None:
    """Load ``content`` as one eval file; pass or raise AuthoringError, nothing else."""
    path = skill_dir / "evals" / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    skill = Skill(SKILL_NAME, "Handles orders.", "", skill_dir / "SKILL.md")  # offered needs one
    try:
        load_suite(skill, [path])
    except AuthoringError as exc:
        assert exc.where.file is not None, exc.message
        assert exc.problem.strip(), exc.message
        assert exc.fix, f"no fix given: {exc.message}"
        if exc.where.case_name is not None:
            assert exc.where.case_index is not None, exc.message


def test_the_valid_file_loads(skill_dir: Path) -> None:
    path = skill_dir / "evals" / "cases.yaml"
    path.write_text(VALID, encoding="utf-8")
    skill = Skill(SKILL_NAME, "Handles orders.", "", skill_dir / "SKILL.md")  # offered needs one
    suite = load_suite(skill, [path])
    assert [c.name for c in suite.cases] == ["refund", "plan"]


# --- strategies ------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=12),
)
keys = st.one_of(st.sampled_from(CASE_KEYS + NESTED_KEYS), st.text(max_size=8))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(keys, inner, max_size=5),
    ),
    max_leaves=20,
)
texts = st.sampled_from(WORDS) | st.text(min_size=1, max_size=12)
# Mostly well-formed cases with a few random fields, and now and then anything at all.
cases = st.fixed_dictionaries(
    {"name": texts, "task": texts},
    optional={key: values for key in CASE_KEYS if key not in ("name", "task")},
) | st.dictionaries(keys, values, max_size=6)


def dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


@SETTINGS
@given(data=st.lists(cases, max_size=3), libraries=st.none() | values)
@example(data=[{"name": "x", "task": "t", "tools": [{"name": "a", "returns": 3}]}], libraries=None)
@example(data=[{"name": "x", "task": "t", "tools": [{"ref": "lookup_order"}]}], libraries=None)
def test_random_cases_load_or_raise_an_authoring_error(
    skill_dir: Path, data: list[dict[str, Any]], libraries: Any
) -> None:
    document: dict[str, Any] = {"cases": data}
    if libraries is not None:
        document["tool_libraries"] = libraries
    load(skill_dir, dump(document))


# Structural mutations of the valid file: drop, rename, retype or add a key anywhere.


def _paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*path, i))


BASE = yaml.safe_load(VALID)
BASE_PATHS = [p for p in _paths(BASE) if p]


def _mutate(data: Any, path: tuple[Any, ...], how: str, new_key: str, new_value: Any) -> Any:
    if not path:
        return new_value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        copy = dict(data)
        if rest:
            copy[head] = _mutate(copy[head], rest, how, new_key, new_value)
        elif how == "drop":
            del copy[head]
        elif how == "rename":
            copy[new_key] = copy.pop(head)
        elif how == "add":
            copy[new_key] = new_value
        else:
            copy[head] = new_value
        return copy
    copy_list = list(data)
    if rest:
        copy_list[head] = _mutate(copy_list[head], rest, how, new_key, new_value)
    elif how == "drop":
        del copy_list[head]
    elif how == "add":
        copy_list.append(new_value)
    else:
        copy_list[head] = new_value
    return copy_list


mutation = st.tuples(
    st.sampled_from(BASE_PATHS),
    st.sampled_from(["drop", "rename", "retype", "add"]),
    keys,
    values,
)


@SETTINGS
@given(mutations=st.lists(mutation, min_size=1, max_size=4))
@example(mutations=[(("cases", 0, "tools", 0, "returns", 0), "rename", "valu", None)])
def test_structural_mutations_load_or_raise_an_authoring_error(
    skill_dir: Path, mutations: list[tuple[tuple[Any, ...], str, str, Any]]
) -> None:
    data = BASE
    for path, how, new_key, new_value in mutations:
        try:
            data = _mutate(data, path, how, new_key, new_value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or retyped the path
    load(skill_dir, dump(data))


# Textual mutations: what a typing accident does to the file.


@st.composite
def text_mutations(draw: st.DrawFn) -> str:
    lines = VALID.splitlines(keepends=True)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        if not lines:
            break
        i = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        how = draw(
            st.sampled_from(["delete", "duplicate", "insert", "indent", "dedent", "replace"])
        )
        if how == "delete":
            del lines[i]
        elif how == "duplicate":  # a repeated line is a duplicate key, or a repeated item
            lines.insert(i, lines[i])
        elif how == "insert":
            line = lines[i]
            at = draw(st.integers(min_value=0, max_value=len(line)))
            text = draw(st.sampled_from(["*", "[", "]", "{", "&a ", "*a", ": ", "- ", "\t", '"']))
            lines[i] = line[:at] + text + line[at:]
        elif how == "indent":
            lines[i] = "  " + lines[i]
        elif how == "dedent":
            lines[i] = lines[i].removeprefix("  ")
        else:
            lines[i] = draw(st.text(alphabet=string.printable, max_size=30)) + "\n"
    return "".join(lines)


@SETTINGS
@given(text=text_mutations())
@example(text=VALID.replace("    task: I want", "    task: *nope I want"))
@example(text=VALID.replace('"1234"}', '"1234"}\n                value: x'))
def test_text_mutations_load_or_raise_an_authoring_error(skill_dir: Path, text: str) -> None:
    load(skill_dir, text)


@SETTINGS
@given(content=st.binary(max_size=200) | st.text(max_size=200))
def test_arbitrary_bytes_load_or_raise_an_authoring_error(
    skill_dir: Path, content: bytes | str
) -> None:
    load(skill_dir, content)


# evals.json

EVAL_KEYS = ["id", "prompt", "expected_output", "files", "assertions", "expectations"]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-5, max_value=5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["input.txt", "evals", "../x", "/etc/hostname", "", "TODO(skill-lens)"])
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=10,
)
evals = st.fixed_dictionaries(
    {
        "id": st.integers(min_value=0, max_value=3) | st.sampled_from(["1", "a", "A"]),
        "prompt": st.text(max_size=10),
    },
    optional={
        "assertions": st.lists(st.text(max_size=10), max_size=2) | json_values,
        "expectations": st.lists(st.text(max_size=10), max_size=2) | json_values,
        "expected_output": st.text(max_size=10) | json_values,
        "files": st.lists(
            st.sampled_from(["input.txt", "evals", "../x", "/etc/hostname", "", "nope.txt"]),
            max_size=2,
        )
        | json_values,
    },
) | st.dictionaries(st.sampled_from([*EVAL_KEYS, "extra"]), json_values, max_size=6)


@SETTINGS
@given(
    entries=st.lists(evals | json_values, max_size=3),
    top=st.fixed_dictionaries({}, optional={"skill_name": st.just(SKILL_NAME) | json_values})
    | st.dictionaries(st.sampled_from(["skill_name", "evals", "extra"]), json_values),
)
@example(entries=[{"id": 1, "prompt": "p", "files": ["input.txt"], "assertions": ["a"]}], top={})
def test_random_evals_json_loads_or_raises_an_authoring_error(
    skill_dir: Path, entries: list[Any], top: dict[str, Any]
) -> None:
    document = {**top, "evals": entries} if "evals" not in top else top
    load(skill_dir, json.dumps(document), name="evals.json")


# Nesting deeper than Python's recursion: found by review, not by the strategies above,
# which never nest past a few levels. Each shape once crashed with RecursionError.


def _deep_block_mapping(depth: int) -> str:
    lines = ["cases:", "  - name: x", "    task: t", "    workspace:", "      files:"]
    lines += [" " * (8 + i) + "k:" for i in range(depth)]
    return "\n".join(lines) + " v\n"


def _deep_schema(depth: int) -> str:
    inner = "{type: object, properties: {a: " * depth + "{}" + "}}" * depth
    return (
        "cases:\n  - name: x\n    task: t\n    tools:\n      - name: a\n"
        f"        input_schema: {{type: object, properties: {{a: {inner}}}}}\n"
    )


def _deep_json(depth: int) -> str:
    return '{"evals": [{"id": 1, "prompt": "p", "assertions": ' + "[" * depth + "]" * depth + "}]}"


DEEP = {
    "yaml-block-mapping": (_deep_block_mapping, "cases.yaml"),
    "tool-input-schema": (_deep_schema, "cases.yaml"),
    "evals-json-array": (_deep_json, "evals.json"),
}


@pytest.mark.parametrize("shape", DEEP, ids=DEEP.keys())
@pytest.mark.parametrize("depth", [600, 990, 3000])
def test_deep_nesting_is_an_authoring_error_not_a_crash(
    skill_dir: Path, shape: str, depth: int
) -> None:
    build, name = DEEP[shape]
    path = skill_dir / "evals" / name
    path.write_text(build(depth), encoding="utf-8")
    skill = Skill(SKILL_NAME, "Handles orders.", "", skill_dir / "SKILL.md")  # offered needs one
    with pytest.raises(AuthoringError) as caught:
        load_suite(skill, [path])
    assert caught.value.where.file == path
    assert caught.value.fix


@settings(SETTINGS, max_examples=30)  # each deep example is slow to build and to refuse
@given(shape=st.sampled_from(sorted(DEEP)), depth=st.integers(min_value=1, max_value=2000))
def test_any_nesting_depth_loads_or_raises_an_authoring_error(
    skill_dir: Path, shape: str, depth: int
) -> None:
    build, name = DEEP[shape]
    load(skill_dir, build(depth), name=name)
