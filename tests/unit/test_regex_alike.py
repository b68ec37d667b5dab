"""The syntax `re` and the `regex` package read alike: the loader skips the second compile
for it, so the regex package (the matcher) must accept every such pattern `re` accepts."""

from __future__ import annotations

import re
import warnings

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from pytest_skill_lens.suite.regex_rules import read_alike, regex_problem

# Pieces of a pattern: literals (one not ASCII), the operators, groups, sets and escapes,
# the alike ones and some that are not (they must make read_alike false, never wrong).
PIECES = [
    "a", "b", "é", " ", "-", ":", "^", "$", ".", "*", "+", "?", "*?", "|", "(", ")",
    "[", "]", "[^", "\\b", "\\B", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\A",
    "\\Z", "\\n", "\\t", "\\.", "\\(", "\\[", "\\]", "\\-", "\\\\", "\\/",
    "{", "}", "{2}", "{1,3}", "(?i)", "(?:", "(?P<n>", "\\1", "\\p", "[[:digit:]]", "\\é",
]  # fmt: skip


def _re_compiles(pattern: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            re.compile(pattern)
    except re.error:
        return False
    return True


@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_what_both_read_alike_the_regex_package_compiles(pattern: str) -> None:
    if _re_compiles(pattern) and read_alike(pattern):
        regex.compile(pattern)  # raises regex.error if the premise is wrong


@pytest.mark.parametrize(
    "pattern",
    ["a{sep}", "x{2}", "(?i)abc", "(?:a)", "(a)\\1", "\\p{L}", "[[:digit:]]", "[a[b]", "\\é"],
)
def test_syntax_the_engines_may_read_otherwise_is_not_taken_as_alike(pattern: str) -> None:
    assert not read_alike(pattern)


@pytest.mark.parametrize(
    "pattern",
    ["request number 12\\b", "^order \\d+$", "[^]a-z]+", "(yes|no)\\.", "a\\{b\\}", "\\w+@\\w+"],
)
def test_ordinary_patterns_are_alike_and_allowed(pattern: str) -> None:
    assert read_alike(pattern)
    assert regex_problem(pattern) is None


def test_a_pattern_the_regex_package_refuses_is_still_refused() -> None:
    problem = regex_problem("a{sep}")
    assert problem is not None
    assert "compiles under Python's re but not under the regex package" in problem[0]
