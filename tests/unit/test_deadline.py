"""run/deadline.py: a call waited for with a deadline, on one reusable daemon thread.

No test asserts how long anything took; the only waits are hang guards.
"""

from __future__ import annotations

import contextvars
import threading

import pytest

from pytest_skill_lens.run.deadline import DeadlineExceeded, DeadlineWorker

GUARD = 30.0  # seconds: a hang guard, never a figure the code must beat


def test_a_call_that_returns_gives_its_value_on_the_same_thread_every_time() -> None:
    worker = DeadlineWorker()
    threads = [worker.call(threading.current_thread, GUARD) for _ in range(3)]
    assert threads[0] is not threading.current_thread()
    assert threads[0].daemon  # never keeps the process alive at exit
    assert threads[0] is threads[1] is threads[2]  # reused, not one thread per call


def test_an_exception_is_raised_in_the_caller() -> None:
    worker = DeadlineWorker()

    def boom() -> None:
        raise KeyError("x")

    with pytest.raises(KeyError, match="x"):
        worker.call(boom, GUARD)
    assert worker.call(lambda: 5, GUARD) == 5  # the thread survives it


def test_a_base_exception_is_raised_in_the_caller_too() -> None:
    worker = DeadlineWorker()

    def leave() -> None:
        raise SystemExit(3)

    with pytest.raises(SystemExit):
        worker.call(leave, GUARD)


def test_past_the_deadline_the_call_is_abandoned_and_its_late_value_never_seen() -> None:
    worker = DeadlineWorker()
    release = threading.Event()
    late: list[str] = []

    def stuck() -> str:
        release.wait(GUARD)
        late.append("returned")
        return "late"

    first = worker.call(threading.current_thread, GUARD)
    with pytest.raises(DeadlineExceeded) as raised:
        worker.call(stuck, 0.05)
    assert raised.value.seconds == 0.05
    # The next call does not wait behind the stuck one: a fresh thread serves it.
    second = worker.call(threading.current_thread, GUARD)
    assert second is not first and second.daemon
    release.set()
    first.join(GUARD)  # the abandoned thread ends once its call returns
    assert not first.is_alive()
    assert late == ["returned"]
    assert worker.call(lambda: "fresh", GUARD) == "fresh"  # not the abandoned "late"


def test_the_call_sees_the_callers_context_variables() -> None:
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    var.set("from the caller")
    assert DeadlineWorker().call(var.get, GUARD) == "from the caller"


def test_an_enormous_deadline_is_waited_for_not_refused() -> None:
    assert DeadlineWorker().call(lambda: 1, 1e300) == 1
