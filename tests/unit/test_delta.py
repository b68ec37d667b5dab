"""The paired delta, its exclusions and diagnostics, and the gate reasons built on it."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

import pytest

from pytest_skill_lens.gate.delta import (
    BASELINE_ERRORED,
    CANDIDATE_ERRORED,
    CUT_SHORT,
    NO_BASELINE,
    NO_CANDIDATE,
    BaselineNote,
    Delta,
    HighVarianceCase,
    LowSignalCheck,
    arm_pass_rate_interval,
    build_delta,
)
from pytest_skill_lens.gate.delta_gate import comparison_gate_reasons
from pytest_skill_lens.gate.intervals import NEWCOMBE
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.score.check import CheckResult, Score


def run(
    case: str,
    arm: Arm,
    status: Status,
    *,
    repeat: int = 0,
    runner: str = "fake",
    checks: Sequence[tuple[str, bool]] = (),
    tokens: int = 0,
    cost: float = 0.0,
    latency: float = 0.0,
) -> Outcome:
    score = Score(
        "assertions", status == "passed", 1.0, "", tuple(CheckResult(i, p, "") for i, p in checks)
    )
    return Outcome(
        skill_name="greet",
        case_name=case,
        runner=runner,
        status=status,
        arm=arm,
        repeat_index=repeat,
        scores=[score] if checks else [],
        tokens=tokens,
        cost_usd=cost,
        latency_ms=latency,
    )


def delta_of(outcomes: Sequence[Outcome], not_run: Sequence[Mapping[str, object]] = ()) -> Delta:
    delta = build_delta(outcomes, baseline_kind="none", not_run=not_run)
    assert delta is not None
    return delta


# Five cases, one run each. Candidate passes a, b, c (3/5 = 0.6); baseline passes a, d
# (2/5 = 0.4). As a paired table: both 1 (a), candidate only 2 (b, c), baseline only 1 (d),
# neither 1 (e).
CANDIDATE: dict[str, Status] = {
    "a": "passed",
    "b": "passed",
    "c": "passed",
    "d": "failed",
    "e": "failed",
}
BASELINE: dict[str, Status] = {
    "a": "passed",
    "b": "failed",
    "c": "failed",
    "d": "passed",
    "e": "failed",
}


def five_cases() -> list[Outcome]:
    candidate = [
        run(c, "candidate", s, tokens=100, cost=0.01, latency=200.0) for c, s in CANDIDATE.items()
    ]
    baseline = [
        run(c, "baseline", s, tokens=150, cost=0.02, latency=250.0) for c, s in BASELINE.items()
    ]
    return candidate + baseline


def test_pooled_figures_are_candidate_minus_baseline() -> None:
    delta = delta_of(five_cases())
    assert (delta.comparable_cases, delta.baseline_kind, delta.per_runner) == (5, "none", False)
    assert (delta.pass_rate_candidate, delta.pass_rate_baseline) == (0.6, 0.4)
    # In binary floating point 0.6 − 0.4 is 0.19999999999999996, not 0.2.
    assert delta.pass_rate_delta == 0.6 - 0.4 != 0.2
    assert delta.tokens_delta == -50.0  # 100 − 150
    assert delta.cost_usd_delta == pytest.approx(-0.01)  # 0.01 − 0.02
    assert delta.latency_ms_delta == -50.0  # 200 − 250


def test_the_delta_interval_is_newcombe_over_the_cases() -> None:
    # Worked in test_intervals (negative correlation): [−0.364083, 0.631333].
    interval = delta_of(five_cases()).pass_rate_delta_interval
    assert interval is not None and interval.method == NEWCOMBE and interval.n == 5
    assert (round(interval.low, 4), round(interval.high, 4)) == (-0.3641, 0.6313)


def test_each_arm_gets_a_wilson_interval_and_the_delta_a_confidence() -> None:
    delta = delta_of(five_cases())
    # Wilson 3/5 = [0.230721, 0.882373]; Wilson 2/5 = [0.117627, 0.769279].
    candidate, baseline = delta.pass_rate_candidate_interval, delta.pass_rate_baseline_interval
    assert candidate is not None and baseline is not None
    assert (round(candidate.low, 4), round(candidate.high, 4)) == (0.2307, 0.8824)
    assert (round(baseline.low, 4), round(baseline.high, 4)) == (0.1176, 0.7693)
    # Width 0.995 from five cases: the +20% is held with low confidence.
    assert delta.confidence == "low"


def test_per_case_arm_stats() -> None:
    case = delta_of(five_cases()).cases[1]
    assert (case.case_name, case.comparable, case.exclusion_reason) == ("b", True, None)
    assert case.baseline is not None
    assert (case.candidate.runs, case.candidate.passed, case.candidate.pass_rate) == (1, 1, 1.0)
    assert (case.baseline.passed, case.baseline.pass_rate, case.baseline.stddev) == (0, 0.0, 0.0)
    assert case.candidate.mean_tokens == 100.0 and case.baseline.mean_cost_usd == 0.02
    assert case.candidate.k_estimates == ()  # one run says nothing of pass@2


def test_no_baseline_outcome_means_no_delta() -> None:
    candidates = [o for o in five_cases() if o.arm == "candidate"]
    assert build_delta(candidates, baseline_kind="none") is None
    assert build_delta(five_cases(), baseline_kind=None) is None


def test_figures_do_not_depend_on_outcome_order() -> None:
    outcomes = [
        *five_cases(),
        run("r", "candidate", "passed", repeat=0, tokens=7, cost=0.1, latency=1.5),
        run("r", "candidate", "errored", repeat=1),
        run("r", "candidate", "failed", repeat=2, tokens=3, cost=0.2, latency=2.25),
        run("r", "baseline", "failed", repeat=0, tokens=1, cost=0.3),
        run("r", "baseline", "passed", repeat=1, tokens=5, cost=0.7),
        run("r", "baseline", "passed", repeat=2, runner="other"),
    ]
    expected = delta_of(outcomes)
    for seed in range(10):
        shuffled = list(outcomes)
        random.Random(seed).shuffle(shuffled)
        assert delta_of(shuffled) == expected


def test_cases_come_out_in_planned_order_whatever_the_arrival() -> None:
    outcomes = five_cases()
    for position, outcome in enumerate(outcomes):
        outcome.order = position
    shuffled = list(reversed(outcomes))
    assert [c.case_name for c in delta_of(shuffled).cases] == ["a", "b", "c", "d", "e"]


def test_a_case_missing_from_the_baseline_drops_from_both_halves() -> None:
    outcomes = [*five_cases(), run("f", "candidate", "passed")]
    delta = delta_of(outcomes)
    excluded = delta.cases[-1]
    assert (excluded.case_name, excluded.comparable) == ("f", False)
    assert excluded.exclusion_reason == NO_BASELINE and excluded.baseline is None
    # Still 3/5 against 2/5: the extra pass does not count for the candidate.
    assert (delta.comparable_cases, delta.pass_rate_candidate) == (5, 0.6)


def test_an_errored_arm_excludes_the_case() -> None:
    outcomes = [
        *five_cases(),
        run("f", "candidate", "errored"),
        run("f", "baseline", "passed"),
        run("g", "candidate", "passed"),
        run("g", "baseline", "errored"),
        run("h", "baseline", "passed"),
    ]
    reasons = {c.case_name: c.exclusion_reason for c in delta_of(outcomes).cases}
    assert reasons["f"] == CANDIDATE_ERRORED
    assert reasons["g"] == BASELINE_ERRORED
    assert reasons["h"] == NO_CANDIDATE
    delta = delta_of(outcomes)
    assert (delta.comparable_cases, delta.pass_rate_candidate, delta.pass_rate_baseline) == (
        5,
        0.6,
        0.4,
    )


def test_one_errored_repetition_leaves_the_case_comparable() -> None:
    outcomes = [
        run("a", "candidate", "passed", repeat=0),
        run("a", "candidate", "errored", repeat=1),
        run("a", "baseline", "failed", repeat=0),
        run("a", "baseline", "failed", repeat=1),
    ]
    case = delta_of(outcomes).cases[0]
    assert case.comparable and case.candidate.errored == 1 and case.candidate.scored == 1
    assert case.candidate.pass_rate == 1.0  # over the one scored repetition


def test_the_interval_weighs_cases_while_the_figure_pools_runs() -> None:
    # a: candidate passed + errored, baseline failed twice; b: every run failed.
    # Pooled (the reference's figure): candidate 1 of 3 scored, baseline 0 of 4.
    # Per case: a = (1.0, 0.0), b = (0.0, 0.0); the interval centres on their mean, 0.5.
    outcomes = [
        run("a", "candidate", "passed", repeat=0),
        run("a", "candidate", "errored", repeat=1),
        run("b", "candidate", "failed", repeat=0),
        run("b", "candidate", "failed", repeat=1),
        *(run(c, "baseline", "failed", repeat=r) for c in "ab" for r in (0, 1)),
    ]
    delta = delta_of(outcomes)
    assert delta.pass_rate_delta == pytest.approx(1 / 3)
    assert delta.pass_rate_delta_interval is not None
    assert delta.pass_rate_delta_interval.estimate == 0.5


def test_a_cut_short_case_is_excluded() -> None:
    not_run = [{"skill_name": "greet", "case_name": "a", "runner": "fake", "arm": "baseline"}]
    delta = delta_of(five_cases(), not_run=not_run)
    assert delta.cases[0].exclusion_reason == CUT_SHORT
    # b, c, d, e remain: candidate 2/4, baseline 1/4.
    assert (delta.comparable_cases, delta.pass_rate_candidate, delta.pass_rate_baseline) == (
        4,
        0.5,
        0.25,
    )


def test_repeats_give_pass_at_k_and_high_variance() -> None:
    statuses: list[Status] = ["passed", "failed", "passed", "failed", "failed"]
    outcomes = [
        *(run("a", "candidate", s, repeat=i) for i, s in enumerate(statuses)),
        *(run("a", "baseline", "failed", repeat=i) for i in range(5)),
    ]
    delta = delta_of(outcomes)
    stats = delta.cases[0].candidate
    assert (stats.runs, stats.passed, stats.pass_rate) == (5, 2, 0.4)
    assert stats.stddev == pytest.approx(math.sqrt(0.4 * 0.6))  # population: sqrt(0.24)
    # pass@1 = 0.4, pass@2 = 1 − 3/10 = 0.7; pass^1 = 0.4, pass^2 = 1/10 = 0.1.
    by_k = {e.k: (e.pass_at_k, e.pass_hat_k) for e in stats.k_estimates}
    assert by_k[1] == pytest.approx((0.4, 0.4)) and by_k[2] == pytest.approx((0.7, 0.1))
    assert sorted(by_k) == [1, 2, 3, 4, 5]
    # Wilson 2/5 over this case's repetitions: [0.1176, 0.7693].
    assert stats.interval is not None and round(stats.interval.low, 4) == 0.1176
    assert delta.cases[0].high_variance
    # The baseline failed every time: steady, so only the candidate is flagged.
    assert delta.high_variance == (
        HighVarianceCase("greet", "a", "fake", "candidate", 0.4, stats.stddev),
    )


def test_low_signal_checks_held_in_every_repetition_of_both_arms() -> None:
    steady = [("x", True), ("y", True), ("z", True)]
    outcomes = [
        run("a", "candidate", "passed", repeat=0, checks=steady),
        run("a", "candidate", "passed", repeat=1, checks=[("x", True), ("y", True)]),
        run("a", "baseline", "failed", repeat=0, checks=[("x", True), ("y", False), ("z", True)]),
        run("a", "baseline", "passed", repeat=1, checks=steady),
        # b passes every check in both arms but is not comparable (baseline errored).
        run("b", "candidate", "passed", checks=steady),
        run("b", "baseline", "errored", checks=steady),
    ]
    delta = delta_of(outcomes)
    # y failed once and z was missing from a repetition; only x tells the arms nothing.
    assert delta.cases[0].low_signal == ("x",)
    assert delta.cases[1].low_signal == ()
    assert delta.low_signal == (LowSignalCheck("greet", "a", "fake", "assertions", "x"),)


def test_several_runners_get_a_delta_each() -> None:
    outcomes = [
        *five_cases(),
        run("a", "candidate", "passed", runner="other"),
        run("b", "candidate", "passed", runner="other"),
    ]
    delta = delta_of(outcomes)
    assert delta.per_runner
    fake, other = delta.runners
    assert (fake.runner, fake.comparable_cases, fake.pass_rate_delta) == ("fake", 5, 0.6 - 0.4)
    assert (other.runner, other.comparable_cases) == ("other", 0)
    # No comparable case is no figure at all, never a 0% that reads as "no effect".
    assert other.pass_rate_delta is None and other.pass_rate_delta_interval is None
    assert other.confidence == "none"


def test_arm_pass_rate_interval_serves_a_single_arm_run() -> None:
    candidates = [o for o in five_cases() if o.arm == "candidate"]
    interval = arm_pass_rate_interval(candidates)
    assert interval is not None and (interval.estimate, interval.n) == (0.6, 5)
    assert arm_pass_rate_interval(candidates, "baseline") is None


def test_baseline_note_texts() -> None:
    assert BaselineNote("greet", "unavailable", "git is not installed").text == (
        "greet: baseline unavailable — git is not installed"
    )
    skipped = BaselineNote("greet", "skipped", "mode: offered has nothing to offer", "c")
    assert skipped.text == "greet :: c: baseline skipped — mode: offered has nothing to offer"


# -- the gate additions --------------------------------------------------------------


def reasons(
    delta: Delta | None,
    outcomes: Sequence[Outcome] = (),
    notes: Sequence[BaselineNote] = (),
    *,
    min_delta: float | None = None,
    min_delta_confidence: float | None = None,
    min_case_pass_rate: float | None = None,
) -> list[str]:
    return comparison_gate_reasons(
        outcomes,
        delta,
        notes,
        min_delta=min_delta,
        min_delta_confidence=min_delta_confidence,
        min_case_pass_rate=min_case_pass_rate,
    )


def test_min_delta_is_met_within_tolerance() -> None:
    # 0.6 − 0.4 = 0.19999999999999996 meets a 0.2 bar.
    assert reasons(delta_of(five_cases()), min_delta=0.2) == []


def test_min_delta_below_the_bar() -> None:
    assert reasons(delta_of(five_cases()), min_delta=0.3) == [
        "pass-rate delta +20% is below the required +30%"
    ]


def test_min_delta_without_a_baseline_arm() -> None:
    assert reasons(None, min_delta=0.1) == [
        "no baseline arm ran, so the pass-rate delta cannot meet the required +10%"
    ]


def test_min_delta_with_nothing_comparable() -> None:
    delta = delta_of([run("a", "candidate", "passed"), run("a", "baseline", "errored")])
    assert reasons(delta, min_delta=0.0) == [
        "no case had a comparable baseline, so the pass-rate delta cannot meet the required +0%"
    ]


def test_min_delta_per_runner_names_each_runner() -> None:
    outcomes = [*five_cases(), run("a", "candidate", "passed", runner="other")]
    assert reasons(delta_of(outcomes), min_delta=0.25) == [
        "pass-rate delta under runner 'fake' +20% is below the required +25%",
        "no case under runner 'other' had a comparable baseline, so its pass-rate delta "
        "cannot meet the required +25%",
    ]


def test_min_delta_confidence_asks_the_lower_bound_to_clear_the_bar() -> None:
    # The +20% meets 0.2, but its 95% interval starts at −36.41%.
    assert reasons(delta_of(five_cases()), min_delta=0.2, min_delta_confidence=0.95) == [
        "pass-rate delta +20% is not shown at 95% confidence: its interval "
        f"({NEWCOMBE}) starts at -36%, below the required +20%"
    ]


def test_min_delta_confidence_holds_for_a_clear_gain() -> None:
    # 30 cases that all improved: Wilson 30/30 starts at 0.886510 and 0/30 ends at
    # 0.113490, φ = 0, so L = 1 − sqrt(2 · 0.113490²) = 0.839502, well above 0.2.
    outcomes = [
        *(run(f"c{i}", "candidate", "passed") for i in range(30)),
        *(run(f"c{i}", "baseline", "failed") for i in range(30)),
    ]
    delta = delta_of(outcomes)
    interval = delta.pass_rate_delta_interval
    assert interval is not None and round(interval.low, 4) == 0.8395
    assert reasons(delta, min_delta=0.2, min_delta_confidence=0.95) == []


def test_a_point_delta_below_the_bar_gives_one_reason_not_two() -> None:
    found = reasons(delta_of(five_cases()), min_delta=0.5, min_delta_confidence=0.95)
    assert found == ["pass-rate delta +20% is below the required +50%"]


def test_min_delta_confidence_needs_min_delta() -> None:
    with pytest.raises(ValueError, match="needs min_delta"):
        reasons(delta_of(five_cases()), min_delta_confidence=0.95)


def test_unresolvable_baselines_are_reasons_only_under_min_delta() -> None:
    notes = [
        BaselineNote("greet", "unavailable", "no earlier version of SKILL.md found"),
        BaselineNote("greet", "skipped", "mode: offered has nothing to offer", "c"),
    ]
    delta = delta_of(five_cases())
    assert reasons(delta, notes=notes, min_delta=0.0) == [
        "skill 'greet' has no resolvable baseline: no earlier version of SKILL.md found"
    ]
    assert reasons(delta, notes=notes) == []


def test_min_case_pass_rate_catches_one_broken_case_in_an_average() -> None:
    outcomes = [
        *(run("a", "candidate", "passed", repeat=i) for i in range(3)),
        run("b", "candidate", "passed", repeat=0),
        run("b", "candidate", "errored", repeat=1),  # errored counts as not passed
        run("b", "candidate", "failed", repeat=2),
        run("b", "baseline", "failed", repeat=0),  # the baseline arm is never floored
    ]
    # The pooled rate is 4/6 = 67%; case b alone is 1/3 = 33%.
    assert reasons(None, outcomes, min_case_pass_rate=0.5) == [
        "case 'greet :: b' (fake) passed 1 of 3 repetition(s), 33%, below the required per-case 50%"
    ]
    assert reasons(None, outcomes, min_case_pass_rate=1 / 3) == []
