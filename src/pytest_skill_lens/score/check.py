"""The shape every evaluator reports in."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol

from ..suite.model import EvalCase

if TYPE_CHECKING:  # annotations only: configure and collection never check a result
    from ..run.result import RunResult
    from ..run.workspace.workspace import Workspace


# Slots: every item keeps its scores and checks to the end of the session.
@dataclass(frozen=True, slots=True)
class CheckResult:
    """One declared check: a stable id (from the case, never the run) and its evidence.

    ``evaluated`` is False for a check that could not be measured (a figure the runner
    did not report, a search out of time): it fails, and what reads verdicts (the
    portability matrix) tells it from a real failure by this flag, never by its words.
    """

    id: str
    passed: bool
    evidence: str
    evaluated: bool = True

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "passed": self.passed, "evidence": self.evidence}
        if not self.evaluated:  # written only when it says something
            data["evaluated"] = False
        return data


def unmeasured(check_id: str, evidence: str) -> CheckResult:
    """A check that could not be measured: it fails, and says so by its flag."""
    return CheckResult(check_id, False, evidence, evaluated=False)


@dataclass(frozen=True, slots=True)
class Score:
    evaluator: str
    passed: bool
    score: float
    detail: str
    checks: tuple[CheckResult, ...] = ()
    errored: bool = False
    cost_usd: float = 0.0
    cost_note: str | None = None
    price_source: str | None = None  # where cost_usd came from (run/models/price_source.py)

    def to_dict(self) -> dict[str, Any]:
        # By hand: dataclasses.asdict deep-copies every leaf, a real cost per item.
        data = {f.name: getattr(self, f.name) for f in _SCORE_FIELDS}
        data["checks"] = [c.to_dict() for c in self.checks]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Score:
        checks = tuple(CheckResult(**c) for c in data.get("checks", ()))
        return cls(**{**data, "checks": checks})


_SCORE_FIELDS = fields(Score)


@functools.lru_cache(maxsize=256)
def held_trivially(evaluator: str, detail: str) -> Score:
    """The score of an evaluator with nothing to check (``no budget``): one shared
    object per evaluator and detail, as every case without a budget holds one."""
    return Score(evaluator, True, 1.0, detail)


def score_from_checks(evaluator: str, checks: list[CheckResult], nothing: str) -> Score:
    """A score whose verdict and number come from its checks alone."""
    if not checks:
        return held_trivially(evaluator, nothing)
    held = sum(c.passed for c in checks)
    failed = [c.id for c in checks if not c.passed]
    if not failed:  # most cases: one detail string per count, and 1.0 itself
        return Score(evaluator, True, 1.0, _all_held(held), tuple(checks))
    detail = f"{held}/{len(checks)} checks held; failed: {', '.join(failed)}"
    return Score(evaluator, False, held / len(checks), detail, tuple(checks))


@functools.lru_cache(maxsize=256)
def _all_held(count: int) -> str:
    # Shared by every score whose checks all held: each item keeps its scores.
    return f"{count}/{count} checks held"


@dataclass(frozen=True)
class ScoringContext:
    """What an evaluator may read besides the case and the run."""

    runner: str
    judge_verdict: Any = None  # score.judge.JudgeVerdict once the act phase called a judge
    extras: dict[str, Any] = field(default_factory=dict)
    # The case's workspace as the last session left it; None for a case without one.
    workspace: Workspace | None = None
    # The skill the case was written for: tells it from its neighbours in skills_triggered.
    skill_name: str | None = None


class Evaluator(Protocol):
    """Scores one run. Pure and free: it reads, it never calls out."""

    name: str

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score: ...
