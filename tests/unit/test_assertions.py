from __future__ import annotations

from typing import Any

import pytest

from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.score.assertions import (
    FILE_NOT_SUPPORTED,
    AssertionEvaluator,
    compile_regex,
)
from pytest_skill_lens.score.check import CheckResult, Score, ScoringContext, score_from_checks
from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.model import EvalCase

CONTEXT = ScoringContext(runner="fake")


def score(output: str, *assertions: dict[str, Any], workspace: bool = False) -> Score:
    data: dict[str, Any] = {"name": "c", "task": "t", "assertions": list(assertions)}
    if workspace:
        data["workspace"] = {}
    case = EvalCase.model_validate(data)
    return AssertionEvaluator().evaluate(case, RunResult(output=output), CONTEXT)


def only(output: str, assertion: dict[str, Any]) -> CheckResult:
    result = score(output, assertion)
    assert len(result.checks) == 1
    return result.checks[0]


def test_no_assertions_passes() -> None:
    result = score("anything")
    assert (result.evaluator, result.passed, result.score, result.detail) == (
        "assertion",
        True,
        1.0,
        "no assertions",
    )
    assert result.checks == ()


def test_contains() -> None:
    held = only("order 1234 shipped", {"kind": "contains", "value": "1234"})
    assert held.passed and held.id == "contains[0]"
    assert '"1234" found at character 6' in held.evidence
    missed = only("order 12 shipped", {"kind": "contains", "value": "1234"})
    assert not missed.passed
    assert missed.evidence == '"1234" does not appear in the output: "order 12 shipped"'


def test_not_contains() -> None:
    held = only("all fine", {"kind": "not_contains", "value": "error"})
    assert held.passed and held.id == "not_contains[0]"
    assert held.evidence == '"error" does not appear in the output (8 characters)'
    missed = only("an error occurred", {"kind": "not_contains", "value": "error"})
    assert not missed.passed
    assert missed.evidence.startswith('"error" appears at character 3:')
    assert "an error occurred" in missed.evidence


def test_regex_searches_anywhere_with_inline_flags() -> None:
    held = only("abbbc", {"kind": "regex", "value": "b+"})
    assert held.passed and held.id == "regex[0]"
    assert held.evidence == '/b+/ matched "bbb" at character 1'
    assert only("Intro\nPHASE 2 is Done", {"kind": "regex", "value": "(?im)^phase 2.*done"}).passed
    missed = only("abc", {"kind": "regex", "value": "^b"})
    assert not missed.passed
    assert missed.evidence == '/^b/ found no match in the output: "abc"'


def test_a_malformed_regex_is_an_authoring_error() -> None:
    with pytest.raises(AuthoringError, match="not a valid regular expression"):
        score("x", {"kind": "regex", "value": "(unclosed"})


def test_regexes_are_compiled_once() -> None:
    assert compile_regex("a+b") is compile_regex("a+b")


def test_equals_compares_the_stripped_output_exactly() -> None:
    assert only("  42\n", {"kind": "equals", "value": "42"}).passed
    missed = only("  42\n", {"kind": "equals", "value": " 42"})
    assert not missed.passed
    assert missed.evidence == (
        'expected exactly " 42", the stripped output is "42" (first difference at character 0)'
    )
    assert only(" \n ", {"kind": "equals", "value": ""}).passed
    assert not only("42.", {"kind": "equals", "value": "42"}).passed


def test_json_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "integer"}}},
        "required": ["items"],
    }
    kind = {"kind": "json-schema", "json_schema": schema}
    held = only('{"items": [1, 2]}', kind)
    assert held.passed and held.id == "json-schema[0]"
    bad_json = only("here you go: {", kind)
    assert not bad_json.passed and bad_json.evidence.startswith("not valid JSON: ")
    nested = only('{"items": [1, "two"]}', kind)
    assert not nested.passed
    assert nested.evidence.startswith("schema violation at $.items[1]: 'two' is not of type")
    root = only('{"other": 1}', kind)
    assert not root.passed
    assert root.evidence == "schema violation at the root: 'items' is a required property"


def test_an_invalid_json_schema_is_an_authoring_error() -> None:
    with pytest.raises(AuthoringError, match="not a valid JSON Schema"):
        score("{}", {"kind": "json-schema", "json_schema": {"type": "no-such-type"}})


@pytest.mark.parametrize(
    "assertion",
    [
        {"kind": "contains", "value": "north", "file": "report.md"},
        {"kind": "regex", "value": "x", "file_glob": "*.md"},
        {"kind": "file-produced", "file": "report.md"},
        {"kind": "json-schema", "json_schema": {"type": "object"}, "file": "out.json"},
    ],
)
def test_file_assertions_fail_as_not_evaluated(assertion: dict[str, Any]) -> None:
    result = score("north", assertion, workspace=True)
    assert not result.passed
    assert result.checks[0].evidence == FILE_NOT_SUPPORTED


def test_ids_are_positional_and_the_score_is_the_fraction_held() -> None:
    result = score(
        "hello world",
        {"kind": "contains", "value": "hello"},
        {"kind": "regex", "value": "wor"},
        {"kind": "contains", "value": "absent"},
        {"kind": "not_contains", "value": "bye"},
    )
    assert [c.id for c in result.checks] == [
        "contains[0]",
        "regex[1]",
        "contains[2]",
        "not_contains[3]",
    ]
    assert not result.passed
    assert result.score == 0.75
    assert result.detail == "3/4 checks held; failed: contains[2]"


def test_long_output_is_cut_with_the_removed_count_stated() -> None:
    output = "x" * 1000
    missed = only(output, {"kind": "contains", "value": "y"})
    assert missed.evidence.endswith("... [800 characters removed]")
    assert len(missed.evidence) < 300


def test_a_score_from_its_checks_says_how_many_held_and_which_failed() -> None:
    held = [CheckResult(f"contains[{i}]", True, "found") for i in range(3)]
    failing = [*held[:2], CheckResult("regex[2]", False, "no match")]
    all_held, some_failed = (
        score_from_checks("assertion", held, ""),
        score_from_checks("assertion", failing, ""),
    )
    assert (all_held.passed, all_held.score, all_held.detail) == (True, 1.0, "3/3 checks held")
    assert (some_failed.passed, some_failed.score) == (False, 2 / 3)
    assert some_failed.detail == "2/3 checks held; failed: regex[2]"
    assert all_held.checks == tuple(held)
    # Every item keeps its scores: scores whose checks all held share one detail string.
    again = score_from_checks("assertion", list(reversed(held)), "")
    assert again.detail is all_held.detail
