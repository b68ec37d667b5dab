"""leftovers.kill_marked: only a process whose environment names a dead run's directory."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_skill_lens.run.process.leftovers import (
    RUN_DIR_VARIABLE,
    _start_time,
    kill_marked,
    remove_marked,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


def sleeper(run_dir: str | None) -> subprocess.Popen[bytes]:
    env = {"PATH": "/usr/bin:/bin"}
    if run_dir is not None:
        env[RUN_DIR_VARIABLE] = run_dir
    return subprocess.Popen(["sleep", "300"], env=env)


def test_only_processes_naming_one_of_the_directories_are_killed() -> None:
    dead = sleeper("/tmp/skill-lens-cli-abc.pid-1-2-3")
    alive = sleeper("/tmp/skill-lens-cli-def.pid-1-2-4")
    plain = sleeper(None)
    try:
        killed = kill_marked({"skill-lens-cli-abc.pid-1-2-3"})
        assert killed == [dead.pid]
        assert dead.wait(10) == -9
        time.sleep(0.1)
        assert (alive.poll(), plain.poll()) == (None, None)
    finally:
        for process in (dead, alive, plain):
            process.kill()
            process.wait()


def test_no_names_reads_nothing() -> None:
    assert kill_marked(set()) == []


def test_remove_marked_kills_what_names_the_directory_then_removes_it(tmp_path: Path) -> None:
    directory = tmp_path / "skill-lens-cli-abc.pid-1-2-3"
    directory.mkdir()
    (directory / "trace.jsonl").write_text("{}")
    named = sleeper(str(directory))
    other = sleeper(str(tmp_path / "skill-lens-cli-def.pid-1-2-4"))
    try:
        remove_marked(directory)
        assert named.wait(10) == -9
        assert not directory.exists()
        assert other.poll() is None
    finally:
        for process in (named, other):
            process.kill()
            process.wait()


def test_a_process_started_before_since_is_never_looked_at() -> None:
    name = "skill-lens-cli-abc.pid-1-2-3"
    older = sleeper(f"/tmp/{name}")
    time.sleep(0.05)  # clock ticks are 10 ms
    younger = sleeper(f"/tmp/{name}")
    try:
        since = _start_time(younger.pid)
        assert 0 < _start_time(older.pid) < since

        assert kill_marked({name}, since=since) == [younger.pid]
        assert younger.wait(10) == -9
        assert older.poll() is None
    finally:
        for process in (older, younger):
            process.kill()
            process.wait()


def test_the_sweep_looks_only_at_processes_younger_than_the_dead_owners() -> None:
    from pytest_skill_lens.run.process.leftovers import _earliest

    starts = [300, 200]  # as the marks .pid-1-2-300 and .pid-1-3-200 give them
    assert _earliest(starts) == 200
    assert _earliest([*starts, 0]) == 0  # one unknown: all
    assert _earliest([]) == 0
