"""``assertions:``: checks on the run's output text, one result per declared entry."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from ..matching import quote
from ..run.result import RunResult
from ..spec.errors import AuthoringError, Where
from ..spec.model import Assertion, EvalCase
from ..spec.schemas import schema_problem, violations
from .check import CheckResult, Score, ScoringContext, score_from_checks

EXCERPT = 200  # characters of output quoted in evidence
_AROUND = 40  # characters shown on each side of a hit
FILE_NOT_SUPPORTED = "not evaluated: file assertions are not supported yet"


class AssertionEvaluator:
    """Scores every ``assertions:`` entry; a case with none passes."""

    name = "assertion"

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score:
        checks = [check_assertion(a, i, result.output) for i, a in enumerate(case.assertions)]
        return score_from_checks(self.name, checks, "no assertions")


def check_assertion(assertion: Assertion, index: int, output: str) -> CheckResult:
    """One assertion against the output text, with evidence from the same comparison."""
    check_id = f"{assertion.kind}[{index}]"
    if assertion.kind == "file-produced" or assertion.file is not None or assertion.file_glob:
        # Workspaces are not wired in yet: never let a file check pass unread.
        return CheckResult(check_id, False, FILE_NOT_SUPPORTED)
    if assertion.kind == "json-schema":
        passed, evidence = _json_schema(assertion.json_schema or {}, output, check_id)
        return CheckResult(check_id, passed, evidence)
    value = assertion.value
    if value is None:
        raise AuthoringError(
            f"{check_id} has no value",
            where=Where(field=f"assertions[{index}].value"),
            fix=f"give the {assertion.kind} assertion the text it checks",
        )
    passed, evidence = _TEXT_CHECKS[assertion.kind](value, output, check_id)
    return CheckResult(check_id, passed, evidence)


def _contains(value: str, output: str, check_id: str) -> tuple[bool, str]:
    at = output.find(value)
    if at < 0:
        return False, f"{quote(value)} does not appear in the output: {_whole(output)}"
    return True, f"{quote(value)} found at character {at}: {_around(output, at, len(value))}"


def _not_contains(value: str, output: str, check_id: str) -> tuple[bool, str]:
    at = output.find(value)
    if at < 0:
        return True, f"{quote(value)} does not appear in the output ({len(output)} characters)"
    return False, f"{quote(value)} appears at character {at}: {_around(output, at, len(value))}"


def _regex(value: str, output: str, check_id: str) -> tuple[bool, str]:
    found = compile_regex(value, check_id).search(output)
    if found is None:
        return False, f"/{value}/ found no match in the output: {_whole(output)}"
    return True, f"/{value}/ matched {quote(found.group(0), 80)} at character {found.start()}"


def _equals(value: str, output: str, check_id: str) -> tuple[bool, str]:
    stripped = output.strip()
    if stripped == value:
        return True, f"the stripped output equals {quote(value)}"
    differ = next(
        (i for i, (a, b) in enumerate(zip(stripped, value, strict=False)) if a != b),
        min(len(stripped), len(value)),
    )
    return False, (
        f"expected exactly {quote(value)}, the stripped output is {quote(stripped, EXCERPT)} "
        f"(first difference at character {differ})"
    )


_TEXT_CHECKS = {
    "contains": _contains,
    "not_contains": _not_contains,
    "regex": _regex,
    "equals": _equals,
}


def _json_schema(schema: dict[str, Any], output: str, check_id: str) -> tuple[bool, str]:
    problem = schema_problem(schema)
    if problem is not None:
        raise AuthoringError(
            f"{check_id}: json_schema is not a valid JSON Schema: {problem}",
            fix="correct the schema; it is read as Draft 2020-12",
        ) from None
    try:
        document = json.loads(output)
    except ValueError as exc:
        return False, f"not valid JSON: {exc}; output: {_whole(output)}"
    count, path, message = violations(schema, document)
    if not count:
        return True, "the output is valid JSON and matches the schema"
    more = f" ({count} violations; the most relevant shown)" if count > 1 else ""
    return False, f"schema violation at {path or 'the root'}: {message}{more}"


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str] | str:
    # Caching the failure text too keeps a bad pattern from being compiled per run.
    try:
        return re.compile(pattern)
    except re.error as exc:
        return str(exc)


def compile_regex(pattern: str, check_id: str = "regex") -> re.Pattern[str]:
    """The compiled pattern; a malformed one is the author's mistake, not the skill's."""
    compiled = _compiled(pattern)
    if isinstance(compiled, str):
        raise AuthoringError(
            f"{check_id}: {pattern!r} is not a valid regular expression: {compiled}",
            fix="correct the pattern; it is read by Python's re module",
        )
    return compiled


def _whole(output: str) -> str:
    if not output:
        return "the output is empty"
    return quote(output, EXCERPT)


def _around(output: str, at: int, length: int) -> str:
    start = max(0, at - _AROUND)
    end = min(len(output), at + length + _AROUND)
    before = "..." if start else ""
    after = "..." if end < len(output) else ""
    return f"{before}{quote(output[start:end], EXCERPT)}{after}"
