"""Which searches need the regex package's timeout (suite/regex_search.py): a pattern
without choices cannot backtrack, so it is searched without one (the timeout's CPU clock
stalls in a process with other threads); every other search keeps it, and the GIL."""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from pytest_skill_lens.suite import regex_search
from pytest_skill_lens.suite.regex_rules import without_choices
from pytest_skill_lens.suite.regex_search import LINEAR_STEPS, bounded_search

# Every opcode of re's parse tree that gives a backtracking matcher a choice, or one the
# choice-free class leaves out (lookarounds, backreferences, atomic groups).
_CHOOSING = {
    "MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT", "BRANCH", "GROUPREF",
    "GROUPREF_EXISTS", "ASSERT", "ASSERT_NOT", "ATOMIC_GROUP",
}  # fmt: skip
PIECES = [
    "a", "é", " ", "-", "^", "$", ".", "*", "+", "?", "*?", "|", "(", ")", "(?:", "(?=",
    "(?i)", "[", "]", "[^", "[a-z]", "[*+?|]", "\\b", "\\B", "\\d", "\\w", "\\s", "\\A",
    "\\Z", "\\n", "\\.", "\\*", "\\|", "\\{", "\\\\", "{2}", "{", "}", "\\1", "\\p",
]  # fmt: skip


def _opcodes(parsed: Any) -> set[str]:
    """Every opcode name anywhere in a pattern re parsed."""
    found: set[str] = set()
    for op, arg in parsed:
        found.add(str(op))
        values = arg if isinstance(arg, tuple | list) else [arg]
        for value in values:
            if isinstance(value, re._parser.SubPattern):  # type: ignore[attr-defined]
                found |= _opcodes(value)
            elif isinstance(value, tuple | list):
                for inner in value:
                    if isinstance(inner, re._parser.SubPattern):  # type: ignore[attr-defined]
                        found |= _opcodes(inner)
    return found


def _parsed(pattern: str) -> Any | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return re._parser.parse(pattern)  # type: ignore[attr-defined]
    except re.error:
        return None


@pytest.mark.parametrize(
    "pattern",
    ["request number 7\\b", "abc", "[a-z]x", "\\d\\d-\\d", "(ab)c", "^x$", "a.b", "[*+?|{]",
     "\\*\\+\\?\\|\\{", "\\Aok\\Z", ""],
)  # fmt: skip
def test_patterns_without_choices(pattern: str) -> None:
    assert without_choices(pattern)


@pytest.mark.parametrize(
    "pattern",
    ["a*", "a+", "a?", "a{2}", "a|b", "(?i)a", "(a)\\1", "[a-z]+", "\\p{L}", "(?=a)b",
     "(?:ab)", "a*?", "\\"],
)  # fmt: skip
def test_patterns_with_choices(pattern: str) -> None:
    assert not without_choices(pattern)


@given(st.lists(st.sampled_from(PIECES), max_size=10).map("".join))
def test_a_choice_free_pattern_has_nothing_to_go_back_on_in_res_own_reading(
    pattern: str,
) -> None:
    parsed = _parsed(pattern)
    if parsed is None or not without_choices(pattern):
        return
    assert not _opcodes(parsed) & _CHOOSING, pattern


@given(
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join),
    st.text(alphabet="aé -.*|\n1", max_size=30),
)
def test_the_search_finds_what_a_timed_search_finds(pattern: str, text: str) -> None:
    try:
        compiled = regex.compile(pattern)
    except regex.error:
        return
    found = bounded_search(compiled, text, 1.0)
    timed = compiled.search(text, timeout=1.0)
    assert (found and found.span()) == (timed and timed.span())


class _Recording:
    """A compiled pattern that notes how it was asked to search."""

    def __init__(self, pattern: str) -> None:
        self.compiled = regex.compile(pattern)
        self.pattern = pattern
        self.asked: list[dict[str, Any]] = []

    def search(self, text: str, **options: Any) -> Any:
        self.asked.append(options)
        return self.compiled.search(text, **options)


def test_a_choice_free_search_keeps_the_gil_and_reads_no_clock() -> None:
    recording = _Recording("order 42\\b")

    assert bounded_search(recording, "order 42 shipped", 1.0)  # type: ignore[arg-type]
    assert recording.asked == [{"concurrent": False}]


def test_a_search_with_choices_keeps_its_timeout_and_the_gil() -> None:
    recording = _Recording("order \\d+")

    assert bounded_search(recording, "order 42 shipped", 1.0)  # type: ignore[arg-type]
    assert recording.asked == [{"timeout": 1.0, "concurrent": False}]


def test_a_choice_free_search_of_a_long_text_keeps_its_timeout() -> None:
    recording = _Recording("order 42\\b")
    text = "x" * (LINEAR_STEPS // len(recording.pattern) + 1)

    assert bounded_search(recording, text, 1.0) is None  # type: ignore[arg-type]
    assert recording.asked == [{"timeout": 1.0, "concurrent": False}]


def test_a_regex_check_and_a_schema_pattern_search_both_go_through_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pytest_skill_lens.run.result import RunResult
    from pytest_skill_lens.score.assertions import AssertionEvaluator
    from pytest_skill_lens.score.check import ScoringContext
    from pytest_skill_lens.suite import schema_bounds
    from pytest_skill_lens.suite.model import EvalCase

    searched: list[tuple[str, str, float]] = []
    real = regex_search.bounded_search

    def noting(compiled: Any, text: str, timeout: float) -> Any:
        searched.append((compiled.pattern, text, timeout))
        return real(compiled, text, timeout)

    monkeypatch.setattr("pytest_skill_lens.score.assertions.bounded_search", noting)
    monkeypatch.setattr(schema_bounds, "bounded_search", noting)
    case = EvalCase.model_validate(
        {"name": "c", "task": "t", "assertions": [{"kind": "regex", "value": "order \\d+"}]}
    )

    score = AssertionEvaluator().evaluate(case, RunResult(output="order 7"), ScoringContext("x"))
    with schema_bounds.searching_within(1.0):
        assert schema_bounds.search("^a+$", "aaa")

    assert score.passed
    assert searched[0] == ("order \\d+", "order 7", 1.0)
    assert searched[1][:2] == ("^a+$", "aaa")
    assert 0 < searched[1][2] <= 1.0
