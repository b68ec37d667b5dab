"""Whether a run measured its skills, or only the suite's wiring (the fake runner).

The fake runner answers every task with one fixed line and calls no tool and no
model. Under it a suite can come out green while nothing about a skill was
measured: ``forbidden:``, ``not_contains`` and ``skill_triggered: false`` hold
trivially, and budgets are met at 0 tokens, $0 and 0 ms. Every report says so
where its verdict is read (the console's gate line, the JSON ``summary``, the
Markdown heading), all from :class:`FakeShare`, so they agree; it is a function
of the outcomes alone, so a merge of shard reports says it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..gate.record import RunRecord
from ..score.budget_fake import from_fake_runner

WHAT_HOLDS = (
    "Under fake, forbidden, not_contains and skill_triggered: false checks hold trivially "
    "and budgets are met at 0 tokens, $0 and 0 ms: none of it is a measurement. To measure "
    "the skill, name a real runner (--skill-lens-runner pydantic-ai, langchain or a product; "
    "docs/runners.md)."
)


@dataclass(frozen=True)
class FakeShare:
    """How many of the candidate arm's outcomes the fake runner produced."""

    fake: int
    total: int

    @classmethod
    def of(cls, record: RunRecord) -> FakeShare:
        candidates = record.candidates
        fake = sum(from_fake_runner(o.runner, o.model) for o in candidates)
        return cls(fake=fake, total=len(candidates))

    @property
    def every(self) -> bool:
        return self.total > 0 and self.fake == self.total

    def note(self) -> str | None:
        """``wiring only: ...`` (or ``partly wiring: ...``); None when fake produced none."""
        if not self.fake:
            return None
        if self.every:
            share = f"wiring only: every candidate outcome ({self.total}) came from runner fake"
        else:
            share = (
                f"partly wiring: {self.fake} of {self.total} candidate outcomes "
                f"({self.fake / self.total:.0%}) came from runner fake"
            )
        return f"{share}, which measures the suite's wiring, not the skill"

    def sentence(self) -> str | None:
        """The note and what holds trivially under fake, as one paragraph."""
        note = self.note()
        return None if note is None else f"{note[0].upper()}{note[1:]}. {WHAT_HOLDS}"
