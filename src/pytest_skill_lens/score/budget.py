"""``budget:``: ceilings on the run's tokens, cost and latency; a limit at its value holds.

A figure the runner could not measure (``usage_note``, ``cost_note``) is never
read as zero: its limit becomes a failing "not evaluated" check. Such a check
fails the verdict but is left out of the score's divisor, so the number says
how many measured limits held and the verdict says whether every limit did; the
detail names each limit once: ``held``, ``exceeded`` or ``not evaluated``. A cost
compared says where it came from (a list price, a stand-in's script).
Only the run's own last attempt counts: retried attempts and the judge are
reported apart and never spend a case's budget. Under the fake runner every
limit says its figure is not a measurement (see :mod:`.budget_fake`).

A figure no run can produce (negative, NaN, infinite) is never compared: the
score is errored, since such a number says nothing about the skill. The runner
seam refuses these already; this guard keeps any other source of a RunResult
(a replay, a plugin calling the evaluator) just as honest.
"""

from __future__ import annotations

import math

from ..run.result import RunResult
from ..suite.model import Budget, EvalCase
from ..wellformed import bounded_repr
from .budget_fake import fake_detail, from_fake_runner, not_measured
from .check import CheckResult, Score, ScoringContext, held_trivially, unmeasured


class BudgetEvaluator:
    name = "budget"

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score:
        if case.budget is None:
            return held_trivially(self.name, "no budget")
        impossible = impossible_figure(case.budget, result)
        if impossible is not None:
            detail = f"budget not evaluated: impossible figure {impossible}"
            return Score(self.name, False, 0.0, detail, errored=True)
        limits = budget_limits(case.budget, result)
        if not limits:
            return Score(self.name, True, 1.0, "no budget limits")
        checks = tuple(limits)
        measured = [check for check in checks if check.evaluated]
        held = sum(check.passed for check in measured)
        # Each limit named once with its verdict: a skipped limit is a failing check, and
        # listing it under "failed" too read as held and failed at once.
        detail = ", ".join(f"{check.id} {_verdict(check)}" for check in checks)
        if from_fake_runner(context.runner, result.model):  # zeros that measure no skill
            checks = tuple(not_measured(check) for check in checks)
            detail = f"{fake_detail()}: {detail}"
        number = held / len(measured) if measured else 0.0
        return Score(self.name, all(c.passed for c in checks), number, detail, checks)


def _verdict(check: CheckResult) -> str:
    if not check.evaluated:
        return "not evaluated"
    return "held" if check.passed else "exceeded"


def impossible_figure(budget: Budget, result: RunResult) -> str | None:
    """``name value`` of the first figure a declared limit reads that no run can produce."""
    read: list[tuple[str, object]] = []
    if budget.max_tokens is not None:
        read += [("input_tokens", result.input_tokens), ("output_tokens", result.output_tokens)]
    if budget.max_cost_usd is not None:
        read.append(("cost_usd", result.cost_usd))
    if budget.max_latency_ms is not None:
        read.append(("latency_ms", result.latency_ms))
    for name, value in read:
        if not _possible(value):
            return f"{name} {bounded_repr(value)}"
    return None


def _possible(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and value >= 0


def budget_limits(budget: Budget, result: RunResult) -> list[CheckResult]:
    limits: list[CheckResult] = []
    if budget.max_tokens is not None:
        limits.append(_tokens(budget.max_tokens, result))
    if budget.max_cost_usd is not None:
        limits.append(_cost(float(budget.max_cost_usd), result))
    if budget.max_latency_ms is not None:
        limit = float(budget.max_latency_ms)
        used = result.latency_ms
        evidence = f"took {_number(used)} ms, limit is {_number(limit)} ms"
        limits.append(CheckResult("max_latency_ms", used <= limit, evidence))
    return limits


def _tokens(limit: int, result: RunResult) -> CheckResult:
    if result.usage_note:
        return unmeasured("max_tokens", f"token budget not evaluated: {result.usage_note}")
    used = result.tokens
    evidence = f"used {used} tokens, limit is {limit}"
    if result.stop_note:
        evidence += f"; {result.stop_note}"
    return CheckResult("max_tokens", used <= limit, evidence)


def _cost(limit: float, result: RunResult) -> CheckResult:
    if result.cost_note:
        return unmeasured("max_cost_usd", f"cost budget not evaluated: {result.cost_note}")
    used = result.cost_usd
    source = f" ({result.price_source})" if result.price_source else ""  # a list price, say
    evidence = f"cost ${_number(used, 10)}{source}, limit is ${_number(limit, 10)}"
    return CheckResult("max_cost_usd", used <= limit, evidence)


def _number(value: float, places: int = 3) -> str:
    # Fixed-point, so a small cost never prints as 1e-05; trailing zeros say nothing.
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text
