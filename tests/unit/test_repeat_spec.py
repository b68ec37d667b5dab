"""--skill-lens-repeat N | auto | auto:N, parsed and checked before anything runs (unwired)."""

from __future__ import annotations

import pytest

from pytest_skill_lens.repeat_spec import (
    DEFAULT_AUTO_MAX,
    RepeatError,
    RepeatSpec,
    parse_repeat,
    repeat_from_setting,
)


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("1", RepeatSpec(1, auto=False)),
        ("3", RepeatSpec(3, auto=False)),
        ("auto", RepeatSpec(DEFAULT_AUTO_MAX, auto=True)),
        ("auto:2", RepeatSpec(2, auto=True)),
        ("auto:25", RepeatSpec(25, auto=True)),
    ],
)
def test_good_values(text: str, spec: RepeatSpec) -> None:
    assert parse_repeat(text) == spec


def test_auto_alone_means_at_most_ten_rounds_and_says_so() -> None:
    assert DEFAULT_AUTO_MAX == 10
    assert parse_repeat("auto").text == "auto:10"
    assert parse_repeat("4").text == "4"


@pytest.mark.parametrize(
    ("text", "problem", "fix"),
    [
        ("0", "must be 1 or more, got 0", "a whole number of runs, 1 or more"),
        ("1.5", "expects a whole number or auto[:N], got '1.5'", "e.g. 3, auto or auto:10"),
        ("", "expects a whole number or auto[:N], got ''", "e.g. 3, auto or auto:10"),
        ("Auto", "expects a whole number or auto[:N], got 'Auto'", "e.g. 3, auto or auto:10"),
        ("auto:", "auto:N needs the most rounds to run after the colon", "auto:10"),
        ("auto:x", "auto:N takes a whole number of rounds, got 'x'", "auto:10"),
        ("auto:1.5", "auto:N takes a whole number of rounds, got '1.5'", "auto:10"),
        ("auto: 10", "auto:N takes a whole number of rounds, got ' 10'", "auto:10"),
        ("auto:-3", "auto:N takes a whole number of rounds, got '-3'", "auto:10"),
        ("auto:1", "auto:N needs at least 2 rounds to stop early, got 1", "for a single run"),
        ("auto:0", "auto:N needs at least 2 rounds to stop early, got 0", "for a single run"),
    ],
)
def test_bad_values_say_what_and_how_to_fix(text: str, problem: str, fix: str) -> None:
    with pytest.raises(RepeatError) as caught:
        parse_repeat(text)
    assert problem in caught.value.problem
    assert fix in caught.value.fix


def test_a_hostile_value_is_quoted_short() -> None:
    with pytest.raises(RepeatError) as caught:
        parse_repeat("auto:" + "9" * 5000)
    assert len(caught.value.problem) < 200
    with pytest.raises(RepeatError) as caught:
        parse_repeat("x" * 5000 + "\x1b[2J")
    assert len(caught.value.problem) < 200
    assert "\x1b" not in caught.value.problem


def test_the_file_takes_a_whole_number_or_the_same_text() -> None:
    assert repeat_from_setting(3) == RepeatSpec(3, auto=False)
    assert repeat_from_setting("auto:5") == RepeatSpec(5, auto=True)
    for bad in (True, 2.0, None, [3]):
        with pytest.raises(RepeatError, match="whole number or auto"):
            repeat_from_setting(bad)
    with pytest.raises(RepeatError, match="1 or more"):
        repeat_from_setting(0)
