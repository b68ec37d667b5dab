"""SIGTERM unwinds like Ctrl-C, and is passed on to the xdist workers on this machine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from pytest_skill_lens.plugin.terminate import Terminated, install_sigterm
from pytest_skill_lens.plugin.xdist_workers import LocalWorkers

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _node(gateway_id: str, pid: int, *, popen: bool = True, via: str | None = None) -> object:
    info = SimpleNamespace(pid=pid)
    spec = SimpleNamespace(popen=popen, via=via)
    return SimpleNamespace(gateway=SimpleNamespace(id=gateway_id, spec=spec, _rinfo=lambda: info))


def test_only_local_workers_are_known_and_only_while_they_are_up() -> None:
    workers = LocalWorkers()
    workers.came_up(_node("gw0", 4242))
    workers.came_up(_node("gw1", 4343, popen=False))  # ssh or socket: another machine's pid
    workers.came_up(_node("gw2", 4444, via="proxy"))
    workers.came_up(_node("gw3", os.getpid()))  # never this process itself
    workers.came_up(_node("gw4", 0))  # 0 would signal the whole process group
    workers.came_up(SimpleNamespace())  # no gateway at all
    assert list(workers) == [4242]
    workers.went_down(_node("gw0", 4242))
    assert list(workers) == []


def test_a_gateway_that_cannot_say_its_pid_is_left_out() -> None:
    def broken() -> object:
        raise OSError("the channel is closed")

    node = _node("gw0", 1)
    node.gateway._rinfo = broken  # type: ignore[attr-defined]
    workers = LocalWorkers()
    workers.came_up(node)
    assert list(workers) == []


def test_sigterm_is_passed_on_before_the_run_unwinds() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    gone = 999_999_999  # no such process: passing on to it is no error
    restore = install_sigterm([gone, child.pid])
    assert restore is not None
    try:
        with pytest.raises(Terminated):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)  # the handler raises at once; this only bounds a failure
        assert child.wait(10) == -signal.SIGTERM
    finally:
        restore()
        if child.poll() is None:
            child.kill()
            child.wait()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
