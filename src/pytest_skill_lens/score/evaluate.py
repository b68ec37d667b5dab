"""From one run to one status: every evaluator's score, then passed, failed or errored."""

from __future__ import annotations

from collections.abc import Sequence

from ..labels import Status
from ..run.result import RunResult
from ..suite.model import EvalCase
from ..wellformed import summary
from .assertions import AssertionEvaluator
from .budget import BudgetEvaluator
from .check import Evaluator, Score, ScoringContext
from .judge import JudgeEvaluator
from .trajectory import TrajectoryEvaluator

BUILTIN_EVALUATORS: tuple[Evaluator, ...] = (
    AssertionEvaluator(),
    TrajectoryEvaluator(),
    BudgetEvaluator(),
    JudgeEvaluator(),
)


def evaluate(
    case: EvalCase,
    result: RunResult,
    context: ScoringContext,
    extra: Sequence[Evaluator] = (),
) -> tuple[Status, list[Score]]:
    """Score a run with the built-ins, then ``extra``; an errored run is not scored at all.

    Everything an evaluator can refuse is checked when the eval file loads, so a
    failure here is infrastructure: a plugin evaluator that raises (even an
    AuthoringError) or returns something else errors the case, never the run.
    """
    if result.error is not None:
        return "errored", []
    scores = [evaluator.evaluate(case, result, context) for evaluator in BUILTIN_EVALUATORS]
    if extra:
        scores += [_run_extra(evaluator, case, result, context) for evaluator in extra]
    return status_of(scores), scores


def status_of(scores: Sequence[Score]) -> Status:
    """Errored if any score is, else passed only if every score passed."""
    status: Status = "passed"
    for score in scores:
        if score.errored:
            return "errored"
        if not score.passed:
            status = "failed"
    return status


def _run_extra(
    evaluator: Evaluator, case: EvalCase, result: RunResult, context: ScoringContext
) -> Score:
    # A plugin's bug is an infrastructure problem: errored, never a quiet pass or a crash.
    name = str(getattr(evaluator, "name", type(evaluator).__name__))
    try:
        score = evaluator.evaluate(case, result, context)
    except Exception as exc:
        return Score(
            name, False, 0.0, f"evaluator raised {type(exc).__name__}: {exc}", errored=True
        )
    if not isinstance(score, Score):
        got = type(score).__name__
        return Score(name, False, 0.0, f"evaluator returned {got}, not a Score", errored=True)
    from .shapes import score_problems  # its models: only where a plugin's evaluator ran

    found = score_problems(score)
    if found:  # a Score of garbage would crash the reports: errored, naming the field
        detail = f"evaluator {name!r} returned a malformed Score: {summary(found)}"
        return Score(name, False, 0.0, detail, errored=True)
    return score
