"""Repeats that stop once the gate's question is answered: a test that may be read every round.

``--skill-lens-repeat auto:N`` runs a skill's cases in rounds (one repetition of every
case per round) and asks after each round: is the pass rate (or the paired delta) at
least the bar, or below it, or not known yet? A fixed-sample interval such as Wilson's
cannot be read that way: looking after every round and stopping at the first interval
that clears the bar decides wrongly far more often than its level says (see
``benchmarks/sequential.py``). This test stays valid however often it is read and
whenever it stops, because it is a *test by betting*:

Two gamblers start with wealth 1. Before round r both fix a bet ``lam_r`` from the
earlier rounds only. Each outcome y of the round (1 passed, 0 not) multiplies the first
gambler's wealth, who bets that the mean is at least the bar theta, by
``1 + min(lam_r, c/theta) (y - theta)``, and the second's, who bets it is below, by
``1 - min(lam_r, c/(1 - theta)) (y - theta)``. If the mean is below theta, the first
gambler's wealth is a nonnegative supermartingale (for independent outcomes of cases
whose rates average mu <= theta, by the AM-GM inequality the round's expected factor is
at most (1 + lam (mu - theta))^m <= 1), so by Ville's inequality it ever reaches 1/alpha
with probability at most alpha; likewise the second's when the mean is at least theta.
The rule decides "pass" when the first reaches 1/alpha, "fail" when the second does, so
whatever the true rate it decides wrongly with probability at most alpha.

The bet is the predictable plug-in of Waudby-Smith and Ramdas (2024), "Estimating means
of bounded random variables by betting", J. R. Stat. Soc. B 86(1):1-27, in the form they
give for a known sample size, with c = 3/4 (they suggest 1/2 or 3/4). ``auto:N`` knows its
horizon, N rounds of k outcomes, so the bet is sized for it:
``lam = sqrt(2 ln(1/alpha) / (v k N))``, v = (1/4 + sum (y_i - m_i)^2) / (n + 1) over the
n outcomes of earlier rounds, m_i = (1/2 + y_1 + ... + y_i) / (i + 1). It is held for a
whole round so that the round's outcomes, whose cases differ in rate, may be multiplied
in together. Any bet fixed before its round keeps the guarantee; this one only makes the
test decide sooner (``benchmarks/sequential.py``). Inverting the same wealth over every
candidate bar gives the anytime-valid bounds of :func:`anytime_bounds`.

Assumed: within a round the cases' runs are independent (separate runs of a model), the
cases are the same every round, and a round that gives no evidence (``None``: an errored
arm of the delta) is unrelated to what it would have shown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..labels import Status

Verdict = Literal["pass", "fail", "continue", "undecided"]
# One round: each case's outcome in [0, 1], or None for a round that gave no evidence.
Round = Sequence[float] | None

DEFAULT_ALPHA = 0.05
TRUNCATION = 0.75  # c: no single outcome may cost a gambler more than 3/4 of the wealth
METHOD = "betting test (Waudby-Smith & Ramdas 2024), plug-in bets sized for the maximum"
_BISECTIONS = 50


@dataclass(frozen=True)
class SequentialDecision:
    """What the rounds so far say about the bar, on the question's own scale.

    ``verdict``: ``pass`` or ``fail`` once decided (at round ``decided_at``), else
    ``continue`` while rounds remain, or ``undecided`` at the maximum, when the gate
    falls back on its fixed-sample rule. ``estimate`` is the mean of the outcomes read
    up to the decision; ``capital_*`` are the two gamblers' wealths then (1/alpha decides).
    """

    verdict: Verdict
    rounds: int
    decided_at: int | None
    threshold: float
    estimate: float | None
    capital_pass: float
    capital_fail: float
    alpha: float
    method: str = METHOD


def sequential_test(
    rounds: Sequence[Round], threshold: float, *, max_rounds: int, alpha: float = DEFAULT_ALPHA
) -> SequentialDecision:
    """Decide whether the mean of outcomes in [0, 1] is at least ``threshold``.

    Reads the rounds in order and stops at the first that decides; rounds after it are
    counted in ``rounds`` but change nothing, so calling this after every round and
    stopping at the first decision is the same as calling it once on them all.
    """
    _check(rounds, threshold, max_rounds, alpha)
    bar = math.log(1.0 / alpha)
    log_pass = log_fail = 0.0
    total, count = 0.0, 0
    bets = _Bets(alpha, max_rounds)
    for index, outcomes in enumerate(rounds, start=1):
        if threshold <= 0.0:  # every rate meets a bar of 0
            return _decided("pass", rounds, index, threshold, None, 1.0, 1.0, alpha)
        if outcomes is None:
            continue
        lam = bets.next(len(outcomes))
        log_pass += _log_factor(outcomes, threshold, lam, +1)
        if threshold >= 1.0 and any(y < 1.0 for y in outcomes):
            log_fail = math.inf  # a failure proves the rate is below 100%
        else:
            log_fail += _log_factor(outcomes, threshold, lam, -1)
        bets.observe(outcomes)
        total += math.fsum(outcomes)
        count += len(outcomes)
        passed, failed = log_pass >= bar, log_fail >= bar
        if passed != failed:  # both at once cannot be read either way: go on
            verdict: Verdict = "pass" if passed else "fail"
            estimate = total / count
            return _decided(verdict, rounds, index, threshold, estimate, log_pass, log_fail, alpha)
    return SequentialDecision(
        verdict="continue" if len(rounds) < max_rounds else "undecided",
        rounds=len(rounds),
        decided_at=None,
        threshold=threshold,
        estimate=total / count if count else None,
        capital_pass=_exp(log_pass),
        capital_fail=_exp(log_fail),
        alpha=alpha,
    )


def anytime_bounds(
    rounds: Sequence[Round], *, max_rounds: int, alpha: float = DEFAULT_ALPHA
) -> tuple[float, float]:
    """The running intersection of the one-sided bounds at level 1 - alpha each.

    The lower bound is the largest bar the "at least" gambler has beaten at some round
    (its wealth only falls as the bar rises), the upper the smallest the other has.
    A bar below the lower bound is decided "pass" by :func:`sequential_test`, one above
    the upper bound "fail".
    """
    _check(rounds, 0.5, max_rounds, alpha)
    bar = math.log(1.0 / alpha)
    low, high = 0.0, 1.0
    seen: list[Sequence[float]] = []
    lams: list[float] = []
    bets = _Bets(alpha, max_rounds)
    for outcomes in rounds:
        if outcomes is None:
            continue
        lams.append(bets.next(len(outcomes)))
        bets.observe(outcomes)
        seen.append(outcomes)
        low = max(low, _edge(_Beaten(seen, lams, +1, bar), beaten_below=True))
        high = min(high, _edge(_Beaten(seen, lams, -1, bar), beaten_below=False))
    return low, max(low, high)


def rate_round(statuses: Sequence[Status]) -> list[float]:
    """One round of a pass-rate question: an errored run counts as not passed, as in the gate."""
    return [1.0 if status == "passed" else 0.0 for status in statuses]


def delta_round(pairs: Sequence[tuple[Status, Status]]) -> list[float] | None:
    """One round of the paired delta, (candidate - baseline + 1) / 2 per case.

    None when an arm of any pair errored: the delta reads scored runs only, and leaving
    one case out of a round would change which mean the round estimates.
    """
    if any("errored" in pair for pair in pairs):
        return None
    return [((c == "passed") - (b == "passed") + 1) / 2 for c, b in pairs]


def decide_rate(
    rounds: Sequence[Sequence[Status]],
    minimum: float,
    *,
    max_rounds: int,
    alpha: float = DEFAULT_ALPHA,
) -> SequentialDecision:
    """Is the candidate pass rate at least ``minimum`` (``min_pass_rate``, ``per_skill_min``)?"""
    return sequential_test(
        [rate_round(r) for r in rounds], minimum, max_rounds=max_rounds, alpha=alpha
    )


def decide_delta(
    rounds: Sequence[Sequence[tuple[Status, Status]]],
    min_delta: float,
    *,
    max_rounds: int,
    alpha: float = DEFAULT_ALPHA,
) -> SequentialDecision:
    """Is candidate minus baseline at least ``min_delta``? Each round pairs the arms by case."""
    if not -1.0 <= min_delta <= 1.0:
        raise ValueError(f"a minimum delta lies between -1 and 1, not {min_delta}")
    scaled = sequential_test(
        [delta_round(r) for r in rounds],
        (min_delta + 1.0) / 2.0,
        max_rounds=max_rounds,
        alpha=alpha,
    )
    estimate = None if scaled.estimate is None else 2.0 * scaled.estimate - 1.0
    return SequentialDecision(
        verdict=scaled.verdict,
        rounds=scaled.rounds,
        decided_at=scaled.decided_at,
        threshold=min_delta,
        estimate=estimate,
        capital_pass=scaled.capital_pass,
        capital_fail=scaled.capital_fail,
        alpha=alpha,
    )


class _Bets:
    """The plug-in bet for a horizon of ``max_rounds``, from earlier rounds' outcomes only."""

    def __init__(self, alpha: float, max_rounds: int) -> None:
        self._two_log = 2.0 * math.log(1.0 / alpha)
        self._rounds = max_rounds
        self._n = 0
        self._sum = 0.0
        self._squares = 0.25  # the prior's variance, counted as one outcome

    def next(self, size: int) -> float:
        variance = self._squares / (self._n + 1)
        return math.sqrt(self._two_log / (variance * size * self._rounds))

    def observe(self, outcomes: Sequence[float]) -> None:
        for y in outcomes:
            self._n += 1
            self._sum += y
            mean = (0.5 + self._sum) / (self._n + 1)
            self._squares += (y - mean) ** 2


