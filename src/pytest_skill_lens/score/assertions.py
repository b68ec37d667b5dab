"""``assertions:``: checks on the run's output text or a workspace file, one per entry.

A ``file:``/``file_glob:`` check reads the workspace as the last session left
it. A file that is missing, refused or unreadable fails the check with that as
its evidence, whatever the kind (``not_contains`` too: a file never written is
not a file free of the text).
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..matching import clip, quote
from ..run.result import RunResult
from ..run.workspace.workspace import Workspace, show
from ..suite.errors import AuthoringError, Where
from ..suite.model import Assertion, EvalCase
from ..suite.regex_rules import regex_problem
from ..suite.regex_search import bounded_search
from ..suite.rules import check_assertion_rules
from ..suite.schemas import NotEvaluated, schema_problem, unsafe_part, violations
from .check import CheckResult, Score, ScoringContext, score_from_checks, unmeasured

if TYPE_CHECKING:
    import regex

EXCERPT = 200  # characters of output quoted in evidence
# Seconds a regex check may spend searching (one search, or all of one schema's pattern
# searches) before it fails as not evaluated.
REGEX_TIMEOUT = 1.0
_MESSAGE_SHOWN = 300  # characters of a schema violation's message (it quotes the value)
_AROUND = 40  # characters shown on each side of a hit
OUTPUT = "the output"
# A file check scored with no workspace to read (a caller outside the plugin):
# never let it pass unread.
FILE_NOT_SUPPORTED = "not evaluated: no workspace was given to read the file from"


class AssertionEvaluator:
    """Scores every ``assertions:`` entry; a case with none passes."""

    name = "assertion"

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score:
        workspace = context.workspace
        for i, a in enumerate(case.assertions):
            if workspace is not None and _reads_a_file(a):
                # The loader ran these already; a case built in code has not.
                check_assertion_rules(a, i, case)
        checks = [
            check_assertion(a, i, result.output, workspace) for i, a in enumerate(case.assertions)
        ]
        return score_from_checks(self.name, checks, "no assertions")


def _reads_a_file(assertion: Assertion) -> bool:
    return (
        assertion.kind == "file-produced"
        or assertion.file is not None
        or assertion.file_glob is not None
    )


def check_assertion(
    assertion: Assertion, index: int, output: str, workspace: Workspace | None = None
) -> CheckResult:
    """One assertion against the output text (or its workspace file), with evidence
    from the same comparison."""
    check_id = _check_id(assertion.kind, index)
    kind = assertion.kind
    if kind in _TEXT_CHECKS and assertion.value is None:
        raise AuthoringError(
            f"{check_id} has no value",
            where=Where(field=f"assertions[{index}].value"),
            fix=f"give the {kind} assertion the text it checks",
        )
    if _reads_a_file(assertion):
        if workspace is None:
            return unmeasured(check_id, FILE_NOT_SUPPORTED)
        return _file_check(assertion, index, check_id, workspace)
    return _text_check(assertion, check_id, output, OUTPUT)


@functools.lru_cache(maxsize=1024)
def _check_id(kind: str, index: int) -> str:
    # One string per id, shared by every case's checks: each item keeps its checks.
    return f"{kind}[{index}]"


def _text_check(assertion: Assertion, check_id: str, text: str, where: str) -> CheckResult:
    try:
        if assertion.kind == "json-schema":
            passed, evidence = _json_schema(assertion.json_schema or {}, text, check_id, where)
        else:
            check = _TEXT_CHECKS[assertion.kind]
            passed, evidence = check(assertion.value or "", text, check_id, where)
    except NotEvaluated as exc:  # a search out of time, a reference it may not fetch
        return unmeasured(check_id, f"not evaluated: {exc}")
    return CheckResult(check_id, passed, evidence)


def _file_check(
    assertion: Assertion, index: int, check_id: str, workspace: Workspace
) -> CheckResult:
    lead = ""
    if assertion.file is not None:
        path = assertion.file
    elif assertion.file_glob:
        found = workspace.glob(assertion.file_glob)
        if found.path is None:
            return CheckResult(check_id, False, found.evidence)
        path = found.path
        lead = f"{found.evidence}; "
    else:
        raise AuthoringError(
            f"{check_id} names no file",
            where=Where(field=f"assertions[{index}].file"),
            fix="add file: <path in the workspace> (or file_glob: for a pattern)",
        )
    if assertion.kind == "file-produced":
        passed, evidence = workspace.produced(path)
        return CheckResult(check_id, passed, lead + evidence)
    read = workspace.read_for_check(path)
    if read.text is None:
        return CheckResult(check_id, False, lead + read.problem)
    checked = _text_check(assertion, check_id, read.text, show(path))
    return replace(checked, evidence=lead + checked.evidence)


def _contains(value: str, text: str, check_id: str, where: str) -> tuple[bool, str]:
    at = text.find(value)
    if at < 0:
        return False, f"{quote(value)} does not appear in {where}: {_whole(text, where)}"
    return True, f"{quote(value)} found at character {at}: {_around(text, at, len(value))}"


def _not_contains(value: str, text: str, check_id: str, where: str) -> tuple[bool, str]:
    at = text.find(value)
    if at < 0:
        return True, f"{quote(value)} does not appear in {where} ({len(text)} characters)"
    return False, f"{quote(value)} appears at character {at}: {_around(text, at, len(value))}"


def _regex(value: str, text: str, check_id: str, where: str) -> tuple[bool, str]:
    try:
        found = bounded_search(compile_regex(value, check_id), text, REGEX_TIMEOUT)
    except TimeoutError:
        # Catastrophic backtracking: the verdict is unknown, so the check fails as such.
        raise NotEvaluated(
            f"/{value}/ did not finish within {REGEX_TIMEOUT:g} s on {where} "
            f"({len(text):,} characters); rewrite it without nested repeats such as (a+)+"
        ) from None
    if found is None:
        return False, f"/{value}/ found no match in {where}: {_whole(text, where)}"
    return True, f"/{value}/ matched {quote(found.group(0), 80)} at character {found.start()}"


def _equals(value: str, text: str, check_id: str, where: str) -> tuple[bool, str]:
    stripped = text.strip()
    name = "the stripped output" if where == OUTPUT else f"{where}, stripped,"
    if stripped == value:
        return True, f"{name} equals {quote(value)}"
    differ = next(
        (i for i, (a, b) in enumerate(zip(stripped, value, strict=False)) if a != b),
        min(len(stripped), len(value)),
    )
    return False, (
        f"expected exactly {quote(value)}, {name} is {quote(stripped, EXCERPT)} "
        f"(first difference at character {differ})"
    )


_TEXT_CHECKS = {
    "contains": _contains,
    "not_contains": _not_contains,
    "regex": _regex,
    "equals": _equals,
}


def _json_schema(
    schema: dict[str, Any], text: str, check_id: str, where: str = OUTPUT
) -> tuple[bool, str]:
    problem = schema_problem(schema)
    if problem is not None:
        raise AuthoringError(
            f"{check_id}: json_schema is not a valid JSON Schema: {problem}",
            fix="correct the schema; it is read as Draft 2020-12",
        ) from None
    part = unsafe_part(schema)  # the loader ran this already; a case built in code has not
    if part is not None:
        raise AuthoringError(
            f"{check_id}: json_schema's {part.describe()}",
            where=Where(field=f"json_schema.{part.path}"),
            fix=part.fix,
        )
    try:
        document = json.loads(text)
    except ValueError as exc:
        return False, f"not valid JSON: {exc}; {where.removeprefix('the ')}: {_whole(text, where)}"
    # NotEvaluated (a reference it may not fetch, a pattern out of time) goes up to
    # _text_check, which marks the check so.
    count, path, message = violations(schema, document, timeout=REGEX_TIMEOUT)
    if not count:
        return True, f"{where} is valid JSON and matches the schema"
    more = f" ({count} violations; the most relevant shown)" if count > 1 else ""
    shown = clip(message, _MESSAGE_SHOWN)
    return False, f"schema violation at {path or 'the root'}: {shown}{more}"


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> regex.Pattern[str] | str:
    # Caching the failure text too keeps a bad pattern from being compiled per run.
    # The regex package (imported here, not at start-up) reads re syntax the way re
    # does (its default VERSION0), and unlike re it can stop a search that runs too long.
    import regex

    problem = regex_problem(pattern)  # the loader's rule, for a case built in code
    if problem is not None:
        return problem[0]
    return regex.compile(pattern)


def compile_regex(pattern: str, check_id: str = "regex") -> regex.Pattern[str]:
    """The compiled pattern; a malformed one is the author's mistake, not the skill's."""
    compiled = _compiled(pattern)
    if isinstance(compiled, str):
        raise AuthoringError(
            f"{check_id}: {pattern!r} is not a valid regular expression here: {compiled}",
            fix="correct the pattern; it is read with Python's re syntax",
        )
    return compiled


def _whole(text: str, where: str = OUTPUT) -> str:
    if not text:
        return f"{where} is empty"
    return quote(text, EXCERPT)


def _around(output: str, at: int, length: int) -> str:
    start = max(0, at - _AROUND)
    end = min(len(output), at + length + _AROUND)
    before = "..." if start else ""
    after = "..." if end < len(output) else ""
    return f"{before}{quote(output[start:end], EXCERPT)}{after}"
