"""What an item does: act in setup (runner, judge), deliver the verdict in call.

The runner, the judge and the workspace are the item's fixtures (fixtures.py).
An infrastructure failure (a fixture that could not be set up, say a workspace
that could not be created; a runner error in any session; a judge that could
not grade; a runner that reported no skill-trigger decision) raises
:class:`CaseErrored` in setup, so pytest reports an ERROR. A check that did not hold raises
:class:`CaseFailed` in call, so pytest reports a FAILURE whose text is the
failing checks with their evidence, never a traceback.

The verdict is computed at the end of setup, because only scoring can tell an
errored case (say, a judge verdict that does not match the rubric) from a
failed one; scoring is pure and free, so where it runs costs nothing. A case's
workspace is deleted at teardown by its fixture, unless it is kept.

This is the seam to code the plugin does not own, so nothing crosses it unchecked:

* the act (every session's runner call, then the judge's) runs under one
  deadline, ``case_timeout_seconds``, on a reused worker thread; past it the case
  is errored naming who held it, the call is abandoned, and the session goes on;
* a runner's RunResult and a judge's JudgeVerdict are checked field by field
  (run/result.py, score/shapes.py); a malformed one errors the case naming the
  field, and none of its figures is recorded.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..gate.outcome import Outcome
from ..report.excerpt import failure_lines
from ..report.printable import scrub
from ..run.deadline import DeadlineExceeded, DeadlineWorker
from ..run.result import RunResult, problems
from ..run.sessions import run_sessions
from ..run.workspace import Workspace
from ..score.artifacts import collect_artifacts
from ..score.check import Score, ScoringContext
from ..score.evaluate import evaluate
from ..score.judge import JudgeVerdict, build_request
from ..score.shapes import verdict_problems
from ..wellformed import summary
from .state import SessionState, get_state

if TYPE_CHECKING:
    from ..spec.model import EvalCase
    from .items import CaseItem


class CaseErrored(Exception):
    """The case could not be measured: an infrastructure failure, not a verdict."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.error or "errored")
        self.outcome = outcome


