"""The progress line beside pytest's live logging (``--log-cli-level``): never inside a record.

A runner that logs as it works streams records to the terminal from the thread a case
acts on, while the progress timer writes from its own. A progress line must wait for a
record being written (its words formatted, its line and the live-log section's header
written) and never join one: each line of the output is a whole record or a whole
progress line. The runner here logs a record whose words take a while to format (as a
large object's repr does), then a stream of quick ones.
"""

from __future__ import annotations

import re
import sys

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

# slow: runs that take seconds, in subprocesses (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX")]

CHATTY_RUNNER = """
import logging
import time

from pytest_skill_lens.run.result import RunResult

log = logging.getLogger("agent")


class SlowWords:
    def __str__(self):
        time.sleep(1.5)  # a record whose words take a while, as a large repr does
        return "the slow record"


class Chatty:
    def run(self, skill, case, workspace):
        log.info("begin %s", case.name)
        log.info("%s", SlowWords())
        end = time.monotonic() + 1.0
        step = 0
        while time.monotonic() < end:
            step += 1
            log.info("step %d %s", step, "x" * 60)
            time.sleep(0.002)
        return RunResult(output="done", cost_usd=0.01, model="chatty")


def pytest_skill_lens_runners(config):
    return {"chatty": lambda context: Chatty()}
"""

RECORD = re.compile(r"INFO +agent:conftest\.py:\d+ (begin \w+|the slow record|step \d+ x{60})")
STATUS = re.compile(r"\[skill-lens\] \d/2 done \| running greet :: \w+ \(chatty\) for \d+s.*")
LENS = LensRun(runner="chatty", options=("-p", "no:cacheprovider"), subprocess=True, timeout=120)


def test_progress_lines_wait_for_a_record_and_never_join_one(pytester: pytest.Pytester) -> None:
    write_file(pytester.path / "conftest.py", CHATTY_RUNNER)
    cases = [
        {"name": name, "task": "t", "assertions": [{"kind": "contains", "value": "done"}]}
        for name in ("first", "second")
    ]
    make_skill(pytester.path / "skills", "greet", cases)
    result = LENS(pytester, "--log-cli-level=INFO", "--skill-lens-progress-interval", "0.1")

    assert result.ret == 0, result.stdout.str()
    lines = result.stdout.lines
    assert [line for line in lines if STATUS.fullmatch(line)], result.stdout.str()
    joined = [
        line
        for line in lines
        if ("INFO" in line or "[skill-lens]" in line)
        and not (RECORD.fullmatch(line) or STATUS.fullmatch(line))
    ]
    assert not joined, "\n".join(joined)
    for name in ("first", "second"):
        # While the slow record was being written, no progress line came between.
        begin = next(i for i, line in enumerate(lines) if line.endswith(f" begin {name}"))
        assert lines[begin + 1].endswith(" the slow record"), "\n".join(lines[begin : begin + 4])
