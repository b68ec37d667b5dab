"""A case's JUnit properties: what they say, and that cases which say the same share
one pair (pytest keeps every item's properties to the end of the session)."""

from __future__ import annotations

from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.junit_properties import case_properties


def _outcome(case: str, **fields: object) -> Outcome:
    return Outcome(skill_name="greet", case_name=case, runner="fake", status="passed", **fields)  # type: ignore[arg-type]


def test_the_properties_name_the_case_and_its_figures_in_order() -> None:
    found = case_properties(_outcome("hello", tokens=7, cost_usd=0.5, latency_ms=1.23456))
    assert found == [
        ("skill", "greet"),
        ("case", "hello"),
        ("runner", "fake"),
        ("arm", "candidate"),
        ("repeat", 0),
        ("status", "passed"),
        ("tokens", 7),
        ("cost_usd", 0.5),
        ("latency_ms", 1.235),
    ]


def test_cases_that_say_the_same_share_one_pair_and_their_own_names_stay_their_own() -> None:
    first, second = case_properties(_outcome("a")), case_properties(_outcome("b"))
    shared = [a is b for a, b in zip(first, second, strict=True)]
    # skill, runner, arm, repeat, status, tokens and cost are one object; the case and
    # its latency are each case's own.
    assert shared == [True, False, True, True, True, True, True, True, False]
    assert [value for _, value in second][:2] == ["greet", "b"]


def test_a_shared_pair_never_stands_in_for_an_equal_value_of_another_type() -> None:
    as_float = dict(case_properties(_outcome("a", cost_usd=0.0, tokens=1)))
    as_int = dict(case_properties(_outcome("b", cost_usd=0, tokens=True)))  # type: ignore[arg-type]
    assert type(as_float["cost_usd"]) is float and type(as_int["cost_usd"]) is int
    assert type(as_float["tokens"]) is int and type(as_int["tokens"]) is bool