class CaseFailed(AssertionError):
    """At least one declared check did not hold."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__("failed")
        self.outcome = outcome


def _state(item: Any) -> SessionState:
    state = get_state(item.config)
    assert state is not None, "pytest-skill-lens items need --skill-lens"
    return state


def _evaluators(item: CaseItem, state: SessionState) -> tuple[Any, ...]:
    """Evaluators that conftests add, asked for once every conftest has loaded."""
    if state.evaluators is None:
        groups = item.config.hook.pytest_skill_lens_evaluators(config=item.config)
        state.evaluators = tuple(evaluator for group in groups for evaluator in group or ())
    return state.evaluators


# One per process (per xdist worker): a case that returns in time leaves the thread
# for the next, so a session pays for one thread, not one per item.
_ACT_THREAD = DeadlineWorker()
# What a case that was cut off or handed back garbage spent is unknown, never "free".
_TIMED_OUT = "not measured: the case did not finish within case_timeout_seconds"
_DISCARDED = "not measured: the result was malformed, so its figures were discarded"


def perform(item: CaseItem, *, runner: Any, judge: Any, workspace: Workspace | None) -> Outcome:
    """Run the case and score it: the whole act, returning the recorded outcome.

    ``runner``, ``judge`` and ``workspace`` are the item's fixture values.
    """
    state = _state(item)
    case = item.loaded.case
    seconds = state.settings.case_timeout_seconds
    judging: list[tuple[str, RunResult]] = []  # once the judge holds the act: its name, the run

    def act() -> tuple[RunResult, JudgeVerdict | None]:
        result = _act(item, runner, workspace)
        if result.error is not None or case.judge is None:
            return result, None
        name = f"judge {_judge_name(judge, state)!r}"
        judging.append((name, result))
        return result, _grade(item, judge, result, workspace, name)

    start = time.perf_counter()
    verdict: JudgeVerdict | None
    try:
        result, verdict = _ACT_THREAD.call(act, seconds)
    except DeadlineExceeded:
        # The abandoned call may still move on; it records nothing, and how far it
        # had got is read once, here.
        reached = judging[0] if judging else None
        holder = reached[0] if reached else f"runner {item.runner_name!r}"
        late = f"{holder} did not return within {seconds:g} s (case_timeout_seconds)"
        if reached is None:
            took = (time.perf_counter() - start) * 1000
            result = RunResult(
                error=late, latency_ms=took, cost_note=_TIMED_OUT, usage_note=_TIMED_OUT
            )
            verdict = None
        else:  # the run finished and is measured; only its grading is missing
            result = reached[1]
            verdict = JudgeVerdict(checks=None, error=late, cost_note=_TIMED_OUT)
    context = ScoringContext(runner=item.runner_name, judge_verdict=verdict, workspace=workspace)
    try:
        status, scores = evaluate(case, result, context, extra=_evaluators(item, state))
    except Exception as exc:  # scoring is ours and checked at load: infrastructure
        result.error = f"scoring failed: {type(exc).__name__}: {exc}"
        status, scores = "errored", []
    # The fixture deletes the directory at teardown unless it is kept for inspection.
    kept = str(workspace.root) if workspace is not None and state.settings.keep_workspace else None
    return _outcome(item, status, scores, result, kept)


def errored_outcome(item: CaseItem, error: str) -> Outcome:
    """The outcome of an item that could not act at all (say, a fixture failed)."""
    return _outcome(item, "errored", [], RunResult(error=error), None)


def _outcome(
    item: CaseItem, status: str, scores: list[Score], result: RunResult, kept: str | None
) -> Outcome:
    return Outcome(
        skill_name=item.skill.name,
        case_name=item.case_name,
        runner=item.runner_name,
        status=status,  # type: ignore[arg-type]
        arm=item.arm,  # type: ignore[arg-type]
        repeat_index=item.repeat_index,
        scores=scores,
        output=result.output,
        error=result.error,
        tokens=result.tokens,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        latency_ms=result.latency_ms,
        cost_usd=result.cost_usd,
        model=result.model,
        cost_note=result.cost_note,
        usage_note=result.usage_note,
        stop_note=result.stop_note,
        retry_cost_usd=result.retry_cost_usd,
        skill_triggered=result.skill_triggered,
        skill_triggered_by_session=result.skill_triggered_by_session,
        tool_calls=list(result.tool_calls),
        workspace=kept,
        nodeid=item.nodeid,
        order=item.order,
    )


def _act(item: CaseItem, runner: Any, workspace: Workspace | None) -> RunResult:
    """One runner call, or one per session, all against the same workspace."""
    root = workspace.root if workspace is not None else None
    case = item.loaded.case
    if case.sessions is None:
        return _run(item, runner, case, root)
    merged = run_sessions(case, lambda one: _run(item, runner, one, root))
    found = problems(merged)  # well-formed parts can still overflow in their sum
    if not found:
        return merged
    error = f"the sessions' combined result is malformed: {summary(found)}"
    if merged.error is not None:
        error = f"{merged.error}; {error}"
    latency = merged.latency_ms if math.isfinite(merged.latency_ms) else 0.0
    return _discarded(error, latency)


def _discarded(error: str, latency_ms: float) -> RunResult:
    """An errored run in place of a malformed one: none of its figures is kept."""
    return RunResult(
        error=error, latency_ms=latency_ms, cost_note=_DISCARDED, usage_note=_DISCARDED
    )


def _run(item: CaseItem, runner: Any, case: EvalCase, root: Path | None) -> RunResult:
    start = time.perf_counter()
    try:
        result = runner.run(item.skill, case, root)
    except Exception as exc:  # a runner must not raise; if one does, the case is errored
        return RunResult(
            error=f"runner {item.runner_name!r} raised {type(exc).__name__}: {exc}",
            latency_ms=(time.perf_counter() - start) * 1000,
        )
    took = (time.perf_counter() - start) * 1000
    if not isinstance(result, RunResult):
        got = type(result).__name__
        return _discarded(f"runner {item.runner_name!r} returned {got}, not a RunResult", took)
    found = problems(result)
    if found:
        error = f"runner {item.runner_name!r} returned a malformed RunResult: {summary(found)}"
        return _discarded(error, took)
    if case.mode == "offered" and result.error is None and result.skill_triggered is None:
        # A runner that cannot say whether the agent reached for the skill does not
        # support the mode: errored, never a quiet pass (a negative control included).
        result.error = (
            f"runner {item.runner_name!r} reported no skill-trigger decision for this "
            "mode: offered case (it does not support mode: offered)"
        )
    return result


def _grade(
    item: CaseItem, judge: Any, result: RunResult, workspace: Workspace | None, name: str
) -> JudgeVerdict:
    case = item.loaded.case
    try:
        artifacts = collect_artifacts(case.judge, workspace) if case.judge else []
        verdict = judge.judge(build_request(case, result, artifacts))
    except Exception as exc:  # a judge must not raise either
        return JudgeVerdict(checks=None, error=f"judge raised {type(exc).__name__}: {exc}")
    if not isinstance(verdict, JudgeVerdict):
        return JudgeVerdict(
            checks=None, error=f"judge returned {type(verdict).__name__}, not a JudgeVerdict"
        )
    found = verdict_problems(verdict)
    if found:
        error = f"{name} returned a malformed JudgeVerdict: {summary(found)}"
        return JudgeVerdict(checks=None, error=error, cost_note=_DISCARDED)
    return verdict


def _judge_name(judge: Any, state: SessionState) -> str:
    name = getattr(judge, "name", None)
    return name if isinstance(name, str) else state.settings.judge


def failure_text(item: Any, outcome: Outcome) -> str:
    state = get_state(item.config)
    full = bool(state and state.settings.full_output) or item.config.get_verbosity() >= 2
    # A lone surrogate would reach the console as an invalid UTF-8 byte: U+FFFD instead.
    return scrub("\n".join(failure_lines(outcome, full)))
