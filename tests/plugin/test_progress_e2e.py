"""A long run says what it is doing: the case running, its runner, for how long, how many
are done of how many, the spend against the ceiling and the time left (issue 30, item 4).

On a terminal (a tmux pane, so the screen is asserted as rendered) a status line below
pytest's own updates in place and is gone when the run ends or is interrupted; without
one (CI) a plain line comes at an interval; ``-q`` shows none; under ``-n 2`` the
controller shows its workers' cases, under ``--skill-lens-concurrency`` every case in
flight. The runner sleeps a couple of seconds per case, as a model does; no assertion
depends on how long anything took beyond "a while".
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file
from terminal_session import TerminalSession

# slow: runs that sleep, in tmux and in subprocesses (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX")]

SLOW_RUNNER = """
import os
import sys
import time
from pathlib import Path

import pytest

from pytest_skill_lens.run.result import RunResult

HERE = Path(__file__).parent


class Slow:
    # Sleeps as long as the task's first word says, as a model taking seconds would.
    name = "slow"

    def run(self, skill, case, workspace):
        time.sleep(float(case.task.split()[0]))
        return RunResult(output="done", cost_usd=0.01, model="slow")


def pytest_skill_lens_runners(config):
    return {"slow": lambda context: Slow()}


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        (HERE / "pid").write_text(str(os.getpid()))


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    loaded = "pytest_skill_lens.plugin.progress" in sys.modules
    (HERE / "progress-at-collection").write_text(str(loaded))
