"""While cases run, say what is running: a long run never looks hung (docs/reports.md).

A model that takes seconds per call leaves pytest's line of dots still for minutes, and
a CI log looks hung. So the process that reports (a plain run, or the pytest-xdist
controller, which hears each worker's ``pytest_runtest_logstart``) keeps a small
account from pytest's own hooks: each case running and since when, how many have
finished, of how many. A timer thread reads it, with the spend so far (the ceiling's
ledger when one is set, else the outcomes received), and shows
:func:`..report.progress_line.progress_line`: a status line redrawn in place on a
terminal, a plain line every ``progress_interval_seconds`` elsewhere
(:mod:`.progress_screen`). ``-q``, or an interval of 0, shows nothing.

The timer writes only while pytest's reporter cannot be writing:

* in a plain run, from the moment an item's start is written until its first report
  is about to be (its setup, where a case acts); the report hook closes that window
  under the lock the timer writes under, and erases the status line first;
* on an xdist controller, whose reporter writes when a worker's event arrives, at any
  time but inside those hooks, which hold the lock while they run;
* under live logging (``--log-cli-level``), whose records a case writes from the thread
  it acts on, never while one is being written: the timer also holds the lock pytest's
  live-logging handler writes each record under, so a line never joins a record nor
  reads pytest's line as it was before one. (The status line redrawn in place is not
  drawn then at all: records stream where it would sit, see :func:`_live_terminal`.)

Per item that is a dictionary update and a flag; all writing is the timer's. It stops
with the run loop however that ends: at the end, on ``-x``, on Ctrl-C and on SIGTERM
(which unwinds like Ctrl-C, :mod:`.terminate`).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import os
import sys
import threading
import time
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ..gate.spend import spend_of, unpriced_note
from ..report.progress_line import ProgressSnapshot, Running, progress_line
from .items import CaseItem
from .progress_screen import Output, PlainLines, Screen, StatusLine

if TYPE_CHECKING:
    from .state import SessionState

PLUGIN_NAME = "skill-lens-progress"
REDRAW_SECONDS = 0.5  # a terminal's status line: its clock moves, its cost stays nil
_TICK_SECONDS = 1.0  # at most this late past its interval comes a plain line
_STOP_WAIT = 5.0  # seconds: the timer never holds the lock for longer than one write
_log = logging.getLogger(__name__)


@contextlib.contextmanager
def shown_progress(state: SessionState, session: pytest.Session) -> Iterator[None]:
    """Progress shown for the run loop this wraps, when this process reports and may."""
    progress = _progress_for(state, session)
    if progress is None:
        yield
        return
    manager = state.config.pluginmanager
    manager.register(progress.hooks, PLUGIN_NAME)
    progress.start()
    try:
        yield
    finally:
        progress.stop()
        manager.unregister(progress.hooks)


def _progress_for(state: SessionState, session: pytest.Session) -> Progress | None:
    config = state.config
    interval = state.run.settings.progress_interval_seconds
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if interval == 0 or reporter is None or config.get_verbosity() < 0:
        return None
    writer = config.get_terminal_writer()
    output = Output(getattr(writer, "_file", None) or sys.stdout)  # the file pytest writes to
    screen: Screen
    if _live_terminal(config, output):
        screen, period, every = StatusLine(output, writer), min(REDRAW_SECONDS, interval), 0.0
    else:
        screen, period, every = PlainLines(output, reporter), min(_TICK_SECONDS, interval), interval
    progress = Progress(state, screen, output, period, every)
    progress.log_lock = _live_log_lock(config)
    if config.pluginmanager.has_plugin("dsession"):  # pytest-xdist's controller
        progress.hooks = ControllerHooks(progress)  # the total comes with the first worker's
    else:
        progress.total = sum(1 for item in session.items if isinstance(item, CaseItem))
        progress.hooks = ItemHooks(progress)
        if state.prefetch is not None:  # started ahead: named by their items
            progress.items = {it.nodeid: it for it in session.items if isinstance(it, CaseItem)}
    return progress


def _live_terminal(config: pytest.Config, output: Output) -> bool:
    """A status line redrawn in place: on a terminal, unless text that pytest does not
    write could land on it (``-s``, live logging) or the terminal cannot move a cursor."""
    if not output.isatty() or os.environ.get("TERM") == "dumb":
        return False
    if config.getoption("capture", "fd") == "no":
        return False
    return not _live_logging(config)


def _live_logging(config: pytest.Config) -> bool:
    return bool(config.getoption("log_cli_level", None) or config.getini("log_cli"))


def _live_log_lock(config: pytest.Config) -> Any:
    """The lock pytest's live-logging handler (a ``logging.Handler``) writes each record
    under, when live logging is on; None otherwise."""
    if not _live_logging(config):
        return None
    plugin = config.pluginmanager.get_plugin("logging-plugin")
    return getattr(getattr(plugin, "log_cli_handler", None), "lock", None)


def is_case(nodeid: str) -> bool:
    """Whether a node id is a case's: ``<dir>/SKILL.md::<case>[<runner>...]``."""
    return nodeid.endswith("]") and ("/SKILL.md::" in nodeid or nodeid.startswith("SKILL.md::"))


