"""Honest uncertainty for small suites: score intervals, pass@k and a confidence label.

Everything here is closed-form and deterministic (no resampling, no randomness), and
stays meaningful at the sizes real suites have (3-30 cases):

* a pass rate gets a Wilson score interval, which never collapses to zero width at
  0/n or n/n the way the normal approximation does;
* a paired difference of pass rates gets Newcombe's hybrid score interval (method 10),
  built from the two Wilson intervals, so two cases that both improved still read as
  "somewhere between a little and a lot", not as a certain +100%.

The unit of evidence is the **case**: repeats sharpen one case's rate but never count as
more cases. A case enters as its pass rate over its scored repetitions (a fraction; 0 or
1 without repeats), and the score formulas take the sum of those rates as the number of
successes. Without repeats this is exactly the textbook binomial (or paired 2x2) form.

The confidence label is a claim about the evidence, never about quality: a pass rate of
100% from two cases is a good figure held with low confidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

Confidence = Literal["none", "low", "medium", "high"]

DEFAULT_LEVEL = 0.95
WILSON = "wilson score"
NEWCOMBE = "newcombe paired hybrid score (method 10) on wilson intervals"

# The confidence rule (documented in confidence_label): below this many cases the label
# is at most "medium", whatever the interval says.
SOME_CASES = 20
# The widest interval each label allows (the same bars for a pass rate and a delta).
HIGH_WIDTH = 0.2
MEDIUM_WIDTH = 0.4


@dataclass(frozen=True)
class Interval:
    """A two-sided interval around ``estimate`` at ``level``, from ``n`` cases (or runs)."""

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n: int

    @property
    def width(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class KEstimate:
    """Unbiased pass@k (at least one of k runs passes) and pass^k (all k pass)."""

    k: int
    pass_at_k: float
    pass_hat_k: float


def z_score(level: float) -> float:
    """The two-sided standard normal quantile for ``level`` (1.959964 at 0.95)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level lies strictly between 0 and 1, not {level}")
    return NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0)


def wilson_interval(successes: float, trials: int, level: float = DEFAULT_LEVEL) -> Interval:
    """Wilson score interval for ``successes`` out of ``trials`` (fractional successes allowed).

    Wilson, E. B. (1927), JASA 22:209-212; Newcombe (1998), Stat. Med. 17:857-872, method 3:
    centre (p + z²/2n) / (1 + z²/n), half-width z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n).
    """
    if trials <= 0:
        raise ValueError("a pass rate needs at least one trial")
    if not 0.0 <= successes <= trials:
        raise ValueError(f"{successes} successes cannot come from {trials} trials")
    z = z_score(level)
    p = successes / trials
    spread = z * z / trials
    centre = (p + spread / 2.0) / (1.0 + spread)
    half = z * math.sqrt(p * (1.0 - p) / trials + spread / (4.0 * trials)) / (1.0 + spread)
    # At 0/n and n/n the bound is exactly 0 or 1; rounding must not push it past.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(p, low, high, level, WILSON, trials)


def case_rate_interval(rates: Sequence[float], level: float = DEFAULT_LEVEL) -> Interval | None:
    """Wilson interval for the mean of per-case pass rates, one case one unit; None for none."""
    if not rates:
        return None
    return wilson_interval(_clamped_sum(rates, len(rates)), len(rates), level)


