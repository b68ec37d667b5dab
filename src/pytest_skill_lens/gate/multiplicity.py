"""Holm's step-down correction for the gate's interval decisions.

The gate holds an interval decision when the lower end of a two-sided interval at level
L clears a bar m: a one-sided test of "the figure is below m" at size a = (1 - L) / 2.
Each decision's p-value is found by inverting its own interval method, so the test and
the interval always agree: p is the a at which the lower end of the level-(1 - 2a)
interval just touches m. For a Wilson interval that is exactly the score test's p-value,
computed in closed form (:func:`score_test_p_value`); Newcombe's paired interval has no
single test statistic under it, so its p-value is the inversion itself, found by
bisection (:func:`inverted_p_value`, checked against the closed form on Wilson's).
Holm (1979, Scand. J. Statist. 6:65-70) then orders the p-values p(1) <= ... <= p(k)
and holds decision (i) only while every p(j), j <= i, is at most
a / (k - j + 1); equivalently, decision (i)'s interval is recomputed at the level
1 - 2a / (k - i + 1) and the step-down stops at the first that misses its bar. The
adjusted p-values are Wright's (1992, Biometrics 48:1005-1013):
p~(i) = max over j <= i of min(1, (k - j + 1) p(j)).

Each criterion is its own family, at its own level: the delta's confidence decisions (one
per runner) and the per-skill minimums' (one per named skill). Only decisions with a
figure are in a family: a runner with no comparable case, or a skill with no outcome, has
no interval to hold, and the gate fails it on its own reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from statistics import NormalDist
from typing import Literal

from ..formatting import signed_percent
from .delta import Delta, DeltaFigures
from .verdict import TOLERANCE, falls_short

Method = Literal["holm", "none"]
METHODS: tuple[Method, ...] = ("holm", "none")

# z beyond this is a one-sided p of 6e-16: float levels 1 - 2p round to 1.0 past it.
_Z_MAX = 8.0
_STEPS = 80  # bisection steps on z: 8 / 2^80 is far below any difference that shows


Criterion = Literal["min_delta_confidence", "per_skill_min_confidence"]
# What each criterion decides on, as the reports and the JSON report name it.
WHAT: dict[Criterion, str] = {
    "min_delta_confidence": "pass_rate_delta",
    "per_skill_min_confidence": "pass_rate",
}


@dataclass(frozen=True)
class Decision:
    """One interval decision of a family: does ``subject``'s interval clear ``bar``?"""

    subject: str  # the runner ("" for the pooled delta of one runner), or the skill
    estimate: float
    bar: float
    p_value: float  # one-sided, from inverting the interval method
    raw_holds: bool  # at the asked level, alone
    adjusted_p_value: float  # Holm's (equal to p_value under "none")
    adjusted_holds: bool
    adjusted_level: float  # the two-sided level the decision was held at after Holm
    arm: str = ""  # the baseline arm of a delta when several ran side by side


@dataclass(frozen=True)
class Multiplicity:
    """One criterion's family of interval decisions, raw and adjusted."""

    criterion: Criterion
    method: Method
    level: float  # the two-sided level asked for
    decisions: tuple[Decision, ...]

    @property
    def alpha(self) -> float:
        """The family's one-sided error rate: (1 - level) / 2."""
        return (1.0 - self.level) / 2.0

    @property
    def changed(self) -> tuple[Decision, ...]:
        """Decisions the correction turned from holding to not holding."""
        return tuple(d for d in self.decisions if d.raw_holds != d.adjusted_holds)

    def subject_text(self, decision: Decision) -> str:
        """``pass-rate delta under runner 'a'``, ``pass-rate delta``, ``skill 'greet' pass
        rate``."""
        if self.criterion == "per_skill_min_confidence":
            return f"skill '{decision.subject}' pass rate"
        what = f"pass-rate delta vs {decision.arm}" if decision.arm else "pass-rate delta"
        if decision.subject:
            return f"{what} under runner '{decision.subject}'"
        return what


@dataclass(frozen=True)
class RawDecision:
    """One decision before the correction: its p-value and its rule at any level."""

    subject: str
    estimate: float
    bar: float
    p_value: float
    holds_at: Callable[[float], bool]
    arm: str = ""


Bound = Callable[[float], float]  # a two-sided level -> that interval's lower (or upper) end


def inverted_p_value(lower: Bound, upper: Bound, estimate: float, bar: float) -> float:
    """One-sided p-value of "the figure is below ``bar``", inverting an interval method.

    ``lower``/``upper`` give the ends of the method's two-sided interval at a level. With
    the estimate above the bar, p is the a where ``lower(1 - 2a)`` equals the bar (below
    1/2); at the bar, 1/2; below it, 1 - a where ``upper(1 - 2a)`` does (above 1/2).
    """
    if abs(estimate - bar) <= TOLERANCE:
        return 0.5
    above = estimate > bar
    end = lower if above else upper
    normal = NormalDist()

    def beyond(z: float) -> bool:  # the end at this z is still on the estimate's side
        value = end(2.0 * normal.cdf(z) - 1.0)
        return value > bar if above else value < bar

    if beyond(_Z_MAX):
        z = _Z_MAX
    else:
        low, high = 0.0, _Z_MAX
        for _ in range(_STEPS):
            middle = (low + high) / 2.0
            if middle > 0.0 and beyond(middle):
                low = middle
            else:
                high = middle
        z = (low + high) / 2.0
    tail = normal.cdf(-z)
    return tail if above else 1.0 - tail


