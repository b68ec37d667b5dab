"""The decisions of a run under ``--skill-lens-repeat auto:N``, as the record holds them.

Data only (:mod:`.sequential_gate` makes them), so the record can name them without
importing the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .sequential import DEFAULT_ALPHA, METHOD, SequentialDecision

QuestionKind = Literal["per_skill_min", "min_pass_rate", "min_delta"]


@dataclass(frozen=True)
class Question:
    """One question a skill's rounds answered, and the words the reports give it."""

    question: QuestionKind
    skill_name: str
    runner: str | None  # min_delta's runner; None for a pass rate
    decision: SequentialDecision
    bounds: tuple[float, float]  # the anytime-valid bounds, on the question's scale
    text: str
    # min_delta's baseline arm (its kind: "none", "placebo", "previous"); None for a pass
    # rate, or a baseline outcome that did not say its kind.
    arm: str | None = None

    @property
    def settled(self) -> bool:
        verdict = self.decision.verdict
        return (
            verdict in ("pass", "fail") if self.question == "per_skill_min" else verdict == "pass"
        )


@dataclass(frozen=True)
class SequentialRecord:
    """Every question of a run under ``auto:N``, skill by skill in planned order."""

    max_rounds: int
    questions: tuple[Question, ...]
    alpha: float = DEFAULT_ALPHA
    method: str = METHOD
