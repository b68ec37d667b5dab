"""The sequential rule of --skill-lens-repeat auto, against numbers worked by hand.

The bet of a round is fixed before the round: with k outcomes a round, N rounds at most
and v the regularised variance of the earlier outcomes (1/4 before any),
lambda = sqrt(2 ln(1/alpha) / (v k N)), then capped at c/theta when betting on "at least
theta" and at c/(1 - theta) when betting against it, c = 3/4. At alpha = 0.05,
2 ln 20 = 5.991465. Each outcome y multiplies the wealth for "at least theta" by
1 + lambda (y - theta) and the wealth against it by 1 - lambda (y - theta); a wealth of
1/alpha = 20 decides. After five passes (or five failures) in a row, v = (1/4 + 1/4 *
(1/4 + 1/9 + 1/16 + 1/25 + 1/36)) / 6 = 0.062141.
"""

from __future__ import annotations

import math
import random

import pytest

from pytest_skill_lens.gate.intervals import wilson_interval
from pytest_skill_lens.gate.sequential import (
    DEFAULT_ALPHA,
    SequentialDecision,
    anytime_bounds,
    decide_delta,
    decide_rate,
    delta_round,
    rate_round,
    sequential_test,
)
from pytest_skill_lens.labels import Status


def ones(cases: int, rounds: int) -> list[list[float]]:
    return [[1.0] * cases for _ in range(rounds)]


def test_one_case_passing_every_round_clears_half_at_round_six() -> None:
    # N = 10, k = 1: the first bet is sqrt(5.991465 / 2.5) = 1.548, above the cap
    # 0.75 / 0.5 = 1.5, and v only shrinks as passes come in, so every pass multiplies
    # by 1 + 1.5 * 0.5 = 1.75: 1.75^5 = 16.4 < 20 <= 1.75^6 = 28.7.
    decision = sequential_test(ones(1, 6), 0.5, max_rounds=10)
    assert (decision.verdict, decision.decided_at) == ("pass", 6)
    assert decision.capital_pass == pytest.approx(1.75**6)
    still = sequential_test(ones(1, 5), 0.5, max_rounds=10)
    assert (still.verdict, still.decided_at) == ("continue", None)
    assert still.capital_pass == pytest.approx(1.75**5)


def test_five_cases_passing_clear_half_in_the_second_round() -> None:
    # k = 5, N = 10: round 1 bets sqrt(5.991465 / (0.25 * 50)) = 0.69233, 1.346164^5 = 4.42;
    # round 2 sqrt(5.991465 / (0.062141 * 50)) = 1.38865, below the cap 1.5:
    # 1.694324^5 = 13.95, and 4.42 * 13.95 = 61.7.
    first = sequential_test(ones(5, 1), 0.5, max_rounds=10)
    assert first.verdict == "continue"
    assert first.capital_pass == pytest.approx(1.346164**5, rel=1e-5)
    decision = sequential_test(ones(5, 2), 0.5, max_rounds=10)
    assert (decision.verdict, decision.decided_at, decision.rounds) == ("pass", 2, 2)
    second = math.sqrt(5.991465 / (0.062141 * 50))
    assert second == pytest.approx(1.38865, abs=1e-4)
    expected = 1.346164**5 * (1 + 0.5 * second) ** 5
    assert decision.capital_pass == pytest.approx(expected, rel=1e-4)


def test_five_cases_passing_clear_eighty_percent_in_the_fourth_round() -> None:
    # Round 1 bets 0.69233 (below the cap 0.75 / 0.8 = 0.9375): 1.138465^5 = 1.911; then
    # the cap: 1 + 0.9375 * 0.2 = 1.1875 a pass, 1.911 * 1.1875^10 = 10.7 after round 3,
    # 1.911 * 1.1875^15 = 25.2 after round 4 (a fixed-sample exact test needs 14 passes:
    # 0.8^14 = 0.044).
    assert sequential_test(ones(5, 3), 0.8, max_rounds=10).verdict == "continue"
    decision = sequential_test(ones(5, 4), 0.8, max_rounds=10)
    assert (decision.verdict, decision.decided_at) == ("pass", 4)
    assert decision.capital_pass == pytest.approx(1.138465**5 * 1.1875**15, rel=1e-5)


def test_one_case_failing_every_round_misses_eighty_percent_at_round_four() -> None:
    # Against 0.8 the cap is 0.75 / 0.2 = 3.75 (never reached here) and a failure
    # multiplies by 1 + lambda * 0.8, lambda = sqrt(5.991465 / (10 v)). The means after
    # each failure are 1/4, 1/6, 1/8, so v is 1/4, then (1/4 + 1/16) / 2 = 0.15625,
    # (0.3125 + 1/36) / 3 = 0.113426, (0.340278 + 1/64) / 4 = 0.088976; the bets 1.54795,
    # 1.95820, 2.29832, 2.59494; the wealth 2.23836, 5.7449, 16.308, 50.16.
    three = sequential_test([[0.0]] * 3, 0.8, max_rounds=10)
    assert three.verdict == "continue"
    assert three.capital_fail == pytest.approx(16.308, rel=1e-4)
    decision = sequential_test([[0.0]] * 4, 0.8, max_rounds=10)
    assert (decision.verdict, decision.decided_at) == ("fail", 4)
    assert decision.capital_fail == pytest.approx(50.16, rel=1e-3)