"""

STATUS = re.compile(
    r"\[skill-lens\] (?P<done>\d+)/(?P<total>\d+) done \| running (?P<running>.+?)"
    r" \| spent \$(?P<spent>\d+\.\d{4})(?P<ceiling> of \$1\.00 ceiling)?"
    r"(?: \| ~(?P<left>\d+)s left)?$"
)
RUNNING = re.compile(r"greet :: (\w+) \(slow\) for (\d+)s")


def _tree(pytester: pytest.Pytester, seconds: float, names: list[str]) -> Path:
    write_file(pytester.path / "conftest.py", SLOW_RUNNER)
    cases = [
        {
            "name": name,
            "task": f"{seconds} {name}",
            "assertions": [{"kind": "contains", "value": "done"}],
        }
        for name in names
    ]
    make_skill(pytester.path / "skills", "greet", cases)
    return pytester.path


# In a child process, with a hang guard.
SLOW = LensRun(runner="slow", options=("-p", "no:cacheprovider"), subprocess=True, timeout=120)


def _argv(*args: str) -> list[str]:
    """The command line of a real pytest process running :data:`SLOW` (for a terminal)."""
    return [sys.executable, "-m", "pytest", *SLOW.argv(*args)]


def _statuses(lines: list[str]) -> list[re.Match[str]]:
    return [m for line in lines if (m := STATUS.search(line.strip()))]


def test_a_terminal_shows_a_status_line_below_pytests_and_leaves_none(
    pytester: pytest.Pytester,
) -> None:
    root = _tree(pytester, 2.5, ["first", "second", "third"])
    argv = _argv("--skill-lens-max-spend", "1")
    with TerminalSession(argv, root) as terminal:
        # A case running after one has finished: the count, the estimate and the spend.
        lines = terminal.wait_for(
            lambda lines: any(m["done"] != "0" and m["left"] for m in _statuses(lines)),
            "a status line once a case has finished",
        )
        status = next(m for m in _statuses(lines) if m["done"] != "0")
        assert status["total"] == "3"
        running = RUNNING.findall(status["running"])
        assert len(running) == 1 and running[0][0] in ("second", "third")
        assert status["ceiling"]  # read against the --skill-lens-max-spend ceiling
        assert float(status["spent"]) >= 0.01
        # It sits on the line below pytest's own, which is untouched above it.
        row = next(i for i, line in enumerate(lines) if STATUS.search(line.strip()))
        assert lines[row - 1].startswith("skills/greet/SKILL.md ")

        code, screen = terminal.wait_for_exit()

    assert code == 0, "\n".join(screen)
    assert not any("[skill-lens]" in line for line in screen), "\n".join(screen)
    # pytest's own line, whole: three dots and its [100%], on one line as pytest wrote it.
    assert any(re.fullmatch(r"skills/greet/SKILL\.md \.\.\. +\[100%\]", ln) for ln in screen)
    assert any(re.search(r"=+ 3 passed in ", line) for line in screen)


def test_ctrl_c_on_a_terminal_stops_the_run_and_its_status_line(
    pytester: pytest.Pytester,
) -> None:
    root = _tree(pytester, 30, ["first", "second"])
    with TerminalSession(_argv(), root) as terminal:
        terminal.wait_for(lambda lines: bool(_statuses(lines)), "a status line")
        terminal.send_keys("C-c")
        code, screen = terminal.wait_for_exit()

    assert code == 2, "\n".join(screen)
    assert any("KeyboardInterrupt" in line for line in screen), "\n".join(screen)
    assert not any("[skill-lens]" in line for line in screen), "\n".join(screen)


def test_without_a_terminal_a_plain_line_comes_at_the_interval(
    pytester: pytest.Pytester,
) -> None:
    root = _tree(pytester, 2, ["first", "second"])
    result = SLOW(pytester, "--skill-lens-progress-interval", "0.5")

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    assert "\x1b" not in out and "\r" not in out  # plain text: a CI log shows it as is
    statuses = _statuses(result.stdout.lines)
    assert {m["done"] for m in statuses} == {"0", "1"}
    assert {m["total"] for m in statuses} == {"2"}
    assert {RUNNING.search(m["running"])[1] for m in statuses} == {"first", "second"}  # type: ignore[index]
    assert any(m["left"] for m in statuses if m["done"] == "1")
    assert not any(m["ceiling"] for m in statuses)  # no ceiling set: spend alone
    # pytest's own result line is still there, whole.
    assert any(
        re.fullmatch(r"skills/greet/SKILL\.md +\. +\[100%\]", ln) for ln in result.stdout.lines
    )
    # Only the run needs the display: collection never imports it.
    assert (root / "progress-at-collection").read_text() == "False"


@pytest.mark.parametrize(
    "quiet", [["-q"], ["--skill-lens-progress-interval", "0"]], ids=["-q", "interval-0"]
)
def test_quiet_or_interval_zero_shows_no_progress(
    pytester: pytest.Pytester, quiet: list[str]
) -> None:
    _tree(pytester, 1.5, ["first", "second"])
    result = SLOW(pytester, "--skill-lens-progress-interval", "0.3", *quiet)

    assert result.ret == 0, result.stdout.str()
    assert "[skill-lens]" not in result.stdout.str()


def test_the_xdist_controller_shows_its_workers_cases(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    _tree(pytester, 2.5, ["one", "two", "three", "four"])
    result = SLOW(pytester, "-n", "2", "--skill-lens-progress-interval", "0.5")

    assert result.ret == 0, result.stdout.str()
    statuses = _statuses(result.stdout.lines)
    assert statuses, result.stdout.str()
    assert {m["total"] for m in statuses} <= {"4"}
    # Both workers' cases at once, each named with its runner.
    assert any(len(set(RUNNING.findall(m["running"]))) == 2 for m in statuses), result.stdout.str()
    assert any(m["done"] in ("1", "2", "3") for m in statuses)


def test_concurrency_shows_every_case_in_flight(pytester: pytest.Pytester) -> None:
    _tree(pytester, 2.5, ["one", "two", "three"])
    args = ("--skill-lens-concurrency", "3", "--skill-lens-progress-interval", "0.5")
    result = SLOW(pytester, *args)

    assert result.ret == 0, result.stdout.str()
    statuses = _statuses(result.stdout.lines)
    names = [{name for name, _ in RUNNING.findall(m["running"])} for m in statuses]
    assert {"one", "two", "three"} in names, result.stdout.str()


def test_sigterm_without_a_terminal_stops_the_lines_with_the_run(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    root = _tree(pytester, 30, ["first", "second"])
    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        process = subprocess.Popen(
            _argv("--skill-lens-progress-interval", "0.3"),
            cwd=root,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while "[skill-lens]" not in out.read_text() and time.monotonic() < deadline:
                time.sleep(0.1)
            os.kill(process.pid, signal.SIGTERM)
            code = process.wait(timeout=60)
        finally:
            process.kill()
    text = out.read_text()

    assert code == 2, text
    head, _, tail = text.partition("SIGTERM received")
    assert "[skill-lens] 0/2 done | running greet :: first (slow)" in head
    assert tail and "[skill-lens]" not in tail, text


@pytest.mark.parametrize(
    ("args", "toml", "said"),
    [
        (
            ["--skill-lens-progress-interval", "soon"],
            "",
            "--skill-lens-progress-interval expects a number, got 'soon'",
        ),
        (
            ["--skill-lens-progress-interval", "-1"],
            "",
            "--skill-lens-progress-interval must be at least 0, got -1.0",
        ),
        ([], "progress_interval_seconds = -1\n", "progress_interval_seconds must be at least 0"),
    ],
)
def test_a_bad_interval_is_refused_before_anything_runs(
    pytester: pytest.Pytester, args: list[str], toml: str, said: str
) -> None:
    _tree(pytester, 0, ["first"])
    (pytester.path / "skill-lens.toml").write_text(toml, encoding="utf-8")
    result = replace(SLOW, subprocess=False)(pytester, *args)

    assert result.ret == 2
    assert said in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "progress-at-collection").exists()  # nothing was collected
