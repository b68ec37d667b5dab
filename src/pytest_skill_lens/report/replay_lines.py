"""What every report says of outcomes replayed from cassettes (``docs/replay.md``).

A replayed outcome is scored by today's checks, but its output, its latency and its
spend are the recording's. So each report says so where it is read: the console's
item line (``PASSED (replayed)``, from :func:`replay_word`) and a summary line, the
JSON (per outcome ``replayed``, ``cassette``, ``recorded_at``; ``summary.replay``),
the JUnit properties and the Markdown head. All of it comes from
:class:`ReplayShare`, a function of the outcomes alone, so a merge says it too.
A recording run also says what became of each file (:class:`CassetteAccount`:
written, kept, not written and why), from each outcome's ``cassette_action``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import PurePath
from typing import Any

from ..gate.record import RunRecord
from ..perform.outcome import Outcome

AS_RECORDED = (
    "their output, latency and spend are the recording's (none of it new spend), "
    "scored by the checks as they are now"
)


def replay_word(outcome: Outcome) -> str | None:
    """``replayed`` (``reused``: found by content in the reuse store) or ``partly
    replayed`` for an outcome's console line; None otherwise."""
    if outcome.reused_from is not None:
        return "reused"
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


# An outcome's cassette_action: what a recording run did with its file.
CASSETTE_ACTIONS = ("written", "kept", "not_written")
NOT_WRITTEN_SHOWN = 10  # a run where every case errored would list them all; the JSON does
DIRECTORIES_SHOWN = 3


@dataclass(frozen=True)
class CassetteAccount:
    """What a recording run did with its cassettes, from the outcomes alone (so xdist's
    controller and a merge count every worker's): written, kept, not written and why."""

    written: int
    kept: int  # replayed under the same key: the file stands byte for byte
    unwritten: tuple[Outcome, ...]  # each with its cassette and cassette_note
    directories: tuple[str, ...]

    @classmethod
    def of(cls, record: RunRecord) -> CassetteAccount | None:
        """None when no outcome was recorded (replaying only, or no cassettes at all)."""
        acted = [o for o in record.outcomes if o.cassette_action and o.cassette]
        if not acted:
            return None
        return cls(
            written=sum(o.cassette_action == "written" for o in acted),
            kept=sum(o.cassette_action == "kept" for o in acted),
            unwritten=tuple(o for o in acted if o.cassette_action == "not_written"),
            directories=tuple(sorted({str(PurePath(o.cassette or "").parent) for o in acted})),
        )

    def lines(self) -> list[str]:
        """``Cassettes: 2 written, 0 kept, 1 not written (1 errored) in DIR``, then why
        each was not written."""
        errored = sum(o.status == "errored" for o in self.unwritten)
        kinds = [
            *([f"{errored} errored"] if errored else []),
            *(
                [f"{len(self.unwritten) - errored} could not be kept"]
                if len(self.unwritten) > errored
                else []
            ),
        ]
        why = f" ({', '.join(kinds)})" if kinds else ""
        head = (
            f"Cassettes: {self.written} written, {self.kept} kept, "
            f"{len(self.unwritten)} not written{why} in {self._where()}"
        )
        notes = [
            f"Cassette not written: {o.cassette_note or o.cassette}"
            for o in self.unwritten[:NOT_WRITTEN_SHOWN]
        ]
        if len(self.unwritten) > NOT_WRITTEN_SHOWN:
            more = len(self.unwritten) - NOT_WRITTEN_SHOWN
            notes.append(f"...and {more} more not written (the JSON report lists every one)")
        return [head, *notes]

    def _where(self) -> str:
        shown = self.directories[:DIRECTORIES_SHOWN]
        if len(self.directories) == 1:
            return shown[0]
        more = len(self.directories) - len(shown)
        rest = f" and {more} more" if more else ""
        return f"{len(self.directories)} directories: {', '.join(shown)}{rest}"

    def as_dict(self) -> dict[str, Any]:
        """``summary.cassettes`` of the JSON report."""
        return {
            "written": self.written,
            "kept": self.kept,
            "not_written": len(self.unwritten),
            "directories": list(self.directories),
            "not_written_cassettes": [
                {"cassette": o.cassette, "status": o.status, "why": o.cassette_note}
                for o in self.unwritten
            ],
        }


def cassette_lines(record: RunRecord) -> list[str]:
    """The recording's account, or (replaying only) any note of a file not written."""
    account = CassetteAccount.of(record)
    if account is not None:
        return account.lines()
    notes = sorted({o.cassette_note for o in record.outcomes if o.cassette_note})
    return [f"Cassette not written: {note}" for note in notes]


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
