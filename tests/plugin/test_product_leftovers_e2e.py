"""Nothing a product start left running outlives its call's directory.

Killing a start's process group misses a process in a session of its own, and a whole
bwrap sandbox (``--new-session``), which ``--die-with-parent`` fails to end when the
outer bwrap is killed in its first milliseconds (bubblewrap issue #633: a harness
interrupted as a product starts left a Copilot judge spinning for 53 minutes). So every
process naming the directory is killed before it is removed (run/process/leftovers.py).
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

import pytest
from ordinary_user import User, made_for_the_user, run_as  # noqa: F401 (user_dir)
from product_harness import needs_bwrap

from proc_watch import alive_with
from pytest_skill_lens.run.products.process import run_dir, start, wait_removed

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, setsid")

GONE_WITHIN = 5.0

# Starts a helper in a session of its own (out of the product's group), then exits.
LEAVES_A_HELPER = """\
import subprocess, sys
subprocess.Popen(["sh", "-c", "sleep 300", sys.argv[1]], start_new_session=True)
"""


def test_what_an_unsandboxed_product_left_in_its_own_session_dies_with_its_call() -> None:
    marker = f"skill-lens-helper-{uuid.uuid4().hex}"
    try:
        with run_dir("leaves", sandbox=None) as run:
            env = {"PATH": os.environ["PATH"], "HOME": str(run.home)}
            ran = start(
                [sys.executable, "-c", LEAVES_A_HELPER, marker],
                run=run,
                cwd=run.work,
                env=env,
                timeout=30,
                max_output_bytes=10_000,
            )
            assert ran.finished.exit_code == 0, ran.finished.stderr.data
            # The group kill at the product's exit did not reach it.
            assert alive_with(marker, within=0), "the helper should have outlived the product"
        wait_removed()
        assert alive_with(marker, within=GONE_WITHIN) == []
        assert not run.root.exists()
    finally:
        for pid in alive_with(marker, within=0):
            os.kill(pid, 9)


# Run as its own process (as root, or as nobody), so the start is the user's own.
RACE = """\
import json, os, uuid
from pytest_skill_lens.run.products.process import run_dir, start, wait_removed
from pytest_skill_lens.run.sandbox.product_sandbox import decide
from proc_scan import alive_with

marker = "skill-lens-race-" + uuid.uuid4().hex
sandbox = decide("auto")
assert sandbox.backend == "bwrap", sandbox.detail
escaped = starts = 0
# Timeouts inside bwrap's start: the outer bwrap is killed 0.5-3 ms after it began.
while starts < 400 and escaped < 3:
    with run_dir("race", sandbox=sandbox) as run:
        env = {"PATH": os.environ["PATH"], "HOME": str(run.home)}
        timeout = (0.0005, 0.001, 0.002, 0.003)[starts % 4]
        start(["sh", "-c", "sleep 300", marker], run=run, cwd=run.work, env=env,
              timeout=timeout, max_output_bytes=10_000)
        starts += 1
        escaped += bool(alive_with(marker, within=0.2))
wait_removed()
print(json.dumps({"starts": starts, "escaped": escaped, "left": alive_with(marker, 5.0)}))
"""


@needs_bwrap()
@pytest.mark.parametrize("user", ["root", "ordinary"])
def test_a_sandbox_killed_as_it_starts_leaves_nothing_running(user: User, user_dir: Path) -> None:
    (user_dir / "race_starts.py").write_text(RACE)
    proc_scan = Path(__file__).resolve().parents[1] / "proc_watch.py"
    (user_dir / "proc_scan.py").write_text(proc_scan.read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    temp = user_dir / "system-tmp"
    temp.mkdir()
    env |= {"HOME": str(user_dir), "TMPDIR": str(temp)}  # python -m finds the two modules

    done = run_as(user, user_dir, ["race_starts"], env)

    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    try:
        # Each escape was a whole sandbox the group kill missed; none may be left.
        assert found["left"] == [], found
    finally:
        for pid in found["left"]:
            os.kill(pid, 9)
    print(f"race: {found['escaped']} escapes in {found['starts']} starts")