def _log_factor(outcomes: Sequence[float], m: float, lam: float, side: int) -> float:
    """The log of one round's wealth factor at candidate mean ``m``, for one gambler.

    ``side`` +1 bets the mean is at least ``m``, -1 that it is below. The cap c/m (or
    c/(1 - m)) keeps every factor at least 1 - c, so a gambler is never ruined.
    """
    room = m if side > 0 else 1.0 - m
    bet = lam if room <= 0.0 else min(lam, TRUNCATION / room)
    return math.fsum(math.log1p(side * bet * (y - m)) for y in outcomes)


@dataclass(frozen=True)
class _Beaten:
    """Whether one gambler's wealth after the rounds read has reached 1/alpha at mean m."""

    rounds: Sequence[Sequence[float]]
    bets: Sequence[float]
    side: int
    bar: float

    def __call__(self, m: float) -> bool:
        logs = (
            _log_factor(o, m, lam, self.side) for o, lam in zip(self.rounds, self.bets, strict=True)
        )
        return math.fsum(logs) >= self.bar


def _edge(beaten: _Beaten, *, beaten_below: bool) -> float:
    """The boundary in [0, 1] of the candidate means a gambler has beaten, by bisection."""
    lo, hi = 0.0, 1.0
    if beaten_below and not beaten(0.0):
        return 0.0
    if not beaten_below and not beaten(1.0):
        return 1.0
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2.0
        if beaten(mid) == beaten_below:
            lo = mid
        else:
            hi = mid
    return lo if beaten_below else hi


