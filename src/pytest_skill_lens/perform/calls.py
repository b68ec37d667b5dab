"""Calling code the plugin does not own: whatever a runner or a judge does, the case
gets a well-formed RunResult or JudgeVerdict back.

A runner or judge that raises, returns another type or a malformed value (checked
field by field: run/result.py, score/shapes.py) errors the case naming what went
wrong, and none of the bad value's figures is kept.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from ..run.fake import is_plain_fake
from ..run.result import RunResult, problems
from ..run.runner import Runner
from ..run.sessions import run_sessions
from ..run.workspace.workspace import Workspace
from ..score.artifacts import collect_artifacts
from ..score.judge import Judge, JudgeVerdict, build_request
from ..suite.model import EvalCase
from ..suite.skill import Skill
from ..wellformed import summary

# What a case handed back garbage spent is unknown, never "free".
DISCARDED = "not measured: the result was malformed, so its figures were discarded"


def run_case(
    skill: Skill, case: EvalCase, runner: Runner, runner_name: str, workspace: Workspace | None
) -> RunResult:
    """One runner call, or one per session, all against the same workspace."""
    root = workspace.root if workspace is not None else None
    if case.sessions is None:
        return _run(skill, runner, runner_name, case, root)
    merged = run_sessions(case, lambda one: _run(skill, runner, runner_name, one, root))
    found = problems(merged)  # well-formed parts can still overflow in their sum
    if not found:
        return merged
    error = f"the sessions' combined result is malformed: {summary(found)}"
    if merged.error is not None:
        error = f"{merged.error}; {error}"
    latency = merged.latency_ms if math.isfinite(merged.latency_ms) else 0.0
    return _discarded(error, latency)


def grade(
    case: EvalCase,
    judge: Judge | None,
    result: RunResult,
    workspace: Workspace | None,
    name: str,
) -> JudgeVerdict:
    """The judge's verdict on ``result``; ``name`` (say ``judge 'keyed'``) heads its errors."""
    try:
        artifacts = collect_artifacts(case.judge, workspace) if case.judge else []
        # None, like any value a fixture override hands back, fails here and is caught.
        verdict = judge.judge(build_request(case, result, artifacts))  # type: ignore[union-attr]
    except Exception as exc:  # a judge must not raise either
        return JudgeVerdict(checks=None, error=f"judge raised {type(exc).__name__}: {exc}")
    if not isinstance(verdict, JudgeVerdict):
        return JudgeVerdict(
            checks=None, error=f"judge returned {type(verdict).__name__}, not a JudgeVerdict"
        )
    from ..score.shapes import verdict_problems  # its models: only where a judge ran

    found = verdict_problems(verdict)
    if found:
        error = f"{name} returned a malformed JudgeVerdict: {summary(found)}"
        return JudgeVerdict(checks=None, error=error, cost_note=DISCARDED)
    return verdict


def _discarded(error: str, latency_ms: float) -> RunResult:
    """An errored run in place of a malformed one: none of its figures is kept."""
    return RunResult(error=error, latency_ms=latency_ms, cost_note=DISCARDED, usage_note=DISCARDED)


def _run(
    skill: Skill, runner: Runner, runner_name: str, case: EvalCase, root: Path | None
) -> RunResult:
    start = time.perf_counter()
    try:
        result = runner.run(skill, case, root)
    except Exception as exc:  # a runner must not raise; if one does, the case is errored
        return RunResult(
            error=f"runner {runner_name!r} raised {type(exc).__name__}: {exc}",
            latency_ms=(time.perf_counter() - start) * 1000,
        )
    took = (time.perf_counter() - start) * 1000
    if not isinstance(result, RunResult):
        got = type(result).__name__
        return _discarded(f"runner {runner_name!r} returned {got}, not a RunResult", took)
    # The built-in fake builds its result from checked case data, so its shape is known
    # (tests/unit/test_plain_fake.py); every other runner's is checked field by field.
    found = [] if is_plain_fake(runner) else problems(result)
    if found:
        error = f"runner {runner_name!r} returned a malformed RunResult: {summary(found)}"
        return _discarded(error, took)
    if case.mode == "offered" and result.error is None and result.skill_triggered is None:
        # A runner that cannot say whether the agent reached for the skill does not
        # support the mode: errored, never a quiet pass (a negative control included).
        result.error = (
            f"runner {runner_name!r} reported no skill-trigger decision for this "
            "mode: offered case (it does not support mode: offered)"
        )
    if skill.neighbours and result.error is None and result.skills_triggered is None:
        # Which of the offered skills the agent reached for is the measurement itself.
        result.error = (
            f"runner {runner_name!r} reported no skills_triggered for this case with "
            "neighbours: (it does not support neighbours)"
        )
    return result
