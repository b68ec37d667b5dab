"""Cassettes: record a case's model calls once, replay them for free (``docs/replay.md``).

The store is one JSON file per item (:mod:`.files`), holding the key the item was
recorded under (:mod:`.key`) and every call its runner and judge made, each a list of
request/response exchanges. :class:`~.tape.Tape` is one item's open cassette; the
framework adapters (:mod:`.pydantic_ai`, :mod:`.langchain`) record and replay at the
level the plugin owns, one model request at a time, so the real agent loop, the mock
tools, the workspace and the scoring run exactly as they did when recorded. A product
is recorded one start at a time (:mod:`.product`, :mod:`.workspace_changes`): its
trace, its end, the bridge's calls and what it did to the workspace, replayed through
the same readers with no process started. A case that errored while it was recorded
leaves a marker in its cassette's place (:mod:`.marker`), so a replay says why there is
nothing to replay.
"""

from __future__ import annotations

from .files import CassetteError, cassette_path
from .key import KeyPart
from .seat_call import CassetteMiss, Figures, SeatCall
from .tape import Mode, Tape, TapeReport, current_tape, using_tape

__all__ = [
    "CassetteError",
    "CassetteMiss",
    "Figures",
    "KeyPart",
    "Mode",
    "SeatCall",
    "Tape",
    "TapeReport",
    "cassette_path",
    "current_tape",
    "using_tape",
]
