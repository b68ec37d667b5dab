"""Whether a judge's verdict and a plugin evaluator's score are well formed.

Both come from code the plugin does not own. A malformed one (a check that is not
a check, text where a verdict or a bool belongs, a negative or NaN cost, a score
outside 0 to 1) errors its case naming the field; nothing of it is reported.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ..run.result_shape import PriceSource
from ..wellformed import AS_LIST, Count, Figure, Shape, instance_of, problems_of
from .check import CheckResult, Score
from .judge import JudgeCheck, JudgeVerdict


class _JudgeCheckShape(Shape):
    id: str
    passed: bool
    evidence: str


class _VerdictShape(Shape):
    checks: list[Annotated[_JudgeCheckShape, instance_of(JudgeCheck)]] | None
    error: str | None
    cost_usd: Figure
    cost_note: str | None
    price_source: PriceSource | None
    tokens: Count
    model: str


class _CheckShape(Shape):
    id: str
    passed: bool
    evidence: str
    evaluated: bool


class _ScoreShape(Shape):
    evaluator: str
    passed: bool
    score: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
    detail: str
    checks: Annotated[list[Annotated[_CheckShape, instance_of(CheckResult)]], AS_LIST]
    errored: bool
    cost_usd: Figure
    cost_note: str | None
    price_source: PriceSource | None


def verdict_problems(verdict: JudgeVerdict) -> list[str]:
    """Each malformed field of a judge's verdict, as ``field: what is wrong (got value)``."""
    return problems_of(_VerdictShape, verdict)


def score_problems(score: Score) -> list[str]:
    """Each malformed field of an evaluator's score, as ``field: what is wrong (got value)``."""
    return problems_of(_ScoreShape, score)