class Progress:
    """The account of running and finished cases, and the timer that shows it."""

    def __init__(
        self, state: SessionState, screen: Screen, output: Output, period: float, every: float
    ) -> None:
        self.state = state
        self.screen = screen
        self._output = output
        self._period = period  # how often the timer wakes
        self._every = every  # how often it writes (0: whenever it wakes)
        self.lock = threading.Lock()
        self.log_lock: Any = None  # live logging's handler lock, taken after self.lock
        self.writable = False  # pytest's reporter is known not to be writing
        self.running: dict[str, tuple[float, str]] = {}  # node id: (since, label)
        self.finished = 0
        self.total: int | None = None
        self.items: dict[str, pytest.Item] = {}
        self.hooks: object = None
        self._began = self._last_line = time.monotonic()
        self._spent = 0.0  # over the outcomes counted so far (no ceiling: no ledger)
        self._unpriced = False
        self._counted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="skill-lens-progress")
        self._thread.daemon = True  # never keeps a dying process alive

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(_STOP_WAIT)
        # Under the lock: a timer that missed the join writes nothing after this (it checks
        # the stop under the lock), so the descriptor is never reused under its feet.
        if self.lock.acquire(timeout=_STOP_WAIT):
            try:
                self.writable = False
                self.screen.clear()
            except OSError:
                pass  # the terminal is gone: nothing is left on it to erase
            finally:
                self._output.close()
                self.lock.release()

    def started(self, nodeid: str, label: str) -> None:
        prefetch = self.state.prefetch
        ahead = prefetch.started.get(nodeid) if prefetch is not None else None
        self.running[nodeid] = (ahead.started_at if ahead else time.monotonic(), label)

    def finish(self, nodeid: str) -> None:
        if self.running.pop(nodeid, None) is not None:
            self.finished += 1

    def hold(self) -> None:
        """pytest is about to write: no more writing by the timer, and no status left."""
        with self.lock:
            self.writable = False
            if self.screen.shown:
                self.screen.clear()

    # The timer.

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            try:
                self._tick()
            except Exception:  # the display must never take the run down with it
                _log.debug("skill-lens progress stopped", exc_info=True)
                return

    def _tick(self) -> None:
        now = time.monotonic()
        if not self.running or now - self._last_line < self._every:
            return
        ahead = self._started_ahead()  # outside the lock: it may work out item labels
        ledger = self.state.ledger
        recorded = ledger.spent() if ledger is not None else None  # a file under flock
        with self.lock, self._between_log_records() as free:
            if not free or not self.writable or self._stop.is_set():
                return
            snapshot = self._snapshot(ahead, recorded)
            if snapshot.running:
                self.screen.show(progress_line(snapshot))
                self._last_line = now

    @contextlib.contextmanager
    def _between_log_records(self) -> Iterator[bool]:
        """Hold live logging's handler lock, if any: no record is being written meanwhile.
        False when a record held it past the stop's wait (a stuck terminal): skip a line."""
        lock = self.log_lock
        if lock is None:
            yield True
            return
        if not lock.acquire(timeout=_STOP_WAIT):
            yield False
            return
        try:
            yield True
        finally:
            lock.release()

    def _snapshot(
        self, ahead: dict[str, tuple[float, str]], recorded: tuple[float, bool] | None
    ) -> ProgressSnapshot:
        now = time.monotonic()
        running = dict(ahead)
        running.update(self.running)  # one copy, taken whole: the main thread adds and takes
        ordered = sorted(running.values(), key=lambda entry: entry[0])
        if recorded is None:
            self._count_outcomes()
            spent, unpriced = self._spent, self._unpriced
        else:
            spent, unpriced = recorded
        return ProgressSnapshot(
            finished=self.finished,
            total=self.total,
            running=tuple(Running(label, now - since) for since, label in ordered),
            elapsed_seconds=now - self._began,
            spent_usd=spent,
            unpriced=unpriced,
            ceiling_usd=self.state.run.settings.max_spend_usd,
        )

    def _count_outcomes(self) -> None:
        """Add the spend of the outcomes received since the last line (under the lock,
        while the report hooks that record outcomes are not running)."""
        outcomes = self.state.results.outcomes
        new = list(itertools.islice(outcomes.values(), self._counted, None))
        self._counted += len(new)
        self._spent = math.fsum((self._spent, *map(spend_of, new)))
        self._unpriced = self._unpriced or any(unpriced_note(o) is not None for o in new)

    def _started_ahead(self) -> dict[str, tuple[float, str]]:
        """Cases started ahead of their turn and still running (--skill-lens-concurrency)."""
        prefetch = self.state.prefetch
        if prefetch is None or not self.items:
            return {}
        try:
            started = list(prefetch.started.items())  # the main thread adds and takes
        except RuntimeError:  # changed while copied: read again at the next tick
            return {}
        return {
            nodeid: (entry.started_at, self.items[nodeid].location[2])
            for nodeid, entry in started
            if not entry.future.done() and nodeid in self.items
        }


