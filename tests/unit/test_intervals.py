"""Score intervals, pass@k and the confidence label, against numbers worked by hand.

Throughout, z = 1.959964 (the 97.5% normal quantile) and z² = 3.841459. Wilson for s of
n: centre = (p + z²/2n) / (1 + z²/n), half = z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n).
"""

from __future__ import annotations

import random

import pytest

from pytest_skill_lens.gate.intervals import (
    NEWCOMBE,
    WILSON,
    Interval,
    KEstimate,
    case_rate_interval,
    confidence_label,
    k_estimates,
    paired_delta_interval,
    pass_at_k,
    pass_hat_k,
    wilson_interval,
    z_score,
)


def bounds(interval: Interval | None) -> tuple[float, float]:
    assert interval is not None
    return (round(interval.low, 4), round(interval.high, 4))


def test_z_for_95_percent() -> None:
    assert z_score(0.95) == pytest.approx(1.959964, abs=1e-6)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        z_score(1.0)


def test_wilson_none_of_five() -> None:
    # z²/n = 0.768292, so 1 + z²/n = 1.768292; centre = 0.384146 / 1.768292 = 0.217241;
    # half = 1.959964 · sqrt(0.768292 / 20) / 1.768292 = 0.217241: [0, 0.4345].
    interval = wilson_interval(0, 5)
    assert bounds(interval) == (0.0, 0.4345)
    assert interval.low == 0.0  # exactly, never a rounding speck below it
    assert (interval.estimate, interval.n, interval.method) == (0.0, 5, WILSON)


def test_wilson_all_of_five_mirrors_none_of_five() -> None:
    # 1 − 0.434482 = 0.565518: five passes of five do not prove 100%.
    assert bounds(wilson_interval(5, 5)) == (0.5655, 1.0)
    assert wilson_interval(5, 5).high == 1.0


def test_wilson_three_of_ten() -> None:
    # z²/n = 0.384146; centre = (0.3 + 0.192073) / 1.384146 = 0.355506;
    # half = 1.959964 · sqrt(0.021 + 0.0096037) / 1.384146 = 0.247717: [0.1078, 0.6032].
    assert bounds(wilson_interval(3, 10)) == (0.1078, 0.6032)


def test_wilson_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError, match="at least one trial"):
        wilson_interval(0, 0)
    with pytest.raises(ValueError, match="cannot come from"):
        wilson_interval(6, 5)


def test_case_rate_interval_takes_fractional_rates_one_case_one_unit() -> None:
    # Rates 0.5 and 1.0: 1.5 successes of 2. p = 0.75, z²/n = 1.920729;
    # centre = (0.75 + 0.960365) / 2.920729 = 0.585590;
    # half = 1.959964 · sqrt(0.09375 + 0.240091) / 2.920729 = 0.387724: [0.1979, 0.9733].
    interval = case_rate_interval([0.5, 1.0])
    assert bounds(interval) == (0.1979, 0.9733)
    assert interval is not None and interval.n == 2 and interval.estimate == 0.75
    assert case_rate_interval([]) is None


def test_newcombe_two_cases_that_both_improved_is_wide_not_certain() -> None:
    # Table a=0, b=2, c=0, d=0 (n=2): p1 = 1, p2 = 0, φ = 0 (a margin is empty).
    # Wilson 2/2: centre = (1 + 0.960365) / 2.920729 = 0.671190, half = 0.328810,
    # so l1 = 0.342380; Wilson 0/2 gives u2 = 0.657620.
    # L = 1 − sqrt(0.657620² + 0.657620²) = 1 − 0.930015 = 0.069985; U = 1 + 0 = 1.
    interval = paired_delta_interval([(1.0, 0.0), (1.0, 0.0)])
    assert bounds(interval) == (0.07, 1.0)
    assert interval is not None and interval.width > 0.9  # a bootstrap would give 0
    assert (interval.estimate, interval.n, interval.method) == (1.0, 2, NEWCOMBE)


def test_newcombe_with_a_negative_correlation() -> None:
    # Five cases: both pass 1, candidate only 2, baseline only 1, neither 1.
    # p1 = 0.6, p2 = 0.4, D = 0.2. Wilson 3/5 = (0.230721, 0.882373), 2/5 = (0.117627,
    # 0.769279). ad − bc = 1 − 2 = −1 (no correction below 0); margins 3·2·2·3 = 36,
    # φ = −1/6. L = 0.2 − sqrt(0.369279² + (1/3)·0.369279² + 0.369279²)
    #   = 0.2 − sqrt(0.318190) = −0.364083; U = 0.2 + sqrt(0.282373²·(2 + 1/3))
    #   = 0.2 + 0.431333 = 0.631333.
    pairs = [(1.0, 1.0), (1.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0)]
    assert bounds(paired_delta_interval(pairs)) == (-0.3641, 0.6313)


def test_newcombe_matches_a_published_paired_example() -> None:
    # The paired example data of Fagerland, Lydersen & Laake, "Statistical Analysis of
    # Contingency Tables", ch. 8 (Bentur et al. 2009): both 1, first only 1, second only 7,
    # neither 12, n = 21. p1 = 2/21 = 0.095238, p2 = 8/21 = 0.380952, D = -0.285714.
    # Wilson 2/21 = (0.026519, 0.289141), 8/21 = (0.207510, 0.591213). ad - bc = 12 - 7 = 5,
    # below n/2 = 10.5, so phi = 0. L = D - sqrt(0.068719^2 + 0.210261^2) = D - 0.221206
    # = -0.506920; U = D + sqrt(0.173442^2 + 0.193903^2) = D + 0.260154 = -0.025560.
    pairs = [(1.0, 1.0)] + [(1.0, 0.0)] + [(0.0, 1.0)] * 7 + [(0.0, 0.0)] * 12
    interval = paired_delta_interval(pairs)
    assert interval is not None and round(interval.estimate, 4) == -0.2857
    low, high = bounds(interval)
    assert (round(low, 3), round(high, 3)) == (-0.507, -0.026)


