"""Tool libraries (``tool_libraries:`` and ``ref:``): what resolves, and every refusal.

The libraries live in ``shared-tools/`` beside ``skills/``, so an eval file in
``skills/order-support/evals/`` imports them as ``../../../shared-tools/...``: the path
is relative to the eval file, never to the working directory.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest
from skillfactory import write_file
from test_authoring_rules import (
    BAD,
    Expect,
    assert_refused,
    bad_case_file,
    run,
    runner_calls,
    tools_seen,
    write_skill,
)

UP = "../../../shared-tools"  # from skills/order-support/evals/ to pytester.path/shared-tools

ORDER_API = """\
tools:
  - name: lookup_order
    description: Look up an order by its id
    parameters:
      order_id: string
    returns: '{"id": "0000", "status": "delivered"}'
"""

REFUNDS = """\
tools:
  - name: issue_refund
    description: Refund an order in full
    input_schema:
      type: object
      properties:
        order_id: {type: string}
      required: [order_id]
      additionalProperties: false
    returns: '{"refund_id": "RF-1"}'
"""


def eval_file(libraries: str, tools: str, *, extra: str = "") -> str:
    """A file importing ``libraries`` (YAML flow list), a good case, and case 'bad'."""
    body = "tools:\n" + textwrap.indent(textwrap.dedent(tools), "  ") + extra
    return f"tool_libraries: {libraries}\n" + bad_case_file(body)


def write_libraries(pytester: pytest.Pytester, **files: str) -> None:
    for name, text in files.items():
        write_file(pytester.path / "shared-tools" / name, text)


# --- what resolves ---------------------------------------------------------------------


def test_a_ref_resolves_to_the_library_tool_and_the_case_runs_and_passes(
    pytester: pytest.Pytester,
) -> None:
    write_libraries(pytester, **{"order-api.yaml": ORDER_API})
    text = eval_file(
        f"[{UP}/order-api.yaml]",
        """\
        - ref: lookup_order
          returns: '{"id": "1234", "days_since_delivery": 45}'
        - name: inline_tool
        """,
        extra="assertions:\n  - kind: contains\n    value: ok\n",
    )
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
    assert runner_calls(pytester) == ["spy::fine", "spy::bad"]
    lookup, inline = tools_seen(pytester)["bad"]
    assert lookup == {
        "name": "lookup_order",
        "description": "Look up an order by its id",  # the library owns the contract
        "parameters": {"order_id": "string"},
        "input_schema": None,
        "returns": '{"id": "1234", "days_since_delivery": 45}',  # the case owns the scenario
    }
    assert inline["name"] == "inline_tool"


def test_a_ref_without_returns_keeps_the_librarys_and_a_lookup_keys_on_its_parameters(
    pytester: pytest.Pytester,
) -> None:
    write_libraries(pytester, **{"order-api.yaml": ORDER_API})
    text = eval_file(
        f"[{UP}/order-api.yaml]",
        """\
        - ref: lookup_order
        """,
    )
    text += (
        "  - name: lookup\n"
        "    task: Say hello.\n"
        "    tools:\n"
        "      - ref: lookup_order\n"
        "        returns:\n"
        "          - when: {order_id: '1'}\n"
        "            value: one\n"
        "          - value: other\n"
    )
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
    seen = tools_seen(pytester)
    assert seen["bad"][0]["returns"] == '{"id": "0000", "status": "delivered"}'
    assert seen["lookup"][0]["returns"] == [
        {"when": {"order_id": "1"}, "value": "one"},
        {"when": None, "value": "other"},
    ]


def test_a_directory_entry_imports_every_yaml_file_in_it(pytester: pytest.Pytester) -> None:
    write_libraries(pytester, **{"order-api.yaml": ORDER_API, "refunds.yml": REFUNDS})
    write_file(pytester.path / "shared-tools" / "notes.txt", "not a library")
    text = eval_file(f"[{UP}]", "- ref: lookup_order\n- ref: issue_refund\n")
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
    assert [t["name"] for t in tools_seen(pytester)["bad"]] == ["lookup_order", "issue_refund"]


def test_the_library_path_is_relative_to_the_eval_file_under_an_evals_override(
    pytester: pytest.Pytester,
) -> None:
    write_libraries(pytester, **{"order-api.yaml": ORDER_API})
    write_skill(
        pytester, {"evals/cases.yaml": eval_file(f"[{UP}/order-api.yaml]", "- ref: lookup_order\n")}
    )
    pytester.mkdir("elsewhere")

    result = run(pytester, "--skill-lens-evals", "skills/order-support/evals/cases.yaml")

    assert result.ret == 0, result.stdout.str()
    assert tools_seen(pytester)["bad"][0]["description"] == "Look up an order by its id"


def test_the_resolved_tool_meets_the_trajectory_rule(pytester: pytest.Pytester) -> None:
    write_libraries(pytester, **{"order-api.yaml": ORDER_API})
    text = eval_file(
        f"[{UP}/order-api.yaml]",
        "- ref: lookup_order\n",
        extra="trajectory:\n  forbidden: [lookup_order]\n",
    )
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester, runner=None)  # fake: trajectory names must be declared tools

    assert result.ret == 0, result.stdout.str()
    assert runner_calls(pytester) == ["fake::fine", "fake::bad"]


# --- every refusal ---------------------------------------------------------------------


@dataclass(frozen=True)
class LibraryRule:
    id: str
    libraries: dict[str, str | None]  # file name in shared-tools/ -> text (None: a folder)
    imports: str  # the tool_libraries: value
    tools: str  # the bad case's tools: list
    expect: Expect
    imported_by: bool = False  # the message is about a library file, naming its importer
    extra: str = ""


def lib_error(problem: str, fix: str, field: str | None, file: str = "order-api.yaml") -> Expect:
    return Expect(f"shared-tools/{file}", problem, fix, field)


def eval_error(problem: str, fix: str, field: str | None, case: str | None = BAD) -> Expect:
    return Expect("evals/cases.yaml", problem, fix, field, case)


REF = "- ref: lookup_order\n"
LIB = {"order-api.yaml": ORDER_API}
IMPORT = f"[{UP}/order-api.yaml]"

LIBRARY_RULES = [
    LibraryRule(
        "ref-without-tool-libraries",
        {},
        "",
        REF,
        eval_error(
            "ref: 'lookup_order' needs a tool library, but the eval file has no "
            "tool_libraries: key",
            "add tool_libraries: [path/to/library.yaml] beside cases:",
            "tools[0].ref",
        ),
    ),
    LibraryRule(
        "ref-name-no-import-declares",
        LIB,
        IMPORT,
        "- ref: lookup_ordr\n",
        eval_error(
            "no imported library declares 'lookup_ordr' (declared: lookup_order)",
            "fix the spelling, or import the library that declares it",
            "tools[0].ref",
        ),
    ),
    LibraryRule(
        "ref-with-another-key",
        LIB,
        IMPORT,
        "- ref: lookup_order\n  description: A different contract\n",
        eval_error(
            "a ref: entry may set only returns:, not 'description'",
            "declare the tool inline if the case needs a different contract",
            "tools[0].description",
        ),
    ),
    LibraryRule(
        "ref-not-text",
        LIB,
        IMPORT,
        "- ref: [lookup_order]\n",
        eval_error("ref: must name a library tool", "write ref:", "tools[0].ref"),
    ),
    LibraryRule(
        "ref-lookup-key-outside-library-parameters",
        LIB,
        IMPORT,
        "- ref: lookup_order\n  returns:\n    - when: {id: '1'}\n      value: x\n",
        eval_error(
            "when: keys on 'id', which lookup_order can never be called with "
            "(its schema allows: order_id)",
            "key the lookup on a declared argument",
            "tools[0].returns[0].when",
        ),
    ),
    LibraryRule(
        "ref-returns-empty-list",
        LIB,
        IMPORT,
        "- ref: lookup_order\n  returns: []\n",
        eval_error(
            "the returns: of tool 'lookup_order' is an empty list",
            "returns: ''",
            "tools[0].returns",
        ),
    ),
    LibraryRule(
        "ref-and-inline-tool-share-a-name",
        LIB,
        IMPORT,
        "- ref: lookup_order\n- name: lookup_order\n",
        eval_error(
            "tool 'lookup_order' is declared twice (also tools[0])",
            "declare each tool once",
            "tools[1].name",
        ),
    ),
    LibraryRule(
        "ref-resolves-to-a-reserved-built-in",
        {"files.yaml": ORDER_API.replace("lookup_order", "write_file")},
        f"[{UP}/files.yaml]",
        "- ref: write_file\n",
        eval_error(
            "tool name 'write_file' is reserved for a built-in tool in a workspace case",
            "rename the tool",
            "tools[0].name",
        ),
        extra="workspace: {}\n",
    ),
    LibraryRule(
        "ref-resolves-to-the-offered-skill-tool",
        {"skills.yaml": ORDER_API.replace("lookup_order", "order_support")},
        f"[{UP}/skills.yaml]",
        "- ref: order_support\n",
        eval_error(
            "tool name 'order_support' collides with the offered skill's own tool",
            "rename the tool",
            "tools[0].name",
        ),
        extra="mode: offered\n",
    ),
    LibraryRule(
        "library-file-missing",
        {},
        f"[{UP}/order-api.yaml]",
        REF,
        eval_error(
            f"library '{UP}/order-api.yaml' does not exist",
            "write the path relative to the eval file's own directory",
            "tool_libraries",
            case=None,
        ),
    ),
    LibraryRule(
        "library-file-missing-and-unused",
        {},
        f"[{UP}/order-api.yaml]",
        "- name: inline_tool\n",
        eval_error(
            f"library '{UP}/order-api.yaml' does not exist",
            "write the path relative",
            "tool_libraries",
            case=None,
        ),
    ),
    LibraryRule(
        "library-path-absolute",
        LIB,
        "[/shared-tools/order-api.yaml]",
        REF,
        eval_error(
            "library path '/shared-tools/order-api.yaml' must be relative to the eval file",
            "write it relative to the eval file's directory",
            "tool_libraries",
            case=None,
        ),
    ),
    LibraryRule(
        "tool-libraries-not-a-list",
        LIB,
        f"{UP}/order-api.yaml",
        REF,
        eval_error(
            "tool_libraries: must be a list of paths",
            "write tool_libraries: [../shared/tools.yaml]",
            "tool_libraries",
            case=None,
        ),
    ),
    LibraryRule(
        "library-directory-without-yaml",
        {"empty": None},
        f"[{UP}/empty]",
        REF,
        eval_error(
            f"library directory '{UP}/empty' holds no .yaml/.yml file",
            "point the entry at a library file",
            "tool_libraries",
            case=None,
        ),
    ),
    LibraryRule(
        "library-imported-twice",
        LIB,
        f"[{UP}/order-api.yaml, {UP}/order-api.yaml]",
        REF,
        eval_error(
            "order-api.yaml is imported twice",
            "list each library once",
            "tool_libraries",
            case=None,
        ),
    ),
    LibraryRule(
        "library-imported-by-directory-and-by-name",
        LIB,
        f"[{UP}, {UP}/order-api.yaml]",
        REF,
        eval_error(
            "order-api.yaml is imported twice",
            "a directory entry already imports its files",
            "tool_libraries",
            case=None,
        ),
    ),
    LibraryRule(
        "two-libraries-declare-one-name",
        {"order-api.yaml": ORDER_API, "copy.yaml": ORDER_API},
        f"[{UP}/order-api.yaml, {UP}/copy.yaml]",
        REF,
        eval_error(
            "tool 'lookup_order' is declared by two imported libraries",
            "remove one declaration, or import only one of the libraries",
            "tool_libraries",
            case=None,
        ),
    ),
    LibraryRule(
        "two-libraries-declare-one-name-unused",
        {"order-api.yaml": ORDER_API, "copy.yaml": ORDER_API},
        f"[{UP}/order-api.yaml, {UP}/copy.yaml]",
        "- name: inline_tool\n",
        eval_error(
            "tool 'lookup_order' is declared by two imported libraries",
            "remove one declaration",
            "tool_libraries",
            case=None,
        ),
    ),
    LibraryRule(
        "library-placeholder",
        {"order-api.yaml": ORDER_API.replace("Look up an order by its id", "TODO(skill-lens)")},
        IMPORT,
        REF,
        lib_error(
            "still holds the placeholder TODO(skill-lens)",
            "replace it with the real value",
            "tools[0].description",
        ),
        imported_by=True,
    ),
    LibraryRule(
        "library-placeholder-in-a-key",
        {"order-api.yaml": ORDER_API.replace("order_id: string", "TODO(skill-lens): string")},
        IMPORT,
        REF,
        lib_error(
            "still holds the placeholder TODO(skill-lens)",
            "replace it with the real value",
            "tools[0].parameters.TODO(skill-lens)",
        ),
        imported_by=True,
    ),
    LibraryRule(
        "library-tool-name-outside-the-rule",
        {"order-api.yaml": ORDER_API + "  - name: get.pr\n"},
        IMPORT,
        REF,
        lib_error(
            "tool name 'get.pr' is not accepted by providers",
            "use ASCII letters, digits",
            "tools[1].name",
        ),
        imported_by=True,
    ),
    LibraryRule(
        "library-unknown-key",
        {"order-api.yaml": ORDER_API + "  - name: other\n    retuns: x\n"},
        IMPORT,
        REF,
        lib_error("unknown key 'retuns'", "did you mean 'returns'?", "tools[1].retuns"),
        imported_by=True,
    ),
    LibraryRule(
        "library-invalid-schema",
        {"order-api.yaml": ORDER_API + "  - name: other\n    input_schema: {type: 7}\n"},
        IMPORT,
        REF,
        lib_error(
            "the input_schema of tool 'other' is not a valid JSON Schema",
            "draft 2020-12",
            "tools[1].input_schema",
        ),
        imported_by=True,
    ),
    LibraryRule(
        "library-schema-not-object",
        {"order-api.yaml": ORDER_API + "  - name: other\n    input_schema: {type: array}\n"},
        IMPORT,
        REF,
        lib_error(
            "the input_schema of tool 'other' must have top-level type: object (every provider "
            "requires it); its type is 'array'",
            "add type: object",
            "tools[1].input_schema",
        ),
        imported_by=True,
    ),
    LibraryRule(
        "library-declares-a-name-twice",
        {"order-api.yaml": ORDER_API + "  - name: lookup_order\n"},
        IMPORT,
        REF,
        lib_error(
            "the library declares 'lookup_order' twice",
            "keep one declaration of the tool",
            "tools[1]",
        ),
        imported_by=True,
    ),
    LibraryRule(
        "library-with-another-top-level-key",
        {"order-api.yaml": "owner: api-team\n" + ORDER_API},
        IMPORT,
        REF,
        lib_error(
            "a tool library holds one top-level tools: list and nothing else",
            "keep only the tools: list; move any other key to the eval files",
            None,
        ),
        imported_by=True,
    ),
    LibraryRule(
        "library-malformed-yaml",
        {"order-api.yaml": "tools:\n  - name: a\n   description: b\n"},
        IMPORT,
        REF,
        lib_error("not valid YAML", "check the indentation and quoting", None),
        imported_by=True,
    ),
]


@pytest.mark.parametrize("rule", LIBRARY_RULES, ids=[r.id for r in LIBRARY_RULES])
def test_library_rule(pytester: pytest.Pytester, rule: LibraryRule) -> None:
    for name, text in rule.libraries.items():
        if text is None:
            (pytester.path / "shared-tools" / name).mkdir(parents=True)
        else:
            write_libraries(pytester, **{name: text})
    text = eval_file(rule.imports, rule.tools, extra=rule.extra)
    if not rule.imports:
        text = text.split("\n", 1)[1]  # no tool_libraries: key at all
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester)

    message = assert_refused(result, pytester, rule.expect)
    if rule.imported_by:
        assert "(in a tool library imported by " in message
        assert "evals/cases.yaml)" in message


def test_a_placeholder_is_reported_before_a_broken_import(pytester: pytest.Pytester) -> None:
    text = eval_file(f"[{UP}/missing.yaml]", REF)
    text += "  - name: unfinished\n    task: TODO(skill-lens)\n"
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester)

    assert_refused(
        result,
        pytester,
        eval_error(
            "still holds the placeholder TODO(skill-lens)",
            "replace it with the real value",
            "task",
            case="case 'unfinished' (#3 in the file)",
        ),
    )