def test_a_pass_and_a_fail_leave_both_wealths_below_one() -> None:
    # k = 2, N = 3: sqrt(5.991465 / 1.5) = 1.998, capped at 1.5 both ways at 0.5:
    # (1 + 0.75)(1 - 0.75) = 0.4375 either way.
    decision = sequential_test([[1.0, 0.0]], 0.5, max_rounds=3)
    assert decision.capital_pass == pytest.approx(0.4375)
    assert decision.capital_fail == pytest.approx(0.4375)
    assert decision.estimate == 0.5


def test_the_maximum_reached_without_a_decision_is_undecided() -> None:
    rounds = [[1.0, 0.0]] * 4
    assert sequential_test(rounds[:3], 0.5, max_rounds=4).verdict == "continue"
    decision = sequential_test(rounds, 0.5, max_rounds=4)
    assert (decision.verdict, decision.decided_at, decision.rounds) == ("undecided", None, 4)


def test_a_bar_of_zero_is_met_by_the_first_round_and_no_round_decides_nothing() -> None:
    assert sequential_test([], 0.3, max_rounds=5).verdict == "continue"
    decision = sequential_test([[0.0]], 0.0, max_rounds=5)
    assert (decision.verdict, decision.decided_at) == ("pass", 1)


def test_a_bar_of_one_fails_on_the_first_failure_and_is_never_proven_met() -> None:
    # A rate of 100% never fails a run: one failure settles it with certainty.
    decision = sequential_test([[1.0, 1.0], [1.0, 0.0]], 1.0, max_rounds=9)
    assert (decision.verdict, decision.decided_at) == ("fail", 2)
    assert decision.capital_fail == math.inf
    assert sequential_test(ones(3, 9), 1.0, max_rounds=9).verdict == "undecided"


def test_a_round_without_evidence_counts_toward_the_maximum_only() -> None:
    # k = 5, N = 3: round 1 bets sqrt(5.991465 / 3.75) = 1.26401, 1.632006^5 = 11.6; the
    # empty round bets nothing; round 3 bets the cap 1.5 (2.5357 is above it): 1.75^5.
    with_gap = sequential_test([[1.0] * 5, None, [1.0] * 5], 0.5, max_rounds=3)
    assert (with_gap.verdict, with_gap.decided_at, with_gap.rounds) == ("pass", 3, 3)
    assert with_gap.capital_pass == pytest.approx(1.632006**5 * 1.75**5, rel=1e-5)
    assert sequential_test([None, None], 0.5, max_rounds=2).verdict == "undecided"


def test_rounds_after_the_decision_do_not_change_it() -> None:
    decision = sequential_test([*ones(5, 2), [0.0] * 5, [0.0] * 5], 0.5, max_rounds=4)
    assert (decision.verdict, decision.decided_at, decision.rounds) == ("pass", 2, 4)
    assert decision.estimate == 1.0  # what was known when it was decided


def test_deciding_on_the_whole_run_equals_deciding_after_every_round() -> None:
    # The rule reads only the rounds so far: stopping at the first decision of a
    # round-by-round loop is the same as the decided_at of the whole sequence.
    rng = random.Random(20261205)
    for _ in range(300):
        rate, bar = rng.random(), rng.choice([0.3, 0.5, 0.8])
        rounds = [[float(rng.random() < rate) for _ in range(3)] for _ in range(8)]
        whole = sequential_test(rounds, bar, max_rounds=8)
        first = next(
            (
                k
                for k in range(1, 9)
                if sequential_test(rounds[:k], bar, max_rounds=8).verdict in ("pass", "fail")
            ),
            None,
        )
        assert whole.decided_at == first


def test_peeking_every_round_keeps_the_error_below_alpha_at_the_bar() -> None:
    # 2000 runs of five cases whose rates average exactly 0.8 (the worst case): deciding
    # "fail" is the error. Its 99% Wilson interval must reach below alpha = 0.05.
    rng = random.Random(7)
    rates = (0.6, 0.7, 0.8, 0.9, 1.0)
    wrong = 0
    for _ in range(2000):
        rounds = [[float(rng.random() < p) for p in rates] for _ in range(20)]
        wrong += sequential_test(rounds, 0.8, max_rounds=20).verdict == "fail"
    assert wilson_interval(wrong, 2000, 0.99).low <= DEFAULT_ALPHA


