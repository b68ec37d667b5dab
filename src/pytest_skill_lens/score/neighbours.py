"""The ``skill_triggered`` check when neighbours were offered beside the skill.

A positive control holds only when the intended skill was loaded; a neighbour loaded
instead fails it, and the evidence names the neighbour. A negative control holds only
when no offered skill was loaded at all: the task fits none of them.
"""

from __future__ import annotations

from .. import matching as matcher
from ..run.result import RunResult
from .check import CheckResult

_NAMES_SHOWN = 300  # characters of the neighbours' names quoted in evidence


def among_neighbours(
    check: CheckResult, expected: bool, result: RunResult, skill: str | None
) -> CheckResult:
    """``check`` (the skill's own answer) with the neighbours the agent loaded folded in."""
    names = result.skills_triggered
    if skill is None or names is None or not check.evaluated:
        return check
    others = [name for name in names if name != skill]
    if not others:
        return check
    shown = matcher.clip(", ".join(repr(name) for name in others), _NAMES_SHOWN)
    noun = "neighbour" if len(others) == 1 else "neighbours"
    if expected:
        if check.passed:
            return CheckResult(
                check.id, True, f"{check.evidence} (it also loaded the {noun} {shown})"
            )
        return CheckResult(
            check.id, False, f"the agent loaded the {noun} {shown} instead; {check.evidence}"
        )
    return CheckResult(
        check.id,
        False,
        f"the agent loaded the {noun} {shown}; {check.evidence}, and every neighbour too",
    )
