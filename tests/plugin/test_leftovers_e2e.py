"""A cancelled run leaves nothing behind: SIGTERM unwinds like Ctrl-C, and after a SIGKILL
the next run removes what the dead one left (but never a live run's directories).

Each test gets its own system temp dir (TMPDIR), so the runs it starts never race
another test's. The runner blocks until it is signalled, after writing a marker file
naming its workspace, so a signal always arrives while a case is running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

# slow: pytest processes signalled and killed, under xdist too (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]

HANG_GUARD = 60.0  # seconds: never reached unless the run hangs

BLOCKING_RUNNER = """
import os
import time
from pathlib import Path

from pytest_skill_lens.run.result import RunResult

MARKS = Path(os.environ["SKILL_LENS_TEST_MARKS"])


class Blocking:
    # Writes <case>.<pid> naming its workspace, then (if told to) waits to be signalled.
    name = "blocking"

    def run(self, skill, case, workspace):
        (MARKS / f"{case.name}.{os.getpid()}").write_text(str(workspace))
        while os.environ.get("SKILL_LENS_TEST_BLOCK"):
            time.sleep(1)
        return RunResult(output="done", model="blocking")


WORKER = []  # this process's xdist worker id (not PYTEST_XDIST_WORKER: the test itself
# may run in an outer xdist worker, whose variable the inner controller inherits)


def pytest_configure(config):
    WORKER[:] = [getattr(config, "workerinput", {}).get("workerid")]


def pytest_keyboard_interrupt(excinfo):
    # What stopped an xdist worker: SIGTERM's Terminated, or execnet's later interrupt.
    if WORKER and WORKER[0]:
        (MARKS.parent / f"stopped-{WORKER[0]}").write_text(type(excinfo.value).__name__)


def pytest_skill_lens_runners(config):
    return {"blocking": lambda context: Blocking()}
"""

SEEDED = {"files": {"data/sales.csv": "region,units\nnorth,120\n", "notes.md": "seeded\n"}}


@pytest.fixture
def temp_root(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = pytester.path / "system-tmp"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    marks = pytester.path / "marks"
    marks.mkdir()
    monkeypatch.setenv("SKILL_LENS_TEST_MARKS", str(marks))
    make_skill(
        pytester.path / "skills",
        "cancel",
        [{"name": f"case{i}", "task": "t", "workspace": SEEDED} for i in range(1, 4)],
    )
    pytester.makeconftest(BLOCKING_RUNNER)
    return root


def parent(root: Path) -> Path:
    """Where every skill-lens temporary directory of this user goes (run/process/temp_parent.py)."""
    return root.resolve() / f"skill-lens-{os.getuid()}"


def ours(root: Path) -> list[str]:
    """What skill-lens left: in the user's parent, and beside it (an earlier layout)."""
    beside = [p for p in root.iterdir() if p.name.startswith("skill-lens-")]
    inside = list(parent(root).iterdir()) if parent(root).is_dir() else []
    return sorted(p.name for p in [*beside, *inside] if p != parent(root))


class Run:
    """One inner pytest run as a subprocess, its output in a file (a pipe could fill up)."""

    def __init__(self, pytester: pytest.Pytester, *args: str, block: bool = True) -> None:
        self.out = pytester.path / f"run-{time.monotonic_ns()}.txt"
        env = dict(os.environ)
        env.pop("SKILL_LENS_TEST_BLOCK", None)
        if block:
            env["SKILL_LENS_TEST_BLOCK"] = "1"
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH")]))
        blocking = LensRun(runner="blocking", options=("-p", "no:cacheprovider"))
        command = [sys.executable, "-m", "pytest", *blocking.argv()]
        with self.out.open("wb") as out:
            self.process = subprocess.Popen(
                [*command, *args], stdout=out, stderr=subprocess.STDOUT, env=env
            )

    def started(self, marks: Path, count: int = 1) -> list[Path]:
        """The workspaces named by this run's first ``count`` markers, once they exist."""
        deadline = time.monotonic() + HANG_GUARD
        while time.monotonic() < deadline:
            # A marker exists a moment before its text does: an empty one is not there yet.
            found = [m.read_text() for m in sorted(marks.iterdir()) if self._mine(m)]
            written = [Path(text) for text in found if text]
            if len(written) >= count:
                return written
            if self.process.poll() is not None:
                pytest.fail(f"the run ended before a case started:\n{self.output()}")
            time.sleep(0.05)
        self.process.kill()
        pytest.fail(f"no case started within {HANG_GUARD} s:\n{self.output()}")

    def _mine(self, mark: Path) -> bool:
        # Marked with the pid of the process that ran the case: this run or its workers.
        pid = int(mark.suffix.lstrip("."))
        return pid == self.process.pid or _parent(pid) == self.process.pid

    def signal(self, signum: int) -> int:
        self.process.send_signal(signum)
        try:
            return self.process.wait(HANG_GUARD)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"the run did not end within {HANG_GUARD} s of the signal")

    def output(self) -> str:
        return self.out.read_text(errors="replace")


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