def test_decide_rate_counts_an_errored_run_as_not_passed() -> None:
    assert rate_round(["passed", "failed", "errored"]) == [1.0, 0.0, 0.0]
    # k = 5, N = 5: round 1 bets sqrt(5.991465 / 6.25) = 0.97910, 1.783279^5 = 18.0 < 20;
    # round 2 bets sqrt(5.991465 / (0.062141 * 25)) = 1.96384: 2.571074^5 = 112.3 more.
    rounds: list[list[Status]] = [["errored"] * 5] * 2
    assert decide_rate(rounds[:1], 0.8, max_rounds=5).verdict == "continue"
    decision = decide_rate(rounds, 0.8, max_rounds=5)
    assert (decision.verdict, decision.decided_at) == ("fail", 2)
    assert decision.capital_fail == pytest.approx(1.783279**5 * 2.571074**5, rel=1e-4)
    assert decision.threshold == 0.8


def test_decide_delta_maps_the_paired_difference_onto_zero_to_one() -> None:
    # (candidate - baseline + 1) / 2: a bar of 0 is 0.5, and five cases improved in
    # every round read as five passes each round. k = 5, N = 6: round 1 bets
    # sqrt(5.991465 / 7.5) = 0.89379, 1.446895^5 = 6.34; round 2 the cap 1.5: 16.4 more.
    assert delta_round([("passed", "failed"), ("failed", "failed"), ("failed", "passed")]) == [
        1.0,
        0.5,
        0.0,
    ]
    Pairs = list[list[tuple[Status, Status]]]
    improved: Pairs = [[("passed", "failed")] * 5] * 2
    decision = decide_delta(improved, 0.0, max_rounds=6)
    assert (decision.verdict, decision.decided_at) == ("pass", 2)
    assert (decision.threshold, decision.estimate) == (0.0, 1.0)
    worse_rounds: Pairs = [[("failed", "passed")] * 5] * 2
    worse = decide_delta(worse_rounds, 0.0, max_rounds=6)
    assert (worse.verdict, worse.decided_at, worse.estimate) == ("fail", 2, -1.0)


def test_a_pair_with_an_errored_arm_makes_its_round_no_evidence() -> None:
    assert delta_round([("passed", "failed"), ("errored", "passed")]) is None
    rounds: list[list[tuple[Status, Status]]] = [
        [("passed", "failed")] * 5,
        [("passed", "errored")] * 5,
    ]
    decision = decide_delta(rounds, 0.0, max_rounds=6)
    assert (decision.verdict, decision.rounds) == ("continue", 2)
    assert decision.capital_pass == pytest.approx(1.446895**5, rel=1e-5)


def test_anytime_bounds_of_six_passes() -> None:
    # N = 6, k = 1: every bet is at least sqrt(5.991465 / 1.5) = 1.998, so near m = 0.54
    # the cap 0.75/m binds: (0.25 + 0.75/m)^6 >= 20 for m <= 0.75 / (20^(1/6) - 0.25) =
    # 0.53667; earlier rounds give lower bounds below it.
    low, high = anytime_bounds(ones(1, 6), max_rounds=6)
    assert low == pytest.approx(0.53667, abs=1e-4)
    assert high == 1.0
    decision = sequential_test(ones(1, 6), 0.5, max_rounds=10)
    assert decision.verdict == "pass" and low >= decision.threshold


def test_anytime_bounds_agree_with_the_decisions() -> None:
    rng = random.Random(3)
    for _ in range(100):
        rounds = [[float(rng.random() < 0.7) for _ in range(4)] for _ in range(6)]
        low, high = anytime_bounds(rounds, max_rounds=6)
        assert 0.0 <= low <= high <= 1.0
        for bar in (0.2, 0.4, 0.6, 0.8):
            verdict = sequential_test(rounds, bar, max_rounds=6).verdict
            if verdict == "pass":
                assert low >= bar - 1e-6
            if verdict == "fail":
                assert high <= bar + 1e-6
            if bar < low - 1e-6:
                assert verdict == "pass"
            if bar > high + 1e-6:
                assert verdict == "fail"


@pytest.mark.parametrize(
    ("rounds", "bar", "max_rounds", "alpha", "message"),
    [
        ([[1.0]], 0.5, 0, DEFAULT_ALPHA, "at least one round"),
        ([[1.0]] * 3, 0.5, 2, DEFAULT_ALPHA, "3 rounds, more than the maximum of 2"),
        ([[1.5]], 0.5, 2, DEFAULT_ALPHA, "between 0 and 1"),
        ([[math.nan]], 0.5, 2, DEFAULT_ALPHA, "between 0 and 1"),
        ([[]], 0.5, 2, DEFAULT_ALPHA, "no outcome"),
        ([[1.0]], 1.5, 2, DEFAULT_ALPHA, "threshold"),
        ([[1.0]], 0.5, 2, 0.0, "strictly between 0 and 1"),
    ],
)
def test_misuse_is_refused(
    rounds: list[list[float]], bar: float, max_rounds: int, alpha: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        sequential_test(rounds, bar, max_rounds=max_rounds, alpha=alpha)


def test_a_decision_says_how_it_was_reached() -> None:
    decision = sequential_test(ones(5, 2), 0.5, max_rounds=10)
    assert isinstance(decision, SequentialDecision)
    assert decision.alpha == DEFAULT_ALPHA
    assert "betting" in decision.method
