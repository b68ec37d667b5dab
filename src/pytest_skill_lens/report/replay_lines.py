"""What every report says of outcomes replayed from cassettes (``docs/replay.md``).

A replayed outcome is scored by today's checks, but its output, its latency and its
spend are the recording's. So each report says so where it is read: the console's
item line (``PASSED (replayed)``, from :func:`replay_word`) and a summary line, the
JSON (per outcome ``replayed``, ``cassette``, ``recorded_at``; ``summary.replay``),
the JUnit properties and the Markdown head. All of it comes from
:class:`ReplayShare`, a function of the outcomes alone, so a merge says it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from ..gate.record import RunRecord
from ..perform.outcome import Outcome

AS_RECORDED = (
    "their output, latency and spend are the recording's (none of it new spend), "
    "scored by the checks as they are now"
)


def replay_word(outcome: Outcome) -> str | None:
    """``replayed`` or ``partly replayed`` for an outcome's console line; None otherwise."""
    if outcome.replayed:
        return "replayed"
    if outcome.replayed_calls:
        return "partly replayed"
    return None


@dataclass(frozen=True)
class ReplayShare:
    """How many outcomes came from cassettes, and how old the oldest recording is."""

    taped: int  # outcomes with a cassette (replayed or recorded)
    replayed: int
    partly: int
    oldest: str | None  # YYYY-MM-DD
    replayed_usd: float

    @classmethod
    def of(cls, record: RunRecord) -> ReplayShare:
        outcomes = record.outcomes
        dates = [o.recorded_at for o in outcomes if o.recorded_at]
        return cls(
            taped=sum(o.cassette is not None for o in outcomes),
            replayed=sum(o.replayed for o in outcomes),
            partly=sum(not o.replayed and o.replayed_calls > 0 for o in outcomes),
            oldest=min(dates, default=None),
            replayed_usd=sum((o.replayed_usd for o in outcomes), 0.0),
        )

    def line(self, total: int, today: date | None = None) -> str | None:
        """``Replayed: 3 of 4 outcomes from cassettes, the oldest recorded ...``."""
        if not (self.replayed or self.partly):
            return None
        counted = f"{self.replayed} of {total} outcome(s)"
        if self.partly:
            counted += f" ({self.partly} more partly)"
        age = (
            f", the oldest recorded {self.oldest}{_age(self.oldest, today)}" if self.oldest else ""
        )
        return f"Replayed: {counted} from cassettes{age}; {AS_RECORDED}"

    def as_dict(self, total: int) -> dict[str, Any] | None:
        """``summary.replay`` of the JSON report; None when no outcome had a cassette."""
        if not self.taped:
            return None
        return {
            "replayed": self.replayed,
            "partly_replayed": self.partly,
            "recorded": self.taped - self.replayed - self.partly,
            "of": total,
            "oldest_recorded_at": self.oldest,
            "replayed_usd": self.replayed_usd,
            "note": f"replayed outcomes: {AS_RECORDED}" if self.replayed or self.partly else None,
        }


def _age(recorded: str, today: date | None) -> str:
    try:
        then = date.fromisoformat(recorded)
    except ValueError:
        return ""
    days = ((today or datetime.now(UTC).date()) - then).days
    if days <= 0:
        return " (today)"
    return f" ({days} day{'s' if days != 1 else ''} ago)"


def replay_properties(outcome: Outcome) -> list[tuple[str, object]]:
    """The JUnit properties of a case with a cassette: what was replayed, from where."""
    if outcome.cassette is None:
        return []
    found: list[tuple[str, object]] = [
        ("replayed", outcome.replayed),
        ("cassette", outcome.cassette),
    ]
    if outcome.recorded_at:
        found.append(("recorded_at", outcome.recorded_at))
    if not outcome.replayed and outcome.replayed_calls:
        found.append(("replayed_calls", outcome.replayed_calls))
    return found
