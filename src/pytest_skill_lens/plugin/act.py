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
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..gate.outcome import Outcome
from ..report.excerpt import failure_lines
from ..run.result import RunResult
from ..run.sessions import run_sessions
from ..run.workspace import Workspace
from ..score.artifacts import collect_artifacts
from ..score.check import Score, ScoringContext
from ..score.evaluate import evaluate
from ..score.judge import JudgeVerdict, build_request
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


def perform(item: CaseItem, *, runner: Any, judge: Any, workspace: Workspace | None) -> Outcome:
    """Run the case and score it: the whole act, returning the recorded outcome.

    ``runner``, ``judge`` and ``workspace`` are the item's fixture values.
    """
    state = _state(item)
    case = item.loaded.case
    result = _act(item, runner, workspace)
    verdict: JudgeVerdict | None = None
    if result.error is None and case.judge is not None:
        verdict = _grade(item, judge, result, workspace)
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
    return run_sessions(case, lambda one: _run(item, runner, one, root))


def _run(item: CaseItem, runner: Any, case: EvalCase, root: Path | None) -> RunResult:
    start = time.perf_counter()
    try:
        result = runner.run(item.skill, case, root)
    except Exception as exc:  # a runner must not raise; if one does, the case is errored
        return RunResult(
            error=f"runner {item.runner_name!r} raised {type(exc).__name__}: {exc}",
            latency_ms=(time.perf_counter() - start) * 1000,
        )
    if not isinstance(result, RunResult):
        return RunResult(
            error=f"runner {item.runner_name!r} returned {type(result).__name__}, not a RunResult"
        )
    if case.mode == "offered" and result.error is None and result.skill_triggered is None:
        # A runner that cannot say whether the agent reached for the skill does not
        # support the mode: errored, never a quiet pass (a negative control included).
        result.error = (
            f"runner {item.runner_name!r} reported no skill-trigger decision for this "
            "mode: offered case (it does not support mode: offered)"
        )
    return result


def _grade(
    item: CaseItem, judge: Any, result: RunResult, workspace: Workspace | None
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
    return verdict


def failure_text(item: Any, outcome: Outcome) -> str:
    state = get_state(item.config)
    full = bool(state and state.settings.full_output) or item.config.get_verbosity() >= 2
    return "\n".join(failure_lines(outcome, full))