def method_named(name: str) -> Method:
    """``name`` as a method; a settings model or a report reader refused anything else."""
    for method in METHODS:
        if name == method:
            return method
    raise ValueError(f"multiplicity must be one of {METHODS}, not {name!r}")


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values, in the order given (Wright 1992)."""
    k = len(p_values)
    order = sorted(range(k), key=lambda i: p_values[i])  # stable: ties keep their order
    adjusted = [0.0] * k
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (k - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def holm_divisors(p_values: Sequence[float]) -> list[int]:
    """k - rank for each decision, in the order given: its level is 1 - 2a / divisor."""
    k = len(p_values)
    order = sorted(range(k), key=lambda i: p_values[i])
    divisors = [0] * k
    for rank, index in enumerate(order):
        divisors[index] = k - rank
    return divisors


def correct(
    criterion: Criterion, tests: Sequence[RawDecision], level: float, method: Method
) -> Multiplicity | None:
    """``tests`` as a family at ``level``: each raw, and adjusted under ``method``."""
    if not tests:
        return None
    p_values = [t.p_value for t in tests]
    holm = method == "holm"
    adjusted = holm_adjusted(p_values) if holm else p_values
    divisors = holm_divisors(p_values) if holm else [1] * len(tests)
    alpha = (1.0 - level) / 2.0
    raw = [t.holds_at(level) for t in tests]
    adjusted_held = list(raw)
    stepping = True
    for index in sorted(range(len(tests)), key=lambda i: (-divisors[i], i)) if holm else ():
        # Holm's step-down: each at its rank's level, none after the first that misses.
        stepping = stepping and tests[index].holds_at(1.0 - 2.0 * alpha / divisors[index])
        adjusted_held[index] = stepping
    decisions = tuple(
        Decision(
            subject=t.subject,
            estimate=t.estimate,
            bar=t.bar,
            p_value=p_values[i],
            raw_holds=raw[i],
            adjusted_p_value=adjusted[i],
            adjusted_holds=adjusted_held[i],
            adjusted_level=1.0 - 2.0 * alpha / divisors[i],
            arm=t.arm,
        )
        for i, t in enumerate(tests)
    )
    return Multiplicity(criterion, method, level, decisions)


def adjusted_reasons(families: Sequence[Multiplicity]) -> list[str]:
    """Decisions that hold alone and not after Holm's correction (raw misses say so apart)."""
    reasons = []
    for family in families:
        k = len(family.decisions)
        for decision in family.changed:
            reasons.append(
                f"{family.subject_text(decision)} {_shown(family, decision)} is shown at "
                f"{family.level * 100:g}% confidence alone but not after Holm's correction "
                f"over {k} decision(s): p = {decision.p_value:.4f}, adjusted p = "
                f"{decision.adjusted_p_value:.4f}, above {family.alpha:.4f}"
            )
    return reasons


def _shown(family: Multiplicity, decision: Decision) -> str:
    if family.criterion == "per_skill_min_confidence":
        return f"{decision.estimate:.0%}"
    return signed_percent(decision.estimate)


def delta_multiplicity(
    delta: Delta | Sequence[Delta] | None,
    minimum: float | None,
    level: float | None,
    method: Method,
) -> Multiplicity | None:
    """The delta gate's confidence decisions (one per runner, of every baseline arm: each
    arm's named when several ran), raw and under ``method``, as one family.

    None when no confidence level was asked or no runner has a comparable case.
    """
    deltas = (delta,) if isinstance(delta, Delta) else tuple(delta or ())
    if not deltas or minimum is None or level is None:
        return None
    tests = []
    for one in deltas:
        arm = one.baseline_kind if len(deltas) > 1 else ""
        named: list[tuple[str, DeltaFigures]] = (
            [(r.runner, r) for r in one.runners] if one.per_runner else [("", one)]
        )
        tests += [
            RawDecision(
                subject=runner,
                estimate=figures.pass_rate_delta,
                bar=minimum,
                p_value=_delta_p_value(figures, minimum),
                holds_at=partial(_holds, figures, minimum),
                arm=arm,
            )
            for runner, figures in named
            if figures.pass_rate_delta is not None and figures.pairs
        ]
    return correct("min_delta_confidence", tests, level, method)


def score_test_p_value(successes: float, n: int, bar: float) -> float:
    """One-sided p of "the rate is below ``bar``": Wilson's score test, which his interval
    inverts (z = (p - bar) / sqrt(bar (1 - bar) / n)). A bar of 0 is always met; one of 1
    never is shown, since no interval from a sample reaches 1 at its lower end."""
    if bar <= 0.0:
        return 0.0
    if bar >= 1.0:
        return 1.0
    z = (successes / n - bar) / math.sqrt(bar * (1.0 - bar) / n)
    return NormalDist().cdf(-z)


def _holds(figures: DeltaFigures, minimum: float, level: float) -> bool:
    """The gate's own rule: the delta meets the bar, then its interval's lower end does."""
    delta = figures.pass_rate_delta
    interval = figures.delta_interval(level)
    if delta is None or interval is None or falls_short(delta, minimum):
        return False
    return not falls_short(interval.low, minimum)


def _delta_p_value(figures: DeltaFigures, minimum: float) -> float:
    def end(level: float, *, low: bool) -> float:
        interval = figures.delta_interval(level)
        assert interval is not None  # the family holds figures with pairs only
        return interval.low if low else interval.high

    interval = figures.delta_interval()
    assert interval is not None
    # The interval's own centre (the mean of the case differences), which can differ from
    # the pooled delta with repeats: the inversion must start where the interval does.
    return inverted_p_value(
        lambda level: end(level, low=True),
        lambda level: end(level, low=False),
        interval.estimate,
        minimum,
    )