@pytest.fixture
def runs() -> Iterator[list[Run]]:
    """Every run a test starts; none outlives it."""
    started: list[Run] = []
    yield started
    for run in started:
        if run.process.poll() is None:
            run.process.kill()
            run.process.wait()


def test_sigterm_while_a_case_runs_removes_its_workspace_and_is_not_a_pass(
    pytester: pytest.Pytester, temp_root: Path, runs: list[Run]
) -> None:
    run = Run(pytester)
    runs.append(run)
    (workspace,) = run.started(pytester.path / "marks")
    assert (workspace / "data/sales.csv").is_file()  # seeded, and the case is running
    assert workspace.parent == parent(temp_root)

    code = run.signal(signal.SIGTERM)

    assert code not in (0, -signal.SIGTERM), run.output()
    assert code == pytest.ExitCode.INTERRUPTED
    assert not workspace.exists()
    assert ours(temp_root) == []
    output = run.output()
    assert "SIGTERM" in output
    assert "Traceback" not in output


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="start times come from /proc")
def test_after_sigkill_the_next_run_removes_the_dead_runs_dirs_not_a_live_runs(
    pytester: pytest.Pytester, temp_root: Path, runs: list[Run], tmp_path: Path
) -> None:
    marks = pytester.path / "marks"
    live = Run(pytester, "-k", "case1")
    runs.append(live)
    (live_workspace,) = live.started(marks)
    dead = Run(pytester, "-k", "case2")
    runs.append(dead)
    (dead_workspace,) = dead.started(marks)
    assert dead.signal(signal.SIGKILL) == -signal.SIGKILL
    assert (dead_workspace / "notes.md").is_file()  # a SIGKILL cleans nothing up
    # What the dead run left holds a link out; deleting it must not follow the link.
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep/precious.txt").write_text("still here\n")
    (dead_workspace / "escape").symlink_to(outside)
    (dead_workspace / "data/escape-file").symlink_to(outside / "keep/precious.txt")

    following = Run(pytester, "-k", "case3", block=False)
    runs.append(following)
    assert following.process.wait(HANG_GUARD) == 0, following.output()

    assert not dead_workspace.exists()
    assert (live_workspace / "notes.md").read_text() == "seeded\n"  # a live run keeps its own
    assert (outside / "keep/precious.txt").read_text() == "still here\n"
    assert ours(temp_root) == [live_workspace.name]

    assert live.signal(signal.SIGTERM) == pytest.ExitCode.INTERRUPTED
    assert ours(temp_root) == []


def test_sigterm_to_an_xdist_controller_removes_every_workers_workspace(
    pytester: pytest.Pytester, temp_root: Path, runs: list[Run]
) -> None:
    run = Run(pytester, "-n", "2")
    runs.append(run)
    workspaces = run.started(pytester.path / "marks", count=2)
    assert all((w / "notes.md").is_file() for w in workspaces)

    code = run.signal(signal.SIGTERM)

    assert code not in (0, -signal.SIGTERM), run.output()
    deadline = time.monotonic() + HANG_GUARD  # the workers tear down as they exit
    while ours(temp_root) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ours(temp_root) == [], run.output()
    # The controller passed the SIGTERM on: each worker was stopped by it, not by the
    # interrupt execnet sends a worker still busy seconds into the shutdown.
    stopped = [p.read_text() for p in pytester.path.glob("stopped-*")]
    assert stopped == ["Terminated", "Terminated"], run.output()


def test_a_kept_workspace_is_never_swept_by_a_later_run(
    pytester: pytest.Pytester, temp_root: Path, runs: list[Run]
) -> None:
    write_file(pytester.path / "skill-lens.toml", "")
    first = Run(pytester, "-k", "case1", "--skill-lens-keep-workspace", block=False)
    runs.append(first)
    assert first.process.wait(HANG_GUARD) == 0, first.output()
    (kept,) = [parent(temp_root) / name for name in ours(temp_root)]
    assert (kept / "notes.md").is_file()

    second = Run(pytester, "-k", "case2", block=False)
    runs.append(second)
    assert second.process.wait(HANG_GUARD) == 0, second.output()
    assert ours(temp_root) == [kept.name]
