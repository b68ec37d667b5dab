"""Holm's step-down over the gate's interval decisions, against hand-computed cases."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

import pytest

from pytest_skill_lens.gate.delta import Delta, build_delta
from pytest_skill_lens.gate.delta_gate import comparison_gate_reasons
from pytest_skill_lens.gate.intervals import paired_delta_interval, wilson_interval
from pytest_skill_lens.gate.judging import judge_record
from pytest_skill_lens.gate.multiplicity import (
    adjusted_reasons,
    delta_multiplicity,
    holm_adjusted,
    holm_divisors,
    inverted_p_value,
    method_named,
    score_test_p_value,
)
from pytest_skill_lens.gate.record import GateSettings, RunRecord
from pytest_skill_lens.gate.skill_confidence import skill_interval_reasons, skill_multiplicity
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome


def test_holm_adjusts_four_hand_computed_p_values() -> None:
    # Sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04,
    # raised to 0.06 by the running maximum). At 0.05 the first two hold and the step-down
    # stops at 0.03 > 0.05/2, though every raw p-value is below 0.05.
    adjusted = holm_adjusted([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [p <= 0.05 for p in adjusted] == [True, False, False, True]
    assert holm_divisors([0.01, 0.04, 0.03, 0.005]) == [3, 1, 2, 4]


def test_holm_caps_at_one_and_keeps_ties_in_order() -> None:
    assert holm_adjusted([0.4, 0.3, 0.6]) == pytest.approx([0.9, 0.9, 0.9])
    assert holm_adjusted([0.5, 0.5]) == [1.0, 1.0]
    assert holm_divisors([0.02, 0.02]) == [2, 1]
    assert holm_adjusted([0.01]) == [0.01]  # one decision: Holm changes nothing
    assert holm_adjusted([]) == []


def test_the_inverted_wilson_interval_is_the_score_test() -> None:
    # 9 of 10 against 0.6: z = (0.9 - 0.6) / sqrt(0.6 * 0.4 / 10) = 1.93649, p = 0.026404.
    def ends(level: float) -> tuple[float, float]:
        interval = wilson_interval(9, 10, level)
        return interval.low, interval.high

    p = inverted_p_value(lambda v: ends(v)[0], lambda v: ends(v)[1], 0.9, 0.6)
    assert p == pytest.approx(0.026404, abs=1e-6)
    assert p == pytest.approx(1 - NormalDist().cdf(0.3 / (0.024**0.5)), abs=1e-12)

    # Below the bar the p-value is above 1/2, from the upper end: 1 - 0.026404 for 3 of 10
    # against 0.6 by symmetry of the score statistic (z = -1.93649).
    def low_ends(level: float) -> tuple[float, float]:
        interval = wilson_interval(3, 10, level)
        return interval.low, interval.high

    below = inverted_p_value(lambda v: low_ends(v)[0], lambda v: low_ends(v)[1], 0.3, 0.6)
    assert below == pytest.approx(1 - 0.026404, abs=1e-6)
    assert inverted_p_value(lambda v: 0.0, lambda v: 1.0, 0.6, 0.6) == 0.5


def test_the_newcombe_p_value_is_where_its_interval_touches_the_bar() -> None:
    # Two cases that both improved: the 95% interval starts at +7% (docs/comparing.md), so
    # against a bar of 0 the one-sided p is below 0.025, and the interval at 1 - 2p starts
    # exactly at 0.
    pairs = [(1.0, 0.0), (1.0, 0.0)]

    def ends(level: float) -> tuple[float, float]:
        interval = paired_delta_interval(pairs, level)
        assert interval is not None
        return interval.low, interval.high

    p = inverted_p_value(lambda v: ends(v)[0], lambda v: ends(v)[1], 1.0, 0.0)
    assert p == pytest.approx(0.013997, abs=1e-6)
    assert ends(1 - 2 * p)[0] == pytest.approx(0.0, abs=1e-9)


def _runs(runner: str, improved: int, same: int = 0) -> list[Outcome]:
    outcomes = []
    for i in range(improved + same):
        baseline: Status = "failed" if i < improved else "passed"
        for arm, status in (("candidate", "passed"), ("baseline", baseline)):
            outcomes.append(_outcome(runner, f"c{i}", arm, status))  # type: ignore[arg-type]
    return outcomes


def _outcome(runner: str, case: str, arm: Arm, status: Status) -> Outcome:
    return Outcome(skill_name="greet", case_name=case, runner=runner, status=status, arm=arm)


def _delta(outcomes: Sequence[Outcome]) -> Delta:
    delta = build_delta(outcomes, baseline_kind="none")
    assert delta is not None
    return delta


def test_two_runners_each_shown_alone_are_not_after_holm() -> None:
    # Each runner: two cases that both improved, p = 0.0140 against a bar of 0. Alone each
    # holds at 95% (one-sided 0.025); Holm asks the smaller of the two for 0.0125: neither.
    delta = _delta(_runs("a", 2) + _runs("b", 2))
    holm = delta_multiplicity(delta, 0.0, 0.95, "holm")
    assert holm is not None
    assert [(d.subject, d.raw_holds, d.adjusted_holds) for d in holm.decisions] == [
        ("a", True, False),
        ("b", True, False),
    ]
    assert [d.adjusted_p_value for d in holm.decisions] == pytest.approx([0.027994] * 2, abs=1e-6)
    assert [d.adjusted_level for d in holm.decisions] == pytest.approx([0.975, 0.95])
    assert comparison_gate_reasons([], delta, min_delta=0.0, min_delta_confidence=0.95) == []
    assert adjusted_reasons([holm]) == [
        f"pass-rate delta under runner '{r}' +100% is shown at 95% confidence alone but not "
        "after Holm's correction over 2 decision(s): p = 0.0140, adjusted p = 0.0280, "
        "above 0.0250"
        for r in ("a", "b")
    ]
    none = delta_multiplicity(delta, 0.0, 0.95, "none")
    assert none is not None and not none.changed
    assert adjusted_reasons([none]) == []


def test_holm_steps_down_from_the_strongest_decision() -> None:
    # Runner a: five improved cases against 0 (p far below 0.0125) holds at 97.5%; then b
    # (two improved, p = 0.0140 <= 0.025) is held at 95%, its own raw level: both hold.
    delta = _delta(_runs("a", 5) + _runs("b", 2))
    holm = delta_multiplicity(delta, 0.0, 0.95, "holm")
    assert holm is not None
    assert [(d.raw_holds, d.adjusted_holds) for d in holm.decisions] == [(True, True)] * 2
    first, second = holm.decisions
    assert first.p_value < 0.0125 < second.p_value < 0.025
    assert second.adjusted_p_value == pytest.approx(second.p_value)  # x1, above 2 x p(1)


def test_a_raw_miss_stays_a_miss_and_ends_the_step_down() -> None:
    # Runner b: one improved case and one unchanged, +50% from two cases, its 95% interval
    # starting at -27%: a miss against +30% alone. Runner a (six improved) is held first,
    # at 97.5%, where its interval starts at +36%: it holds.
    delta = _delta(_runs("a", 6) + _runs("b", 1, same=1))
    holm = delta_multiplicity(delta, 0.3, 0.95, "holm")
    assert holm is not None
    assert [(d.subject, d.raw_holds, d.adjusted_holds) for d in holm.decisions] == [
        ("a", True, True),
        ("b", False, False),
    ]


def test_no_level_or_no_comparable_case_is_no_family() -> None:
    delta = _delta(_runs("a", 2))
    assert delta_multiplicity(delta, 0.0, None, "holm") is None
    assert delta_multiplicity(None, 0.0, 0.95, "holm") is None
    single = delta_multiplicity(delta, 0.0, 0.95, "holm")
    assert single is not None and single.decisions[0].subject == ""
    assert single.decisions[0].adjusted_holds is single.decisions[0].raw_holds is True


def test_an_unknown_method_is_refused() -> None:
    assert method_named("holm") == "holm"
    with pytest.raises(ValueError, match="bonferroni"):
        method_named("bonferroni")


def _skill_runs(skill: str, passed: int, failed: int = 0) -> list[Outcome]:
    statuses: list[Status] = ["passed"] * passed + ["failed"] * failed
    return [
        Outcome(skill_name=skill, case_name=f"c{i}", runner="r", status=s, arm="candidate")
        for i, s in enumerate(statuses)
    ]


def test_the_score_test_by_hand() -> None:
    # 4 of 4 against 50%: z = (1 - 0.5) / sqrt(0.25 / 4) = 2, p = 1 - Phi(2) = 0.02275.
    assert score_test_p_value(4, 4, 0.5) == pytest.approx(0.0227501, abs=1e-7)
    assert score_test_p_value(3, 4, 0.0) == 0.0  # a bar of 0 always holds
    assert score_test_p_value(4, 4, 1.0) == 1.0  # no interval's lower end reaches 1


def test_two_skills_each_shown_alone_are_not_after_holm() -> None:
    # Each skill 4 of 4 against 50%: p = 0.02275 <= 0.025 alone; Holm asks 0.0125 first.
    outcomes = _skill_runs("greet", 4) + _skill_runs("audit", 4)
    minimums = {"greet": 0.5, "audit": 0.5}
    holm = skill_multiplicity(outcomes, minimums, 0.95, "holm")
    assert holm is not None and holm.criterion == "per_skill_min_confidence"
    assert [(d.subject, d.raw_holds, d.adjusted_holds) for d in holm.decisions] == [
        ("greet", True, False),
        ("audit", True, False),
    ]
    assert [d.adjusted_p_value for d in holm.decisions] == pytest.approx([0.0455003] * 2)
    assert adjusted_reasons([holm])[0] == (
        "skill 'greet' pass rate 100% is shown at 95% confidence alone but not after Holm's "
        "correction over 2 decision(s): p = 0.0228, adjusted p = 0.0455, above 0.0250"
    )
    settings = GateSettings(
        min_pass_rate=0.0, per_skill_min=minimums, per_skill_min_confidence=0.95
    )
    judged, gate = judge_record(RunRecord(outcomes=outcomes), settings)
    assert gate.passed and [f.criterion for f in judged.multiplicity] == [
        "per_skill_min_confidence"
    ]
    holm_settings = GateSettings(
        min_pass_rate=0.0,
        per_skill_min=minimums,
        per_skill_min_confidence=0.95,
        multiplicity="holm",
    )
    _, gate = judge_record(RunRecord(outcomes=outcomes), holm_settings)
    assert not gate.passed and len(gate.reasons) == 2


def test_a_skill_at_its_minimum_but_not_shown_says_so() -> None:
    # 3 of 4 against 50%: meets it as a figure; its 95% Wilson interval starts at 30%.
    outcomes = _skill_runs("greet", 3, failed=1)
    family = skill_multiplicity(outcomes, {"greet": 0.5}, 0.95, "none")
    assert family is not None and not family.decisions[0].raw_holds
    assert skill_interval_reasons(family, outcomes) == [
        "skill 'greet' pass rate 75% is not shown at 95% confidence: its interval (wilson "
        "score, 4 case(s)) starts at 30%, below its required 50%"
    ]
    # Below the minimum as a figure: per_skill_min's own reason says so, not this one.
    below = _skill_runs("greet", 1, failed=3)
    family = skill_multiplicity(below, {"greet": 0.5}, 0.95, "none")
    assert family is not None and skill_interval_reasons(family, below) == []
    assert skill_multiplicity(outcomes, {"absent": 0.5}, 0.95, "holm") is None