def paired_delta_interval(
    pairs: Sequence[tuple[float, float]], level: float = DEFAULT_LEVEL
) -> Interval | None:
    """Newcombe's hybrid score interval for candidate − baseline over paired cases.

    ``pairs`` holds one (candidate rate, baseline rate) per comparable case. Each case
    is spread over the paired 2x2 table as if its arms were drawn independently
    (both-pass r_c·r_b, candidate-only r_c·(1-r_b), ...), which is the plain table when
    the rates are 0 or 1.

    Newcombe, R. G. (1998), "Improved confidence intervals for the difference between
    binomial proportions based on paired data", Stat. Med. 17:2635-2650, method 10:
    with Wilson intervals (l1, u1) for p1 and (l2, u2) for p2 and D = p1 − p2,
    L = D − sqrt((p1−l1)² − 2φ(p1−l1)(u2−p2) + (u2−p2)²),
    U = D + sqrt((p2−l2)² − 2φ(p2−l2)(u1−p1) + (u1−p1)²),
    where φ is the table's correlation, its numerator ad − bc reduced by n/2 towards 0
    when positive, and 0 when a margin is empty.
    """
    if not pairs:
        return None
    n = len(pairs)
    both = math.fsum(c * b for c, b in pairs)
    only_candidate = math.fsum(c * (1.0 - b) for c, b in pairs)
    only_baseline = math.fsum((1.0 - c) * b for c, b in pairs)
    neither = math.fsum((1.0 - c) * (1.0 - b) for c, b in pairs)
    candidate_hits = _clamped_sum([c for c, _ in pairs], n)
    baseline_hits = _clamped_sum([b for _, b in pairs], n)
    p1, p2 = candidate_hits / n, baseline_hits / n
    l1, u1 = _bounds(wilson_interval(candidate_hits, n, level))
    l2, u2 = _bounds(wilson_interval(baseline_hits, n, level))
    phi = _phi(both, only_candidate, only_baseline, neither, n)
    d = p1 - p2
    low = d - _root((p1 - l1) ** 2 - 2.0 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    high = d + _root((p2 - l2) ** 2 - 2.0 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
    return Interval(d, max(-1.0, low), min(1.0, high), level, NEWCOMBE, n)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of k runs passes, unbiased from c passes in n runs.

    Chen et al. (2021), "Evaluating Large Language Models Trained on Code": 1 − C(n−c, k)/C(n, k).
    """
    _check_k(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Chance that all of k runs pass, unbiased from c passes in n runs: C(c, k)/C(n, k)."""
    _check_k(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def k_estimates(n: int, c: int) -> tuple[KEstimate, ...]:
    """pass@k and pass^k for k = 1..n; empty for a single run, which says nothing of k > 1."""
    if n <= 1:
        return ()
    return tuple(KEstimate(k, pass_at_k(n, c, k), pass_hat_k(n, c, k)) for k in range(1, n + 1))


def confidence_label(interval: Interval | None) -> Confidence:
    """How much the evidence behind an estimate supports it, apart from what it says.

    The rule: ``none`` without an interval (no case at all); ``low`` for an interval
    wider than 0.4 (at 95% every interval from fewer than 5 cases is: 4/4 spans 0.49);
    ``medium`` for one wider than 0.2 or from fewer than 20 cases; ``high`` otherwise,
    which at a 50% pass rate takes about 100 cases and near 100% about 20. Fewer than 20
    cases cannot speak for a skill however consistent they look, whatever the width.
    """
    if interval is None or interval.n == 0:
        return "none"
    if interval.width > MEDIUM_WIDTH:
        return "low"
    if interval.n < SOME_CASES or interval.width > HIGH_WIDTH:
        return "medium"
    return "high"


def _bounds(interval: Interval) -> tuple[float, float]:
    return interval.low, interval.high


def _clamped_sum(rates: Sequence[float], n: int) -> float:
    # fsum is exactly rounded, so the total does not depend on the order of the rates.
    return min(float(n), max(0.0, math.fsum(rates)))


def _phi(a: float, b: float, c: float, d: float, n: int) -> float:
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins <= 0.0:
        return 0.0
    cross = a * d - b * c
    # Newcombe's correction: a positive association is shrunk by n/2, never past 0.
    numerator = max(cross - n / 2.0, 0.0) if cross > 0 else cross
    return numerator / math.sqrt(margins)


def _root(value: float) -> float:
    return math.sqrt(max(0.0, value))  # rounding can leave -1e-17 where 0 is meant


def _check_k(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, not n={n}, c={c}, k={k}")
