"""Wait for a call with a deadline, on one reusable daemon thread.

Python cannot stop a thread, so a call that never returns can only be left
behind: past its deadline the caller gets :class:`DeadlineExceeded`, the busy
thread is abandoned (its late result goes nowhere), and the next call starts a
fresh thread. A call that returns in time leaves its thread waiting for the next
one, so a session pays for one thread, not one per case. The threads are daemons,
so an abandoned call never keeps the process alive at exit.

Ctrl-C still works: the caller waits on an event, which the interrupt breaks.
The interrupted call is abandoned like a late one.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class DeadlineExceeded(Exception):
    """The call did not return within ``seconds``; it was abandoned, not stopped."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not return within {seconds:g} s")
        self.seconds = seconds


class _Job(Generic[T]):
    __slots__ = ("call", "done", "error", "value")

    def __init__(self, call: Callable[[], T]) -> None:
        self.call = call
        self.done = threading.Event()
        self.value: T | None = None
        self.error: BaseException | None = None


def _serve(jobs: queue.SimpleQueue[_Job[Any] | None]) -> None:
    # None ends the thread: it is queued when the thread is abandoned, so a stuck
    # call that finally returns ends its thread instead of taking more work.
    while (job := jobs.get()) is not None:
        try:
            job.value = job.call()
        except BaseException as exc:  # handed to the caller, never printed by a thread hook
            job.error = exc
        finally:
            job.done.set()
        del job


class DeadlineWorker:
    """Runs one call at a time on its thread; made for one calling thread."""

    def __init__(self, name: str = "skill-lens-act") -> None:
        self._name = name
        self._jobs: queue.SimpleQueue[_Job[Any] | None] | None = None
        self._thread: threading.Thread | None = None

    def call(self, fn: Callable[[], T], seconds: float) -> T:
        """``fn()``'s value or exception, or :class:`DeadlineExceeded` after ``seconds``."""
        context = contextvars.copy_context()  # the call sees the caller's context variables
        job: _Job[T] = _Job(lambda: context.run(fn))
        self._ready().put(job)
        try:
            finished = job.done.wait(min(seconds, threading.TIMEOUT_MAX))
        except BaseException:  # Ctrl-C while waiting: the call is left to finish alone
            self._abandon()
            raise
        if not finished:
            self._abandon()
            raise DeadlineExceeded(seconds)
        if job.error is not None:
            raise job.error
        return job.value  # type: ignore[return-value]  # set: the call returned

    def _ready(self) -> queue.SimpleQueue[_Job[Any] | None]:
        if self._jobs is None or self._thread is None or not self._thread.is_alive():
            self._jobs = queue.SimpleQueue()
            self._thread = threading.Thread(
                target=_serve, args=(self._jobs,), name=self._name, daemon=True
            )
            self._thread.start()
        return self._jobs

    def _abandon(self) -> None:
        if self._jobs is not None:
            self._jobs.put(None)
        self._jobs = self._thread = None