def _decided(
    verdict: Verdict,
    rounds: Sequence[Round],
    index: int,
    threshold: float,
    estimate: float | None,
    log_pass: float,
    log_fail: float,
    alpha: float,
) -> SequentialDecision:
    return SequentialDecision(
        verdict=verdict,
        rounds=len(rounds),
        decided_at=index,
        threshold=threshold,
        estimate=estimate,
        capital_pass=_exp(log_pass),
        capital_fail=_exp(log_fail),
        alpha=alpha,
    )


def _exp(log_value: float) -> float:
    return math.inf if log_value > 700.0 else math.exp(log_value)


def _check(rounds: Sequence[Round], threshold: float, max_rounds: int, alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha lies strictly between 0 and 1, not {alpha}")
    if max_rounds < 1:
        raise ValueError(
            f"a sequential run needs at least one round, not a maximum of {max_rounds}"
        )
    if len(rounds) > max_rounds:
        raise ValueError(f"{len(rounds)} rounds, more than the maximum of {max_rounds}")
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"the threshold is a rate between 0 and 1, not {threshold}")
    for outcomes in rounds:
        if outcomes is None:
            continue
        if not outcomes:
            raise ValueError("a round with no outcome: pass None for a round without evidence")
        if not all(0.0 <= y <= 1.0 for y in outcomes):  # also refuses nan
            raise ValueError(f"every outcome lies between 0 and 1, not {list(outcomes)}")
