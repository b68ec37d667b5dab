"""What a run spent, what it did not spend and why: the block every report shows (issue 33).

Three reasons a run pays less than a full one, each from the record alone, so a merge of
shards says it too:

* skills ``--skill-lens-changed`` deselected, unchanged since its REF: none of their runs
  were made;
* items ``--skill-lens-repeat auto:N`` stopped early, their skill's questions decided;
* outcomes replayed from cassettes: their recorded cost was paid when they were recorded,
  not again;
* outcomes reused from the store (``--skill-lens-reuse``, ``reused_from`` set): the same,
  counted apart, with the commit and date the oldest was recorded at.

The spend is new spend only (the figures' ``new_spend_usd``: :func:`..gate.spend.spend_of`
of each outcome), as priced: the cost sources say whether a figure is a list price or a
product's own. A recorded figure says so.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..gate.record import RunRecord
from ..perform.outcome import Outcome
from ..run.models.price_source import distinct
from .reuse_lines import ReuseShare, origin_words

SKILLS_SHOWN = 10  # names on one line; the JSON report lists every one
RECORDED_NOTE = "their recorded cost, paid when they were recorded and not again"


def not_paid_again(outcome: Outcome) -> bool:
    """An outcome whose run this session did not pay for: replayed from a cassette or
    reused from the store (a reused outcome is a replay with ``reused_from`` set)."""
    return outcome.replayed or outcome.reused_from is not None


def _recorded_cost(outcomes: Iterable[Outcome]) -> float:
    return math.fsum(o.cost_usd + o.retry_cost_usd for o in outcomes)


@dataclass(frozen=True)
class Savings:
    runs_made: int  # outcomes this session paid for (not replayed)
    spent_usd: float  # their new spend, as priced
    stopped_early: dict[str, int]  # skill -> items not run, in planned order
    unchanged_skills: tuple[str, ...]
    unchanged_since: str | None
    replayed: int  # from cassettes, not reused from the store
    replayed_usd: float
    spent_note: str  # how the spend was priced, in the cost sources' words
    reused: int = 0  # reused from the store by content
    reused_usd: float = 0.0
    reused_from: str | None = None  # the oldest's commit and date, in origin_words' words
    reused_commits: tuple[str, ...] = ()

    @classmethod
    def of(cls, record: RunRecord) -> Savings:
        unpaid = [o for o in record.outcomes if not_paid_again(o)]
        replayed = [o for o in unpaid if o.reused_from is None]
        share = ReuseShare.of(record)
        oldest = share.oldest
        commits = {str(c) for o in share.reused if o.reused_from and (c := o.reused_from["commit"])}
        more = f" (the oldest of {len(commits)} commits)" if len(commits) > 1 else ""
        changed = record.changed
        return cls(
            runs_made=len(record.outcomes) - len(unpaid),
            spent_usd=record.figures.new_spend_usd,
            stopped_early=dict(Counter(str(e.get("skill_name")) for e in record.stopped_early)),
            unchanged_skills=tuple(changed.unchanged_skills) if changed is not None else (),
            unchanged_since=changed.since if changed is not None else None,
            replayed=len(replayed),
            replayed_usd=_recorded_cost(replayed),
            spent_note=_priced(o for o in record.outcomes if not not_paid_again(o)),
            reused=len(share.reused),
            reused_usd=_recorded_cost(share.reused),
            reused_from=(
                origin_words(oldest.reused_from) + more
                if oldest is not None and oldest.reused_from is not None
                else None
            ),
            reused_commits=tuple(sorted(commits)),
        )

    @property
    def anything(self) -> bool:
        return bool(self.stopped_early or self.unchanged_skills or self.replayed or self.reused)

    def as_dict(self) -> dict[str, Any]:
        """``summary.not_spent`` of the JSON report."""
        return {
            "runs_made": self.runs_made,
            "spent_usd": self.spent_usd,
            "stopped_early": sum(self.stopped_early.values()),
            "stopped_early_by_skill": dict(self.stopped_early),
            "unchanged_skills": list(self.unchanged_skills),
            "unchanged_since": self.unchanged_since,
            "replayed": self.replayed,
            "replayed_usd": self.replayed_usd,
            "spent_note": self.spent_note,
            "note": self._note(),
            "reused": self.reused,
            "reused_usd": self.reused_usd,
            "reused_from": self.reused_from,
            "reused_commits": list(self.reused_commits),
        }

    def _note(self) -> str | None:
        named = [n for n, v in (("replayed_usd", self.replayed), ("reused_usd", self.reused)) if v]
        if not named:
            return None
        return f"{' and '.join(named)} {'are' if len(named) > 1 else 'is'} {RECORDED_NOTE}"

    def lines(self) -> list[str]:
        """The console's and Markdown's words; none when the run skipped nothing."""
        if not self.anything:
            return []
        lines = [
            f"Spent: {self.runs_made} run(s) made, ${self.spent_usd:.4f} new spend "
            f"({self.spent_note})"
        ]
        if self.stopped_early:
            named = list(self.stopped_early.items())
            each = ", ".join(f"{skill} {n}" for skill, n in named[:SKILLS_SHOWN])
            each += (
                f", and {len(named) - SKILLS_SHOWN} more skill(s)"
                if len(named) > SKILLS_SHOWN
                else ""
            )
            total = sum(self.stopped_early.values())
            lines.append(
                f"  {total} run(s) not spent: stopped early, their skill's question decided "
                f"(--skill-lens-repeat auto; {each})"
            )
        if self.unchanged_skills:
            names = ", ".join(self.unchanged_skills[:SKILLS_SHOWN])
            extra = len(self.unchanged_skills) - SKILLS_SHOWN
            names += f", and {extra} more" if extra > 0 else ""
            lines.append(
                f"  {len(self.unchanged_skills)} skill(s) not run: unchanged since "
                f"{self.unchanged_since} ({names})"
            )
        if self.replayed:
            lines.append(
                f"  {self.replayed} outcome(s) replayed from cassettes: "
                f"${self.replayed_usd:.4f}, {RECORDED_NOTE}"
            )
        if self.reused:
            lines.append(
                f"  {self.reused} outcome(s) reused from the store (recorded "
                f"{self.reused_from}): ${self.reused_usd:.4f}, their recorded cost, not paid "
                "again"
            )
        return lines


def _priced(fresh: Iterable[Outcome]) -> str:
    """Where the new spend's figures came from: one source named, several referred to."""
    outcomes = list(fresh)
    sources = distinct(
        [o.price_source for o in outcomes] + [s.price_source for o in outcomes for s in o.scores]
    )
    if len(sources) == 1:
        return sources[0]
    return "as priced: see the cost sources" if sources else "no run said what it cost"


def savings_block(record: RunRecord, inline: Callable[[str], str]) -> str | None:
    """Markdown's ``Spent and not spent`` block, with auto:N's decisions under it."""
    from .sequential_view import sequential_lines

    lines = [*Savings.of(record).lines(), *sequential_lines(record.sequential)]
    if not lines:
        return None
    items = "\n".join(f"- {inline(line.strip())}" for line in lines)
    return f"### Spent and not spent\n\n{items}"
