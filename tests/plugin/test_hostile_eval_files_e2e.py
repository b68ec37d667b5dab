"""Hostile eval files, run through pytest the way a user runs them.

A ``$ref`` that would need fetching, a regex that backtracks forever and a YAML alias
bomb: each either stops the run with exit 2 before any runner is called, or ends as a
failed check that says why; none makes a request, reads a local file into a report or
hangs. Runs that hung before the fixes go through ``runpytest_subprocess`` with a
generous ``timeout`` (a hang guard, never a measured duration).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from runs import SCRIPTED, LensRun, run_scripted_skill
from test_authoring_rules import (
    BAD,
    Expect,
    assert_refused,
    authoring_message,
    bad_case_file,
    run,
    runner_calls,
    write_skill,
)

from schema_server import recording_schema_server

HANG_GUARD = 300  # seconds for a whole inner pytest run
NO_CACHE = ("-p", "no:cacheprovider")


@pytest.fixture
def schema_server() -> Iterator[tuple[str, list[str]]]:
    """A server on 127.0.0.1 that serves a schema to any GET and records the path."""
    with recording_schema_server({"type": "string"}) as served:
        yield served


# In a child process with a hang guard.
GUARDED = replace(SCRIPTED, options=NO_CACHE, subprocess=True, timeout=HANG_GUARD)


def _run_scripted(
    pytester: pytest.Pytester, cases_yaml: str, script: dict[str, dict[str, Any]]
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """One skill under the scripted runner, in a child process; outcomes by case name."""
    return run_scripted_skill(pytester, "hostile", cases_yaml, script, GUARDED)


def _evidence(outcome: dict[str, Any], check_id: str) -> tuple[bool, str]:
    for score in outcome["scores"]:
        for check in score["checks"]:
            if check["id"] == check_id:
                return check["passed"], check["evidence"]
    raise AssertionError(f"no check {check_id} in {outcome['scores']}")


# --- json-schema $ref ---------------------------------------------------------------------


def test_a_remote_ref_is_refused_before_any_runner_and_never_fetched(
    pytester: pytest.Pytester, schema_server: tuple[str, list[str]]
) -> None:
    url, requests = schema_server
    write_skill(
        pytester,
        {
            "evals/cases.yaml": bad_case_file(
                f"""\
                assertions:
                  - kind: json-schema
                    json_schema:
                      type: object
                      properties:
                        order: {{$ref: '{url}/order.json'}}
                """
            )
        },
    )
    message = assert_refused(
        run(pytester),
        pytester,
        Expect(
            file="evals/cases.yaml",
            case=BAD,
            field="assertions[0].json_schema.properties.order.$ref",
            problem=f"json_schema's $ref '{url}/order.json' points outside the schema",
            fix="inline it under $defs",
        ),
    )
    assert "evals/cases.yaml:11, " in message  # the $ref's own line
    assert "never fetched" in message
    assert requests == []


SCHEMA_RULES = {
    "ref-to-nothing": (
        "items: {$ref: '#/$defs/order'}\n$defs: {orders: {type: string}}\n",
        "items.$ref",
        "json_schema's $ref '#/$defs/order' points at nothing in the schema",
        "point it at a part of this schema",
    ),
    "inner-dialect": (
        "properties:\n  x: {$schema: 'http://json-schema.org/draft-07/schema#', pattern: '^a'}\n",
        "properties.x.$schema",
        "json_schema's $schema 'http://json-schema.org/draft-07/schema#' below the root",
        "drop the inner $schema",
    ),
    "unevaluated-beside-patterns": (
        "patternProperties: {'^x_': {type: string}}\nunevaluatedProperties: false\n",
        "unevaluatedProperties",
        "json_schema's unevaluatedProperties beside patternProperties",
        "use additionalProperties instead",
    ),
}


@pytest.mark.parametrize(
    ("schema", "path", "problem", "fix"), SCHEMA_RULES.values(), ids=SCHEMA_RULES
)
def test_a_schema_part_that_could_escape_its_rules_is_refused(
    pytester: pytest.Pytester, schema: str, path: str, problem: str, fix: str
) -> None:
    body = "assertions:\n  - kind: json-schema\n    json_schema:\n"
    write_skill(
        pytester,
        {"evals/cases.yaml": bad_case_file(body + textwrap.indent(schema, "      "))},
    )
    assert_refused(
        run(pytester),
        pytester,
        Expect(
            file="evals/cases.yaml",
            case=BAD,
            field=f"assertions[0].json_schema.{path}",
            problem=problem,
            fix=fix,
        ),
    )


def test_a_remote_ref_is_never_fetched_even_for_a_json_answer(
    pytester: pytest.Pytester, schema_server: tuple[str, list[str]]
) -> None:
    url, requests = schema_server
    cases = f"""\
        cases:
          - name: remote
            task: t
            assertions:
              - kind: json-schema
                json_schema: {{$ref: '{url}/answer.json'}}
        """
    result, outcomes = _run_scripted(
        pytester, textwrap.dedent(cases), {"remote": {"output": '"a JSON string"'}}
    )
    assert result.ret == 2, result.stdout.str()
    assert outcomes == {}
    assert requests == []


def test_a_file_ref_never_puts_the_file_in_any_output(pytester: pytest.Pytester) -> None:
    secret = pytester.path / "outside" / "secret.json"
    secret.parent.mkdir()
    secret.write_text(json.dumps({"const": "the-secret-marker-7f3a"}), encoding="utf-8")
    cases = f"""\
        cases:
          - name: reads-a-file
            task: t
            assertions:
              - kind: json-schema
                json_schema: {{$ref: '{secret.as_uri()}'}}
        """
    result, outcomes = _run_scripted(
        pytester, textwrap.dedent(cases), {"reads-a-file": {"output": '"not the secret"'}}
    )
    assert result.ret == 2, result.stdout.str()
    assert f"$ref '{secret.as_uri()}' points outside the schema" in authoring_message(result)
    assert outcomes == {}
    for text in [result.stdout.str(), result.stderr.str()] + [
        path.read_text(encoding="utf-8", errors="replace")
        for path in pytester.path.rglob("*")
        if path.is_file() and path != secret
    ]:
        assert "the-secret-marker-7f3a" not in text


def test_refs_inside_the_schema_keep_working(pytester: pytest.Pytester) -> None:
    schema = (
        "        json_schema:\n"
        "          type: object\n"
        "          required: [order]\n"
        "          properties: {order: {$ref: '#/$defs/order'}}\n"
        "          $defs:\n"
        "            order: {type: string, pattern: '^A[0-9]+$'}\n"
    )
    cases = "cases:\n" + "".join(
        f"  - name: {name}\n    task: t\n    assertions:\n      - kind: json-schema\n{schema}"
        for name in ("valid", "invalid")
    )
    result, outcomes = _run_scripted(
        pytester,
        cases,
        {"valid": {"output": '{"order": "A12"}'}, "invalid": {"output": '{"order": "B12"}'}},
    )
    assert {name: o["status"] for name, o in outcomes.items()} == {
        "valid": "passed",
        "invalid": "failed",
    }
    assert _evidence(outcomes["invalid"], "json-schema[0]")[1].startswith(
        "schema violation at $.order"
    )
    assert result.ret == 1


# --- regex --------------------------------------------------------------------------------


def test_a_catastrophic_regex_fails_its_case_and_says_it_did_not_finish(
    pytester: pytest.Pytester,
) -> None:
    cases = """\
        cases:
          - name: nested
            task: t
            assertions:
              - {kind: regex, value: '(a+)+$'}
          - name: alternation
            task: t
            assertions:
              - {kind: regex, value: '(a|aa)+$'}
          - name: ordinary
            task: t
            assertions:
              - {kind: regex, value: '^a+!$'}
          - name: schema-pattern
            task: t
            assertions:
              - kind: json-schema
                json_schema: {type: string, pattern: '^(a|aa)+$'}
        """
    text = "a" * 40 + "!"
    result, outcomes = _run_scripted(
        pytester,
        textwrap.dedent(cases),
        {
            "nested": {"output": "a" * 34 + "!"},
            "alternation": {"output": text},
            "ordinary": {"output": "aaa!"},
            "schema-pattern": {"output": json.dumps(text)},
        },
    )
    assert result.ret == 1, result.stdout.str()
    assert {name: o["status"] for name, o in outcomes.items()} == {
        "nested": "failed",
        "alternation": "failed",
        "ordinary": "passed",
        "schema-pattern": "failed",
    }
    assert _evidence(outcomes["schema-pattern"], "json-schema[0]")[1].startswith(
        "not evaluated: the schema's pattern '^(a|aa)+$' did not finish within 1 s"
    )
    assert "found no match" in _evidence(outcomes["nested"], "regex[0]")[1]
    passed, evidence = _evidence(outcomes["alternation"], "regex[0]")
    assert not passed
    assert evidence.startswith("not evaluated: /(a|aa)+$/ did not finish within 1 s")
    result.stdout.fnmatch_lines(["*regex[[]0[]]: not evaluated: /(a|aa)+$/ did not finish*"])
    assert "Traceback" not in result.stdout.str()


REGEX_RULES = {
    "posix-class": (
        "order [[:digit:]]+",
        "the regex 'order [[:digit:]]+' holds '[:digit:]'",
        "escape it",
    ),
    "fuzzy-count": ("colou{e<=1}r", "the regex 'colou{e<=1}r' holds '{e<=1}'", "escape it"),
    "regex-package-refuses": (
        "a{sep}",
        "the regex 'a{sep}' compiles under Python's re but not under the regex package",
        "escape literal braces",
    ),
}


@pytest.mark.parametrize(("pattern", "problem", "fix"), REGEX_RULES.values(), ids=REGEX_RULES)
def test_a_regex_the_matcher_would_read_otherwise_is_an_authoring_error(
    pytester: pytest.Pytester, pattern: str, problem: str, fix: str
) -> None:
    write_skill(
        pytester,
        {
            "evals/cases.yaml": bad_case_file(
                f"assertions:\n  - kind: regex\n    value: '{pattern}'\n"
            )
        },
    )
    message = assert_refused(
        run(pytester),
        pytester,
        Expect(
            file="evals/cases.yaml",
            case=BAD,
            field="assertions[0].value",
            problem=problem,
            fix=fix,
        ),
    )
    assert "evals/cases.yaml:8, " in message


# --- YAML alias bombs ---------------------------------------------------------------------


def _bomb(indent: int) -> str:
    pad = " " * indent
    lines = [f"{pad}l0: &l0 [" + ", ".join(["lol"] * 9) + "]"]
    for n in range(1, 9):
        lines.append(f"{pad}l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


BOMBS = {
    "call-args-equals": (
        "tools: [{name: lookup}]\n"
        "trajectory:\n  call_args:\n    - tool: lookup\n      equals:\n" + _bomb(8),
        "trajectory.call_args[0].equals.l",
    ),
    "mock-tool-when": (
        "tools:\n  - name: lookup\n    returns:\n      - value: x\n        when:\n" + _bomb(10),
        "tools[0].returns[0].when.l",
    ),
    "judge-rubric": (
        "judge:\n  rubric:\n    - first:\n" + _bomb(8),
        "judge.rubric[0].first.l",
    ),
}


@pytest.mark.parametrize(("body", "field"), BOMBS.values(), ids=BOMBS.keys())
def test_an_alias_bomb_is_refused_naming_the_field(
    pytester: pytest.Pytester, body: str, field: str
) -> None:
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})
    spied = LensRun(runner="spy", options=NO_CACHE, subprocess=True, timeout=HANG_GUARD)
    result = spied(pytester)
    assert result.ret == 2, result.stdout.str()
    message = authoring_message(result)
    place, _, rest = message.partition(": ")
    assert f", {BAD}, field '{field}" in place, message
    assert "aliases" in rest and "10,000,000" in rest, message
    assert "\n  fix: " in rest, message
    assert runner_calls(pytester) == []


def test_an_anchor_shared_by_many_cases_still_runs(pytester: pytest.Pytester) -> None:
    tools = "\n".join(
        f"      - name: tool_{n}\n        description: {'d' * 200}\n"
        f"        parameters: {{id: string, note: string}}"
        for n in range(20)
    )
    cases = "cases:\n  - name: case-0\n    task: t\n    tools: &tools\n" + tools + "\n"
    cases += "".join(f"  - name: case-{n}\n    task: t\n    tools: *tools\n" for n in range(1, 60))
    result, outcomes = _run_scripted(
        pytester, cases, {f"case-{n}": {"output": "ok"} for n in range(60)}
    )
    assert result.ret == 0, result.stdout.str()
    assert len(outcomes) == 60
