"""Hostile values in an eval file, or in a case built in code, at the pure layers.

A ``json-schema`` ``$ref`` is resolved only inside the schema, never fetched; an
author's regex search has a time bound; a YAML alias bomb is refused at load; and
evidence about a huge value is built without serialising all of it.

Whatever could hang on the code before these fixes runs in a child process with a
generous ``timeout`` (a hang guard, never a measured duration).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens import matching
from pytest_skill_lens.score.assertions import check_assertion
from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.loader import load_yaml_eval_file
from pytest_skill_lens.suite.model import Assertion
from pytest_skill_lens.suite.schemas import NotEvaluated, violations
from pytest_skill_lens.suite.yamlload import load_yaml_text
from schema_server import recording_schema_server

HANG_GUARD = 120  # seconds: far beyond the bounded code, far short of the unbounded one


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A server on 127.0.0.1 that answers every GET with a schema and records the path."""
    with recording_schema_server({"const": "fetched-from-the-server"}) as served:
        yield served


def _eval_file(tmp_path: Path, assertion: str) -> Path:
    path = tmp_path / "cases.yaml"
    first, _, rest = textwrap.dedent(assertion).partition("\n")
    path.write_text(
        "cases:\n  - name: c\n    task: t\n    assertions:\n"
        f"      - {first}\n" + textwrap.indent(rest, "        "),
        encoding="utf-8",
    )
    return path


def _refusal(tmp_path: Path, assertion: str) -> AuthoringError:
    with pytest.raises(AuthoringError) as info:
        load_yaml_eval_file(_eval_file(tmp_path, assertion))
    return info.value


