"""The spend ledger: which item may still start under ``max_spend_usd``.

One small JSON file, ``{"spent": dollars, "blind": bool}``, under a directory the
controller makes and every xdist worker is told about, read and written under an
exclusive ``flock`` so the ceiling holds across processes. An item starts only while
the recorded spend is below the ceiling and nothing unpriced was recorded (an unpriced
outcome blinds the ledger: from then on no spend could be told apart from none).
Checking and starting are not one step, so each process may start one item the
others' finished items already ruled out: the overshoot is bounded by what was in
flight, one item per process (docs/spend.md).

What the reports say is recomputed from the outcomes at the end (``gate/spend.py``);
the ledger only decides.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..gate.spend import CEILING_STOPPED, spend_of, unpriced_note
from ..perform.outcome import Outcome
from ..run.process.leftovers import PREFIX, owner_mark, remove_tree
from ..run.process.temp_parent import make_dir

LEDGER_FILE = "ledger.json"


class SpendLedger:
    """The ceiling's running account, shared through ``directory``."""

    def __init__(self, ceiling: float, directory: Path) -> None:
        self.ceiling = ceiling
        self.directory = directory
        self.path = directory / LEDGER_FILE

    @classmethod
    def create(cls, ceiling: float) -> SpendLedger:
        """A fresh ledger (the controller's): swept like any leftover if the run is killed."""
        directory = make_dir(f"{PREFIX}ledger-", owner_mark())
        ledger = cls(ceiling, directory)
        ledger.path.write_text(json.dumps({"spent": 0.0, "blind": False}), encoding="utf-8")
        return ledger

    def refusal(self) -> str | None:
        """Why the next item may not start; None while it may."""
        with self._locked() as state:
            if state["blind"] or state["spent"] >= self.ceiling:
                return CEILING_STOPPED
        return None

    def record(self, outcome: Outcome) -> None:
        """Add one finished item's spend, before the process takes its next item."""
        with self._locked() as state:
            state["spent"] = float(state["spent"]) + spend_of(outcome)
            state["blind"] = bool(state["blind"]) or unpriced_note(outcome) is not None

    def spent(self) -> tuple[float, bool]:
        """What is recorded so far: the spend, and whether some of it could not be priced."""
        with self._locked() as state:
            return float(state["spent"]), bool(state["blind"])

    def remove(self) -> None:
        remove_tree(self.directory)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        fd = os.open(self.path, os.O_RDWR | os.O_NOFOLLOW)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            state = _read(fd)
            before = dict(state)
            yield state
            if state != before:
                data = json.dumps(state).encode("utf-8")
                os.ftruncate(fd, 0)
                os.pwrite(fd, data, 0)
        finally:
            os.close(fd)  # closing releases the lock


def _read(fd: int) -> dict[str, Any]:
    raw = os.pread(fd, 4096, 0)
    try:
        state = json.loads(raw or b"{}")
    except ValueError:
        state = {}
    # A ledger that cannot be read refuses, as an unpriced one does: never a free pass.
    if not isinstance(state, dict) or not isinstance(state.get("spent"), int | float):
        return {"spent": 0.0, "blind": True}
    return {"spent": float(state["spent"]), "blind": bool(state.get("blind"))}
