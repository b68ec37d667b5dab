"""What every report says of outcomes reused by content (``--skill-lens-reuse``, docs/reuse.md).

A reused outcome is a replay found in the store by its content, so it is also said
to be replayed (:mod:`.replay_lines`); this adds from which commit and when it was
recorded, and, for the items that ran, why they were not reused. All of it is a
function of the outcomes alone, so xdist's controller and a merge say it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..gate.record import RunRecord
from ..perform.outcome import Outcome

AS_FRESH = "the gate counts each as a fresh one; none of their spend is new"


def origin_words(reused_from: Mapping[str, Any]) -> str:
    """``at commit 1a2b3c4d on 2026-12-05 03:40:12 UTC``: where a reused outcome is from."""
    commit = reused_from.get("commit")
    at = str(reused_from.get("recorded_at") or "an unknown date")
    if at.endswith("Z"):
        at = at.replace("T", " ").removesuffix("Z") + " UTC"
    return f"at commit {str(commit)[:8]} on {at}" if commit else f"on {at}"


@dataclass(frozen=True)
class ReuseShare:
    """How many outcomes were reused, the oldest recording, and the first miss."""

    reused: tuple[Outcome, ...]
    missed: tuple[Outcome, ...]  # ran, with a reuse note saying why not reused

    @classmethod
    def of(cls, record: RunRecord) -> ReuseShare:
        return cls(
            reused=tuple(o for o in record.outcomes if o.reused_from is not None),
            missed=tuple(o for o in record.outcomes if o.reuse_note is not None),
        )

    @property
    def oldest(self) -> Outcome | None:
        return min(self.reused, key=_recorded, default=None)

    def lines(self, total: int) -> list[str]:
        """``Reused: 2 of 4 outcome(s) from the reuse store, recorded at commit ...``;
        then how many ran afresh, and the first one's reason."""
        found: list[str] = []
        oldest = self.oldest
        if oldest is not None and oldest.reused_from is not None:
            commits = {o.reused_from.get("commit") for o in self.reused if o.reused_from}
            more = f" (the oldest of {len(commits)} commits)" if len(commits) > 1 else ""
            found.append(
                f"Reused: {len(self.reused)} of {total} outcome(s) from the reuse store, "
                f"recorded {origin_words(oldest.reused_from)}{more}; {AS_FRESH}"
            )
        if self.missed:
            first = self.missed[0]
            found.append(
                f"Not reused: {len(self.missed)} outcome(s) ran and were added to the store; "
                f"{first.skill_name} :: {first.case_name} ({first.arm}): {first.reuse_note}"
            )
        return found

    def as_dict(self, total: int) -> dict[str, Any] | None:
        """``summary.reuse`` of the JSON report; None when nothing was looked up."""
        if not (self.reused or self.missed):
            return None
        oldest = self.oldest
        return {
            "reused": len(self.reused),
            "not_reused": len(self.missed),
            "of": total,
            "oldest_recorded_at": _recorded(oldest) if oldest is not None else None,
            "commits": sorted(
                {str(c) for o in self.reused if o.reused_from and (c := o.reused_from["commit"])}
            ),
            "note": f"reused outcomes: {AS_FRESH}" if self.reused else None,
        }


def reuse_properties(outcome: Outcome) -> list[tuple[str, object]]:
    """The JUnit properties of a reused case, or of one that was looked up and ran."""
    if outcome.reused_from is not None:
        return [("reused_from", origin_words(outcome.reused_from))]
    if outcome.reuse_note is not None:
        return [("not_reused", outcome.reuse_note)]
    return []


def _recorded(outcome: Outcome) -> str:
    return str((outcome.reused_from or {}).get("recorded_at") or "")
