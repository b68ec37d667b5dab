"""The whole act of one case: run it, judge it, score it, and record the outcome.

This is the seam to code the plugin does not own, so nothing crosses it unchecked:

* the act (every session's runner call, then the judge's) runs under one
  deadline, ``case_timeout_seconds``, on a reused worker thread; past it the case
  is errored naming who held it, the call is abandoned, and the session goes on
  (an unjudged case of the built-in ``fake`` runner, which cannot hang, acts inline);
* a runner's RunResult and a judge's JudgeVerdict are checked field by field
  (calls.py); a malformed one errors the case naming the field, and none of its
  figures is recorded;
* scoring is pure and checked at load, so an exception there is infrastructure:
  the case is errored, never failed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from ..labels import Status
from ..run.deadline import DeadlineExceeded, DeadlineWorker
from ..run.fake import is_plain_fake
from ..run.result import RunResult
from ..run.runner import Runner
from ..run.workspace.workspace import Workspace
from ..score.check import Evaluator, Score, ScoringContext
from ..score.evaluate import evaluate
from ..score.judge import Judge, JudgeVerdict, judge_name
from ..settings import Settings
from ..suite.model import EvalCase
from ..suite.skill import Skill
from .calls import grade, run_case
from .outcome import CaseIdentity, Outcome, outcome_of
from .replay import finish_tape, open_tape, with_replay

# What a case that was cut off spent is unknown, never "free".
TIMED_OUT = "not measured: the case did not finish within case_timeout_seconds"

# The evaluators added to the built-ins, or how to get them: called only once scoring
# starts, so a plugin that fails to hand them over errors this case as scoring does.
Evaluators = Sequence[Evaluator] | Callable[[], Sequence[Evaluator]]

# One act thread per calling thread (a plain run or an xdist worker has one caller):
# a case that returns in time leaves its thread for the next, so a session pays for one.
_workers = threading.local()


def perform(
    skill: Skill,
    case: EvalCase,
    runner: Runner,
    judge: Judge | None,
    workspace: Workspace | None,
    evaluators: Evaluators = (),
    *,
    identity: CaseIdentity,
    settings: Settings,
) -> Outcome:
    """Run ``case`` and score it (built-ins, then ``evaluators``): the recorded outcome.

    ``judge`` is asked only for a case with a rubric; ``settings`` gives the
    deadline, whether the workspace is kept, the judge's name if it has none, and
    whether the act records to or replays from ``identity.cassette`` (replay.py).
    """
    taping = open_tape(skill, case, runner, judge, identity, settings)
    tape = taping.tape
    if taping.refusal is not None:  # replaying only, and nothing to replay: no call at all
        result, verdict = RunResult(error=taping.refusal), None
    elif tape is None:
        result, verdict = _act(skill, case, runner, judge, workspace, identity.runner, settings)
    else:
        from ..run.cassettes import using_tape  # only under --skill-lens-record

        with using_tape(tape):  # the act's thread sees it: its context is copied
            result, verdict = _act(skill, case, runner, judge, workspace, identity.runner, settings)
        miss = tape.close()
        if miss is not None:  # the cassette's words for what changed, not the framework's
            result.error = miss
    context = ScoringContext(
        runner=identity.runner,
        judge_verdict=verdict,
        workspace=workspace,
        skill_name=identity.skill_name,
    )
    status: Status
    scores: list[Score]
    try:
        extra = evaluators() if callable(evaluators) else evaluators
        status, scores = evaluate(case, result, context, extra=extra)
    except Exception as exc:  # scoring is ours and checked at load: infrastructure
        result.error = f"scoring failed: {type(exc).__name__}: {exc}"
        status, scores = "errored", []
    # The caller deletes the directory afterwards unless it is kept for inspection.
    kept = str(workspace.root) if workspace is not None and settings.keep_workspace else None
    outcome = outcome_of(identity, status, scores, result, kept)
    # An errored case was not measured: a cassette never keeps it.
    report = finish_tape(tape, status, result.error, scores) if tape is not None else None
    return with_replay(outcome, taping, report)


def _act(
    skill: Skill,
    case: EvalCase,
    runner: Runner,
    judge: Judge | None,
    workspace: Workspace | None,
    runner_name: str,
    settings: Settings,
) -> tuple[RunResult, JudgeVerdict | None]:
    """The run and the judge's verdict (``None``: not judged), under one deadline."""
    seconds = settings.case_timeout_seconds
    judging: list[tuple[str, RunResult]] = []  # once the judge holds the act: its name, the run

    def act() -> tuple[RunResult, JudgeVerdict | None]:
        result = run_case(skill, case, runner, runner_name, workspace)
        if result.error is not None or case.judge is None:
            return result, None
        name = f"judge {judge_name(judge, settings)!r}"
        judging.append((name, result))
        return result, grade(case, judge, result, workspace, name)

    if case.judge is None and is_plain_fake(runner):
        # Ours, and it cannot hang: handing it to the act thread and back would be
        # most of a fake case's cost.
        return act()
    start = time.perf_counter()
    try:
        return _worker().call(act, seconds)
    except DeadlineExceeded:
        # The abandoned call may still move on; it records nothing, and how far it
        # had got is read once, here.
        reached = judging[0] if judging else None
        holder = reached[0] if reached else f"runner {runner_name!r}"
        late = f"{holder} did not return within {seconds:g} s (case_timeout_seconds)"
        if reached is None:
            took = (time.perf_counter() - start) * 1000
            cut = RunResult(error=late, latency_ms=took, cost_note=TIMED_OUT, usage_note=TIMED_OUT)
            return cut, None
        # The run finished and is measured; only its grading is missing.
        return reached[1], JudgeVerdict(checks=None, error=late, cost_note=TIMED_OUT)


def _worker() -> DeadlineWorker:
    worker: DeadlineWorker | None = getattr(_workers, "act", None)
    if worker is None:
        worker = _workers.act = DeadlineWorker()
    return worker