class ItemHooks:
    """A plain run's account: the timer may write from an item's start being written
    until its first report is about to be."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress

    @pytest.hookimpl(trylast=True)  # after pytest's reporter has written the item's start
    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        progress = self._progress
        if is_case(nodeid):
            progress.started(nodeid, location[2])
        progress.writable = True

    @pytest.hookimpl(tryfirst=True)  # before pytest's reporter writes the verdict
    def pytest_runtest_logreport(self) -> None:
        if self._progress.writable:
            self._progress.hold()

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        self._progress.finish(nodeid)


class ControllerHooks:
    """An xdist controller's account: the timer may write but while a hook that pytest
    or xdist writes in runs (each holds the lock)."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        progress.writable = True

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logstart(
        self, nodeid: str, location: tuple[str, int | None, str]
    ) -> Generator[None, object, object]:
        if is_case(nodeid):
            self._progress.started(nodeid, location[2])
        return (yield from self._pytest_writes())

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logreport(
        self, report: pytest.TestReport
    ) -> Generator[None, object, object]:
        if str(report.when) == "???":  # the worker running it crashed: no logfinish comes
            self._progress.finish(report.nodeid)
        return (yield from self._pytest_writes())

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        self._progress.finish(nodeid)

    @pytest.hookimpl(optionalhook=True, wrapper=True, tryfirst=True)
    def pytest_xdist_node_collection_finished(
        self, node: Any, ids: list[str]
    ) -> Generator[None, object, object]:
        if self._progress.total is None:  # every worker collects the same items
            self._progress.total = sum(1 for nodeid in ids if is_case(nodeid))
        return (yield from self._pytest_writes())

    @pytest.hookimpl(optionalhook=True, wrapper=True, tryfirst=True)
    def pytest_testnodedown(self, node: Any, error: object) -> Generator[None, object, object]:
        return (yield from self._pytest_writes())

    def _pytest_writes(self) -> Generator[None, object, object]:
        """Run a writing hook under the lock, the status erased before and pytest's
        buffer flushed after, so no line of ours comes ahead of text pytest holds."""
        progress = self._progress
        with progress.lock:
            if progress.screen.shown:
                progress.screen.clear()
            try:
                return (yield)
            finally:
                progress.state.config.get_terminal_writer().flush()
