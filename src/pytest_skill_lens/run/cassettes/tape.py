"""One item's open cassette: which of its calls replay, which record, and what was missed.

The pipeline opens a :class:`Tape` for an item and makes it current
(:func:`using_tape`) around the act. Each runner call (one per session) and each judge
call asks it for a :class:`SeatCall` and sends every model request through
:meth:`SeatCall.exchange`: replaying, the request is compared with the recorded one and
the recorded response comes back (no network); recording, the live response is kept.

``--skill-lens-record``:

* ``none``: replay only. A missing, unreadable or stale cassette is refused before the
  act (:attr:`Tape.refusal`), so the runner is never called; a request that differs
  from the recorded one ends the call with :class:`CassetteMiss`. Nothing is written.
* ``once``: replay what matches, record what is missing. A stale part of the key means
  that seat records afresh; a call whose *first* request differs records afresh from
  there (nothing of it was replayed yet); a difference later in a conversation is a
  miss, since part of the run was already replayed.
* ``all``: record everything; the old file is never replayed.

A case that errored is not kept; where no recording stands, a marker takes the
cassette's place saying so (:mod:`.marker`), which replaying only reads to give the
true reason and ``once`` records over. :attr:`TapeReport.action` says what became of
the file (written, kept as it was, or not written, and :attr:`TapeReport.note` why).

Only the final attempt of a call is kept (each attempt is a fresh conversation), with
what the whole call measured (latency, spend, the discarded attempts' cost), which a
replay reports as recorded.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from .files import (
    FORMAT,
    CassetteError,
    CassetteFile,
    LinkRefused,
    NotRecorded,
    Origin,
    Seat,
    StoredCall,
    check_place,
    read_cassette,
    shape_error,
    write_cassette,
)
from .key import KeyPart, stale_parts
from .marker import error_line, marker, standing
from .seat_call import CassetteMiss, SeatCall

Mode = Literal["none", "once", "all"]
Action = Literal["written", "kept", "not_written"]
SEATS: tuple[Seat, ...] = ("runner", "judge")

_RECORD_FIX = "record it again with --skill-lens-record once (or all)"
_RERECORD_FIX = "re-record it with --skill-lens-record all"


@dataclass(frozen=True)
class TapeReport:
    """What the cassette did for one item, for its outcome and the reports."""

    cassette: str
    replayed: bool  # every call of the item was answered from the cassette
    replayed_calls: int
    replayed_usd: float  # what those calls cost when recorded: reported, never new spend
    recorded_at: str | None  # the oldest replayed call's date
    miss: str | None
    note: str | None = None  # why the cassette was not written
    action: Action | None = None  # what a recording run did with the file; None: replay only


class Tape:
    """One item's cassette file, opened under a mode, for one act."""

    def __init__(
        self,
        path: Path,
        mode: Mode,
        key: list[KeyPart],
        item: dict[str, Any],
        *,
        root: Path | None = None,
        today: str | None = None,
        origin: Origin | None = None,
        fixes: tuple[str, str] = (_RECORD_FIX, _RERECORD_FIX),
    ) -> None:
        self.path = path
        # Nothing below it may be a link (files.cassette_root); by default the file's own.
        self.root = path.parent if root is None else root
        self.mode = mode
        self.key = key
        self.item = item
        self.today = today or datetime.now(UTC).date().isoformat()
        self.origin = origin  # written into the file: a reuse store's entry (store.py)
        # What a stale or unusable file's message advises: record again, or re-record.
        self.record_fix, self.rerecord_fix = fixes
        self.found: CassetteFile | None = None  # the recording read, when there was one
        self.refusal: str | None = None  # why the act must not start (mode none)
        self.miss_text: str | None = None
        self.closed = False
        self.rerecorded: str | None = None  # why a replaying call recorded afresh (once)
        self.unkept: str | None = None  # why what was measured cannot be kept (too large)
        self._recorded: dict[Seat, list[StoredCall]] = {"runner": [], "judge": []}
        self._stale: set[Seat] = set()
        self._cursor: dict[Seat, int] = {"runner": 0, "judge": 0}
        self._calls: list[SeatCall] = []
        self._lock = threading.RLock()
        self._load()

    def _load(self) -> None:
        try:
            if self.mode == "all":  # the old file is never read, but never written through
                check_place(self.path, self.root)
                return
            stored = read_cassette(self.path, self.root)
        except LinkRefused as exc:  # before the act: nothing is spent on what cannot be kept
            self.refusal = f"cassette refused: {exc}"
            return
        except CassetteError as exc:
            self.refusal = f"cassette unusable: {exc}; delete it and {self.record_fix}"
            return
        if stored is not None and stored.not_recorded is not None:
            if self.mode == "none":  # the true reason, not "record it first": it was tried
                self.refusal = self._not_recorded(stored.not_recorded, stored)
            return  # once: recorded over, as a missing file is
        if stored is None:
            if self.mode == "none":
                self.refusal = (
                    f"no cassette for this case at {self.path} (--skill-lens-record none "
                    "replays only and never calls a model); record it first with "
                    "--skill-lens-record once"
                )
            return
        stale = stale_parts(stored.key, self.key)
        if "runner" in stale:  # the whole run changes, so its verdict may too
            self._stale = {"runner", "judge"}
            changes = [*stale["runner"], *stale.get("judge", [])]
        elif "judge" in stale:
            self._stale = {"judge"}
            changes = stale["judge"]
        else:
            changes = []
        if changes and self.mode == "none":
            self.refusal = (
                f"cassette miss: {self.path} was recorded for another version of this case: "
                f"{'; '.join(changes)}; {self.record_fix}"
            )
            return
        self.found = stored
        for call in stored.calls:
            if call.seat not in self._stale:
                self._recorded[call.seat].append(call)

    def _not_recorded(self, note: NotRecorded, stored: CassetteFile) -> str:
        stale = stale_parts(stored.key, self.key)
        changes = [*stale.get("runner", []), *stale.get("judge", [])]
        since = f"; since then {'; '.join(changes)}" if changes else ""
        return (
            f"not recorded: the case errored when it was recorded (on {note.at}: {note.error}), "
            f"so {self.path} holds no run to replay (--skill-lens-record none never calls a "
            f"model){since}; mend what made it error, then record it with --skill-lens-record once"
        )

    # -- what the runner and the judge ask ------------------------------------------------

    def open_call(self, seat: Seat, by: str) -> SeatCall:
        """The next call of ``seat``: the recorded one at its place, if it is by ``by``."""
        with self._lock:
            self.check_open()
            position = self._cursor[seat]
            self._cursor[seat] += 1
            recorded = self._recorded[seat]
            found = recorded[position] if position < len(recorded) else None
            if found is not None and found.by != by:
                found = None  # another runner's or judge's answer is never replayed
            if found is None and self.mode == "none":
                call = SeatCall(self, seat, by, position, None)
                self._calls.append(call)
                self.miss(
                    f"the cassette holds no {call._label()} (it holds {len(recorded)} "
                    f"{seat} call(s))",
                    later=False,
                )
                raise CassetteMiss(self.miss_text or "cassette miss")
            call = SeatCall(self, seat, by, position, found)
            self._calls.append(call)
            return call

    def check_open(self) -> None:
        if self.closed:  # the act was abandoned at its deadline: nothing more counts
            raise CassetteMiss("the case's act ended; this call's cassette is closed")

    def miss(self, detail: str, *, later: bool, kind: str = "miss") -> None:
        """Note the item's first miss (the rest follow from it). ``later``: the difference
        is past a call's first request, which only a whole re-recording can mend.
        ``kind`` "refused": the recording itself is more than a recording may be."""
        fix = self.rerecord_fix if later else self.record_fix
        with self._lock:
            if self.miss_text is None:
                self.miss_text = f"cassette {kind}: {self.path}: {detail}; {fix}"

    def went_live(self, why: str) -> None:
        with self._lock:
            self.rerecorded = self.rerecorded or why

    def cannot_keep(self, why: str) -> None:
        """What a live call measured cannot be written faithfully (a product's workspace
        over the cassette's bounds): the verdict stands, the file is not written."""
        with self._lock:
            self.unkept = self.unkept or why

    # -- after the act ------------------------------------------------------------------

    def close(self) -> str | None:
        """End the act (a late call of an abandoned act counts no more); the item's miss.

        Replaying only, a run that made fewer calls than were recorded missed too.
        """
        with self._lock:
            self.closed = True
        if self.mode == "none" and self.miss_text is None and self.refusal is None:
            for seat in SEATS:
                made, held = self._cursor[seat], len(self._recorded[seat])
                if made < held:
                    self.miss(
                        f"the run made {made} {seat} call(s); the cassette holds {held}",
                        later=True,
                    )
        return self.miss_text or self.refusal

    def finish(self, *, keep: bool, error: str | None = None) -> TapeReport:
        """What the cassette did for the item; ``keep`` (the item was measured, not
        errored) writes the file with every call that was recorded afresh. An errored
        item's ``error`` goes in a marker where no recording stands (:mod:`.marker`)."""
        missed = self.close()
        calls = list(self._calls)
        replayed = [c.replayed for c in calls if c.replayed is not None]
        report = TapeReport(
            cassette=str(self.path),
            replayed=bool(calls) and len(replayed) == len(calls) and missed is None,
            replayed_calls=len(replayed),
            replayed_usd=sum((c.replayed_usd for c in calls), 0.0),
            recorded_at=min((c.recorded_at for c in replayed), default=None),
            miss=missed,
        )
        if self.mode == "none":
            return report
        if not keep or missed is not None:
            return replace(report, action="not_written", note=self._errored(error or missed))
        action, note = self._save(calls, unchanged=report.replayed)
        return replace(report, action=action, note=note)

    def _errored(self, error: str | None) -> str:
        """Why an errored item's cassette is not written; its marker written where it may."""
        said = f"{self.path}: the case errored" + (f" ({error_line(error)})" if error else "")
        if error is None or self.refusal is not None:  # refused: nothing is written there
            return said
        try:
            if standing(self.path, self.root) == "cassette":
                return f"{said}; the cassette recorded before is left as it was"
            key = {p.name: p.entry() for p in self.key}
            write_cassette(self.path, marker(self.item, key, error, self.today), self.root)
        except (OSError, ValueError, CassetteError) as exc:
            cause = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return f"{said}; no marker could be written in its place either: {cause}"
        return f"{said}; a marker in its place tells a replay so"

    def _save(self, calls: list[SeatCall], *, unchanged: bool) -> tuple[Action, str | None]:
        """What became of the file, and why it was not written."""
        try:
            stored = [c.stored(self.today) for c in calls]
        except ValidationError as exc:  # more requests in a call than a cassette keeps
            return "not_written", f"the cassette {self.path} was not written: {shape_error(exc)}"
        if any(s is None for s in stored):
            return "not_written", f"the cassette {self.path} was not written: a call did not finish"
        if unchanged and self.mode == "once" and not self._stale:
            return "kept", None  # every call replayed under the same key: the file stands
        if self.unkept is not None:
            return "not_written", f"{self.path}: {self.unkept}"
        try:
            cassette = CassetteFile(
                cassette=FORMAT,
                item=self.item,
                key={p.name: p.entry() for p in self.key},
                calls=[s for s in stored if s is not None],
                origin=self.origin,
            )
        except ValidationError as exc:  # more calls than a cassette keeps
            return "not_written", f"the cassette {self.path} was not written: {shape_error(exc)}"
        try:
            write_cassette(self.path, cassette, self.root)
        except (OSError, ValueError, CassetteError) as exc:
            cause = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return "not_written", f"the cassette {self.path} could not be written: {cause}"
        return "written", None


_current: contextvars.ContextVar[Tape | None] = contextvars.ContextVar(
    "skill_lens_tape", default=None
)


def current_tape() -> Tape | None:
    """The cassette of the item acting in this context (the act's thread copies it)."""
    return _current.get()


@contextlib.contextmanager
def using_tape(tape: Tape | None) -> Iterator[None]:
    token = _current.set(tape)
    try:
        yield
    finally:
        _current.reset(token)
