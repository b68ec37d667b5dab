"""SIGTERM, what CI sends when a job is cancelled, unwinds a run the way Ctrl-C does.

Python's default for SIGTERM is to die at once: no fixture teardown, so every
workspace and its seeded files would stay in the temp directory. While a
``--skill-lens`` run is configured, SIGTERM instead raises :class:`Terminated` (a
``KeyboardInterrupt``, which pytest already handles) in the main thread: the
running item stops, every fixture is torn down, the session ends with pytest's
interruption report and exit code 2, never a pass. A second SIGTERM while that
unwinds is ignored, so the cleanup finishes; SIGKILL still stops everything, and
:mod:`..run.process.leftovers` then sweeps at the next run's start.

Under pytest-xdist the controller passes the SIGTERM on to its local workers
(:class:`.xdist_workers.LocalWorkers`), which unwind their running case the same way.
Without that they would go on until xdist's shutdown reached them: a worker finishes
its running case first, and execnet interrupts it only after five seconds, spending
all along.

Only a default disposition is replaced: a handler or an ignore someone else set is
theirs. The previous disposition comes back at unconfigure.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterable
from types import FrameType


class Terminated(KeyboardInterrupt):
    """The run received SIGTERM."""


def install_sigterm(forward_to: Iterable[int] = ()) -> Callable[[], None] | None:
    """Make SIGTERM raise :class:`Terminated`, after passing it on to the processes
    ``forward_to`` names when it arrives; the function that undoes it, or ``None``."""
    sigterm = getattr(signal, "SIGTERM", None)
    if sigterm is None or threading.current_thread() is not threading.main_thread():
        return None  # signal.signal works only in the main thread
    if signal.getsignal(sigterm) is not signal.SIG_DFL:
        return None
    fired = False

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        nonlocal fired
        if fired:
            return  # the first one is unwinding; let the teardown finish
        fired = True
        for pid in forward_to:
            with contextlib.suppress(OSError):  # gone already, or no longer ours to signal
                os.kill(pid, signum)
        raise Terminated("SIGTERM received: stopping the run and deleting its workspaces")

    signal.signal(sigterm, on_sigterm)

    def restore() -> None:
        main = threading.current_thread() is threading.main_thread()
        if main and signal.getsignal(sigterm) is on_sigterm:
            signal.signal(sigterm, signal.SIG_DFL)

    return restore