def _in_child(code: str) -> Any:
    """Run ``code`` in a fresh interpreter (hang guard); it prints one JSON value."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=True,
    )
    return json.loads(done.stdout)


# --- json-schema $ref ---------------------------------------------------------------------

INTERNAL_REFS = {
    "defs": """\
        kind: json-schema
        json_schema:
          type: object
          properties: {order: {$ref: '#/$defs/order'}}
          $defs: {order: {type: string, pattern: '^A'}}
        """,
    "definitions": """\
        kind: json-schema
        json_schema:
          type: object
          properties: {order: {$ref: '#/definitions/order'}}
          definitions: {order: {type: string, pattern: '^A'}}
        """,
    "id-anchored": """\
        kind: json-schema
        json_schema:
          $id: https://example.com/root.json
          type: object
          properties:
            order: {$ref: 'https://example.com/order.json'}
          $defs:
            order: {$id: order.json, type: string, pattern: '^A'}
        """,
    "plain-name-anchor": """\
        kind: json-schema
        json_schema:
          type: object
          properties: {order: {$ref: '#order'}}
          $defs: {order: {$anchor: order, type: string, pattern: '^A'}}
        """,
    "recursive": """\
        kind: json-schema
        json_schema:
          type: object
          properties:
            order: {type: string, pattern: '^A'}
            child: {$ref: '#'}
        """,
}


@pytest.mark.parametrize("assertion", INTERNAL_REFS.values(), ids=INTERNAL_REFS.keys())
def test_refs_inside_the_schema_still_resolve(tmp_path: Path, assertion: str) -> None:
    (loaded,) = load_yaml_eval_file(_eval_file(tmp_path, assertion))
    (declared,) = loaded.case.assertions
    good = check_assertion(declared, 0, '{"order": "A1", "child": {"order": "A2"}}')
    bad = check_assertion(declared, 0, '{"order": "B1"}')
    assert good.passed, good.evidence
    assert not bad.passed and "schema violation at $.order" in bad.evidence


def test_a_ref_that_needs_fetching_is_refused_at_load_and_never_fetched(
    tmp_path: Path, server: tuple[str, list[str]]
) -> None:
    url, requests = server
    error = _refusal(
        tmp_path,
        f"""\
        kind: json-schema
        json_schema:
          type: object
          properties:
            order: {{$ref: '{url}/order.json'}}
        """,
    )
    assert error.where.field == "assertions[0].json_schema.properties.order.$ref"
    assert error.where.line == 9  # the $ref's own line
    assert error.where.case_name == "c"
    assert f"{url}/order.json" in error.problem
    assert "never fetched" in error.problem
    assert error.fix is not None and "inline it under $defs" in error.fix
    assert requests == []


@pytest.mark.parametrize(
    "ref",
    [
        "file:///etc/hostname",
        "other.json#/$defs/x",
        "https://json-schema.org/draft/2020-12/schema",
        "https://example.com/elsewhere.json",
    ],
)
def test_every_ref_outside_the_schema_is_refused(tmp_path: Path, ref: str) -> None:
    error = _refusal(
        tmp_path,
        f"""\
        kind: json-schema
        json_schema:
          $id: https://example.com/root.json
          items: {{$ref: '{ref}'}}
        """,
    )
    assert error.where.field == "assertions[0].json_schema.items.$ref"
    assert repr(ref) in error.problem


def test_a_ref_to_nothing_in_the_schema_is_refused(tmp_path: Path) -> None:
    error = _refusal(
        tmp_path,
        """\
        kind: json-schema
        json_schema:
          $ref: '#/$defs/missing'
          $defs: {present: {type: string}}
        """,
    )
    assert error.where.field == "assertions[0].json_schema.$ref"
    assert "'#/$defs/missing' points at nothing in the schema" in error.problem


def test_a_ref_shaped_value_under_const_is_data_not_a_reference(
    tmp_path: Path, server: tuple[str, list[str]]
) -> None:
    url, requests = server
    assertion = f"""\
        kind: json-schema
        json_schema:
          const: {{$ref: '{url}/x.json'}}
        """
    (loaded,) = load_yaml_eval_file(_eval_file(tmp_path, assertion))
    (declared,) = loaded.case.assertions
    same = json.dumps({"$ref": f"{url}/x.json"})
    assert check_assertion(declared, 0, same).passed
    assert not check_assertion(declared, 0, '{"a": 1}').passed
    assert requests == []


def test_a_schema_built_in_code_never_fetches_either(server: tuple[str, list[str]]) -> None:
    url, requests = server
    schema = {"properties": {"x": {"$ref": f"{url}/x.json"}}}
    declared = Assertion(kind="json-schema", json_schema=schema)
    with pytest.raises(AuthoringError) as info:
        check_assertion(declared, 0, '{"x": 1}')
    assert f"{url}/x.json" in info.value.problem
    # The validator itself, handed such a schema, cannot retrieve: it says why it stopped.
    with pytest.raises(NotEvaluated) as stopped:
        violations(schema, {"x": 1})
    assert f"{url}/x.json" in str(stopped.value)
    assert requests == []


def test_schema_patterns_still_match_as_before() -> None:
    schema = {
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": "^A[0-9]+$"}},
        "patternProperties": {"^x_": {"type": "integer"}},
        "additionalProperties": False,
    }
    declared = Assertion(kind="json-schema", json_schema=schema)
    assert check_assertion(declared, 0, '{"id": "A12", "x_n": 1}').passed
    bad_id = check_assertion(declared, 0, '{"id": "B12"}')
    assert "schema violation at $.id: 'B12' does not match '^A[0-9]+$'" in bad_id.evidence
    bad_extra = check_assertion(declared, 0, '{"id": "A1", "x_n": "one"}')
    assert "schema violation at $.x_n" in bad_extra.evidence
    unknown = check_assertion(declared, 0, '{"id": "A1", "other": 1}')
    assert "'other'" in unknown.evidence and not unknown.passed


def test_a_catastrophic_schema_pattern_is_a_failed_check_within_the_bound() -> None:
    evidence = _in_child(
        """\
        import json
        from pytest_skill_lens.score.assertions import check_assertion
        from pytest_skill_lens.suite.model import Assertion

        slow = "^(a|aa)+$"
        schemas = [
            {"type": "string", "pattern": slow},
            {"type": "object", "patternProperties": {slow: {"type": "integer"}}},
            {"type": "object", "patternProperties": {slow: True}, "additionalProperties": False},
            {"type": "object", "propertyNames": {"pattern": slow}},
        ]
        text = "a" * 40 + "!"
        documents = [json.dumps(text), json.dumps({text: 1})]
        out = []
        for n, schema in enumerate(schemas):
            checked = check_assertion(
                Assertion(kind="json-schema", json_schema=schema), 0, documents[min(n, 1)]
            )
            out.append([checked.passed, checked.evidence])
        print(json.dumps(out))
        """
    )
    for passed, shown in evidence:
        assert not passed
        assert shown.startswith("not evaluated: the schema's pattern '^(a|aa)+$' did not finish")


def test_a_schema_below_the_root_cannot_switch_validators(tmp_path: Path) -> None:
    error = _refusal(
        tmp_path,
        """\
        kind: json-schema
        json_schema:
          $schema: https://json-schema.org/draft/2020-12/schema
          properties:
            x: {$schema: 'http://json-schema.org/draft-07/schema#', pattern: '^a'}
        """,
    )
    assert error.where.field == "assertions[0].json_schema.properties.x.$schema"
    assert "below the root" in error.problem


def test_the_root_schema_keyword_is_kept_out_of_the_way_of_the_bound() -> None:
    # A $ref to '#' lands on the root again; its $schema must not pick a stock validator.
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"name": {"type": "string", "pattern": "^(a|aa)+$"}, "next": {"$ref": "#"}},
    }
    checked = _in_child(
        f"""\
        import json
        from pytest_skill_lens.score.assertions import check_assertion
        from pytest_skill_lens.suite.model import Assertion

        document = json.dumps({{"next": {{"name": "a" * 40 + "!"}}}})
        result = check_assertion(Assertion(kind="json-schema", json_schema={schema!r}), 0, document)
        print(json.dumps([result.passed, result.evidence]))
        """
    )
    assert checked[0] is False
    assert checked[1].startswith("not evaluated: the schema's pattern '^(a|aa)+$' did not finish")


def test_unevaluated_properties_with_pattern_properties_is_refused(tmp_path: Path) -> None:
    error = _refusal(
        tmp_path,
        """\
        kind: json-schema
        json_schema:
          patternProperties: {'^x-': {type: string}}
          unevaluatedProperties: false
        """,
    )
    assert error.where.field == "assertions[0].json_schema.unevaluatedProperties"
    assert "patternProperties" in error.problem


# --- regex --------------------------------------------------------------------------------


def test_a_catastrophic_regex_is_a_failed_check_within_the_bound() -> None:
    checks = _in_child(
        """\
        import json
        from pytest_skill_lens.score.assertions import check_assertion
        from pytest_skill_lens.suite.model import Assertion

        out = []
        for pattern, text in [("(a+)+$", "a" * 34 + "!"), ("(a|aa)+$", "a" * 40 + "!")]:
            result = check_assertion(Assertion(kind="regex", value=pattern), 0, text)
            out.append([result.passed, result.evidence])
        print(json.dumps(out))
        """
    )
    (nested, nested_passed), (alternation, alternation_passed) = (
        (checks[0][1], checks[0][0]),
        (checks[1][1], checks[1][0]),
    )
    assert not nested_passed and "found no match in the output" in nested
    assert not alternation_passed
    assert alternation.startswith("not evaluated: /(a|aa)+$/ did not finish within 1 s")
    assert "41 characters" in alternation


SAME_AS_RE = [
    (r"order \d{4}\b", "Your order 1234 has shipped."),
    (r"^order \d{4}$", "Your order 1234 has shipped."),
    (r"(?i)HELLO", "well, hello there"),
    (r"(?m)^b$", "a\nb\nc"),
    (r"(?s)start.+end", "start\nmiddle\nend"),
    (r"\bcolou?r\b", "the color red"),
    (r"(?P<word>\w+) (?P=word)", "say it it again"),
    (r"(?<!un)happy", "unhappy but happy"),
    (r"\w+", "héllo wörld"),
    (r"(?a)\w+", "héllo"),
    (r"[^]a]+", "]]bcd"),
    (r"x{,2}y", "xxxy"),
    (r"a|ab", "ab"),
    (r"^\{", '{"ok": true}'),
    (r"\d+(?=%)", "cut by 25%"),
    (r"(?x) \d+ \s* kg  # a weight", "it weighs 12 kg"),
    (r"[\[\]]", "a[b"),
    (r"\s+$", "trailing   "),
]


@pytest.mark.parametrize(("pattern", "text"), SAME_AS_RE)
def test_a_regex_matches_what_python_re_matches(pattern: str, text: str) -> None:
    expected = re.search(pattern, text)
    result = check_assertion(Assertion(kind="regex", value=pattern), 0, text)
    assert result.passed is (expected is not None)
    if expected is not None:
        shown = json.dumps(expected.group(0), ensure_ascii=False)
        assert f"matched {shown} at character {expected.start()}" in result.evidence


@pytest.mark.parametrize(
    ("pattern", "shown"),
    [
        ("[[:digit:]]+", "[:digit:]"),
        ("[a[:alpha:]]", "[:alpha:]"),
        ("colou{e<=1}r", "{e<=1}"),
        ("order{i,d}", "{i,d}"),
    ],
)
def test_a_regex_python_re_reads_differently_is_refused(
    tmp_path: Path, pattern: str, shown: str
) -> None:
    error = _refusal(tmp_path, f"kind: regex\nvalue: '{pattern}'\n")
    assert error.where.field == "assertions[0].value"
    assert repr(shown) in error.problem
    assert error.fix is not None and "escape" in error.fix


def test_literal_braces_and_brackets_that_mean_the_same_everywhere_load(tmp_path: Path) -> None:
    for pattern in [r"\{e\}", r"a{2}", r"x{1,3}", r"[\[:digit:]]", r"\{sep\}", "{", "[]:]"]:
        load_yaml_eval_file(_eval_file(tmp_path, f"kind: regex\nvalue: '{pattern}'\n"))


# --- YAML alias bombs ---------------------------------------------------------------------

FILE = Path("cases.yaml")


def _bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["          l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for n in range(1, levels):
        lines.append(f"          l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def _call_args_file(equals: str) -> str:
    return (
        "cases:\n"
        "  - name: fine\n"
        "    task: t\n"
        "  - name: bombed\n"
        "    task: t\n"
        "    trajectory:\n"
        "      call_args:\n"
        "        - tool: lookup\n"
        "          equals:\n"
        f"{textwrap.indent(equals, '  ')}"
    )


def test_a_nine_level_alias_bomb_is_refused_naming_the_field() -> None:
    with pytest.raises(AuthoringError) as info:
        load_yaml_text(_call_args_file(_bomb()), FILE)
    error = info.value
    assert (error.where.case_name, error.where.case_index) == ("bombed", 1)
    assert error.where.field is not None
    assert error.where.field.startswith("trajectory.call_args[0].equals.l")
    assert "aliases" in error.problem and "10,000,000" in error.problem
    assert error.fix is not None


def test_a_long_text_aliased_many_times_is_refused() -> None:
    text = "cases:\n  - name: c\n    task: &long '" + "x" * 200_000 + "'\n"
    text += "    tags: [" + ", ".join(["*long"] * 60) + "]\n"
    with pytest.raises(AuthoringError) as info:
        load_yaml_text(text, FILE)
    assert info.value.where.field is not None
    assert info.value.where.field.startswith("tags[")


def test_big_but_legitimate_values_still_load() -> None:
    plain = "v: [" + ", ".join(str(n) for n in range(100_000)) + "]\n"
    assert len(load_yaml_text(plain, FILE)["v"]) == 100_000  # no alias: never capped
    shared = "a: &a [" + ", ".join(str(n) for n in range(10_000)) + "]\n"
    shared += "b: [" + ", ".join(["*a"] * 10) + "]\n"
    data = load_yaml_text(shared, FILE)
    assert len(data["b"]) == 10 and data["b"][9] is data["a"]
    small_bomb = load_yaml_text(_call_args_file(_bomb(levels=9, width=2)), FILE)
    assert small_bomb["cases"][1]["trajectory"]["call_args"][0]["equals"]["l8"][1][0][0]


# --- evidence about huge values -----------------------------------------------------------


def test_evidence_about_a_huge_value_built_in_code_is_bounded() -> None:
    lengths = _in_child(
        """\
        import json
        from pytest_skill_lens.report.excerpt import render_call
        from pytest_skill_lens.run.result import RunResult, ToolCall
        from pytest_skill_lens.score.trajectory import trajectory_checks
        from pytest_skill_lens.suite.model import Trajectory

        bomb = "lol"
        for _ in range(12):
            bomb = [bomb] * 12  # 12**12 leaves, shared: cheap to build, endless to write
        rules = Trajectory.model_validate(
            {"call_args": [
                {"tool": "t", "equals": {"x": bomb}},
                {"tool": "t", "contains": {"y": bomb}},
                {"tool": "u", "equals": {"y": 1}},
            ]}
        )
        # The declared side, the arguments a runner reported and the excerpt's call line.
        calls = [ToolCall("t", {"x": [["lol"]], "z": 1}), ToolCall("u", {"x": bomb})]
        checks = trajectory_checks(rules, RunResult(tool_calls=calls))
        print(json.dumps([len(c.evidence) for c in checks] + [len(render_call(calls[1]))]))
        """
    )
    assert all(n < 2_000 for n in lengths), lengths


def test_bounded_json_reads_like_json_dumps() -> None:
    value = {"b": [1, 2.5, None, True, "é\n"], "a": {"z": float("nan"), "y": "x" * 50}}
    full = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    assert matching.clip_json(value, 10_000) == full
    assert matching.clip_json(value, 20) == f"{full[:20]}... [{len(full) - 20} characters removed]"
    assert matching.json_head(value, 20, sort_keys=False) == (
        json.dumps(value, default=str, ensure_ascii=False)[:20],
        False,
    )
    assert matching.json_head([1], 20) == ("[1]", True)


def test_bounded_json_of_a_huge_value_says_it_was_cut_without_a_count() -> None:
    huge = ["y" * 100] * 1_000
    shown = matching.clip_json(huge, 50)
    assert shown.startswith(json.dumps(huge)[:50] + "... [cut; ")
    assert shown.endswith("characters in all]")


def test_bounded_json_of_values_json_cannot_write() -> None:
    cycle: list[Any] = [1]
    cycle.append(cycle)
    assert matching.clip_json(cycle, 100).startswith("[1, [1, ")
    assert matching.clip_json({1: "a", "b": 2}, 100) == '{"1": "a", "b": 2}'
