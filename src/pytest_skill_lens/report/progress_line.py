"""The progress line a long run shows while cases run (``plugin/progress.py`` draws it).

``[skill-lens] 1/3 done | running greet :: second (slow) for 2s | spent $0.0100 of
$1.00 ceiling | ~20s left``: what is running (each case by the label
every report gives it, which names its runner), for how long, how many are done of how
many, the spend so far (against the ceiling when one is set) and an estimate of what is
left. The estimate is the run's own pace so far (its wall time per finished case), so
it holds under pytest-xdist and ``--skill-lens-concurrency`` alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..formatting import usd
from .printable import one_line

PREFIX = "[skill-lens]"
SHOWN_RUNNING = 3  # cases named; the rest are counted


@dataclass(frozen=True)
class Running:
    label: str  # "<skill> :: <case> (<runner>[, more])", as every report names a run
    seconds: float  # how long it has run


@dataclass(frozen=True)
class ProgressSnapshot:
    finished: int
    total: int | None  # None until known (an xdist controller learns it from its workers)
    running: Sequence[Running]  # oldest first
    elapsed_seconds: float  # since the first case could start
    spent_usd: float
    unpriced: bool  # some spend could not be priced: the figure is not all of it
    ceiling_usd: float | None


def progress_line(snapshot: ProgressSnapshot) -> str:
    """One line, safe to print: no label can move the cursor or start a line of its own."""
    parts = [_done(snapshot)]
    if snapshot.running:
        parts.append("running " + _running(snapshot.running))
    parts.append(_spend(snapshot))
    left = _left(snapshot)
    if left is not None:
        parts.append(f"~{duration(left)} left")
    return f"{PREFIX} " + " | ".join(parts)


def duration(seconds: float) -> str:
    """``4s``, ``1m05s``, ``2h03m``: whole units, never rounded up."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def _done(snapshot: ProgressSnapshot) -> str:
    if snapshot.total is None:  # not known yet: never a made-up total
        return f"{snapshot.finished} done"
    return f"{snapshot.finished}/{snapshot.total} done"


def _running(running: Sequence[Running]) -> str:
    named = [f"{one_line(r.label)} for {duration(r.seconds)}" for r in running[:SHOWN_RUNNING]]
    more = len(running) - SHOWN_RUNNING
    return ", ".join(named) + (f", and {more} more" if more > 0 else "")


def _spend(snapshot: ProgressSnapshot) -> str:
    spent = f"spent ${snapshot.spent_usd:.4f}"
    ceiling = snapshot.ceiling_usd
    if snapshot.unpriced:
        spent += " and some runs unpriced"
        if ceiling is not None:  # the ledger is blind: no spend can be told from none
            spent += f": the {usd(ceiling)} ceiling starts no new case"
        return spent
    return spent if ceiling is None else f"{spent} of {usd(ceiling)} ceiling"


def _left(snapshot: ProgressSnapshot) -> float | None:
    finished, total = snapshot.finished, snapshot.total
    if total is None or finished <= 0 or finished >= total:
        return None
    return snapshot.elapsed_seconds / finished * (total - finished)