def test_newcombe_shrinks_a_positive_correlation_by_half_n() -> None:
    # Ten cases: both 5, candidate only 3, baseline only 0, neither 2. p1 = 0.8, p2 = 0.5.
    # ad − bc = 10, less n/2 = 5; margins 8·2·5·5 = 400, so φ = 5/20 = 0.25 (0.5 uncorrected).
    # Wilson 8/10 = (0.490160, 0.943320), 5/10 = (0.236592, 0.763408).
    # L = 0.3 − sqrt(0.309840² − 0.5·0.309840·0.263408 + 0.263408²)
    #   = 0.3 − sqrt(0.0960008 − 0.0408073 + 0.0693838) = 0.3 − 0.352955 = −0.052955;
    # U = 0.3 + sqrt(0.263408² − 0.5·0.263408·0.143320 + 0.143320²)
    #   = 0.3 + sqrt(0.0693838 − 0.0188758 + 0.0205406) = 0.3 + 0.266549 = 0.566549.
    pairs = [(1.0, 1.0)] * 5 + [(1.0, 0.0)] * 3 + [(0.0, 0.0)] * 2
    assert bounds(paired_delta_interval(pairs)) == (-0.053, 0.5665)


def test_newcombe_does_not_depend_on_case_order() -> None:
    pairs = [(1.0, 1.0), (0.5, 0.25), (1.0, 0.0), (0.0, 1.0), (0.75, 0.5), (0.2, 0.0)]
    expected = paired_delta_interval(pairs)
    for seed in range(5):
        shuffled = list(pairs)
        random.Random(seed).shuffle(shuffled)
        assert paired_delta_interval(shuffled) == expected


def test_newcombe_of_no_case_is_none() -> None:
    assert paired_delta_interval([]) is None


def test_a_lower_level_gives_a_narrower_interval() -> None:
    pairs = [(1.0, 0.0)] * 3 + [(1.0, 1.0)] * 2
    wide, narrow = paired_delta_interval(pairs, 0.95), paired_delta_interval(pairs, 0.8)
    assert wide is not None and narrow is not None
    assert wide.low < narrow.low and narrow.level == 0.8


def test_pass_at_k_five_runs_two_passes() -> None:
    # pass@1 = 1 − C(3,1)/C(5,1) = 1 − 3/5 = 0.4; pass@2 = 1 − C(3,2)/C(5,2) = 1 − 3/10 = 0.7.
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    # pass@4 = 1 − C(3,4)/C(5,4) = 1 − 0/5: four draws must include a pass.
    assert pass_at_k(5, 2, 4) == 1.0


def test_pass_hat_k_five_runs_two_passes() -> None:
    # pass^1 = C(2,1)/C(5,1) = 2/5 = 0.4; pass^2 = C(2,2)/C(5,2) = 1/10 = 0.1; pass^3 = 0.
    assert pass_hat_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    assert pass_hat_k(5, 2, 3) == 0.0


def test_k_estimates_cover_every_k_and_only_with_repeats() -> None:
    estimates = k_estimates(3, 1)
    # pass@k: 1/3, 1 − C(2,2)/C(3,2) = 2/3, 1; pass^k: 1/3, 0, 0.
    assert [e.k for e in estimates] == [1, 2, 3]
    assert estimates[1].pass_at_k == pytest.approx(2 / 3) and estimates[1].pass_hat_k == 0.0
    assert estimates[0] == KEstimate(1, pass_at_k(3, 1, 1), pass_hat_k(3, 1, 1))
    assert estimates[2].pass_at_k == 1.0
    assert k_estimates(1, 1) == ()


def test_pass_at_k_refuses_k_beyond_n() -> None:
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_at_k(2, 1, 3)


def test_confidence_none_without_evidence() -> None:
    assert confidence_label(None) == "none"


def test_confidence_is_low_for_a_handful_of_cases_even_when_they_all_pass() -> None:
    # Wilson 4/4 is [0.5101, 1]: a perfect figure, held with low confidence.
    assert confidence_label(wilson_interval(4, 4)) == "low"
    # 10 cases at 50%: width 0.7634 − 0.2366 = 0.527 > 0.4.
    assert confidence_label(wilson_interval(5, 10)) == "low"


def test_confidence_medium_by_width_or_by_count() -> None:
    # 30 cases at 50%: [0.3315, 0.6685], width 0.337: between 0.2 and 0.4.
    assert confidence_label(wilson_interval(15, 30)) == "medium"
    # 19/19: z²/n = 0.202182, centre 0.915914, half 0.084089, width 0.168 <= 0.2,
    # but fewer than 20 cases cap it at medium.
    assert wilson_interval(19, 19).width < 0.2
    assert confidence_label(wilson_interval(19, 19)) == "medium"


def test_confidence_high_needs_many_cases_and_a_narrow_interval() -> None:
    # 20/20: centre 0.919444, half 0.080562, low 0.838882, width 0.161.
    assert confidence_label(wilson_interval(20, 20)) == "high"
    # 100 cases at 50%: [0.4038, 0.5962], width 0.192.
    assert confidence_label(wilson_interval(50, 100)) == "high"
