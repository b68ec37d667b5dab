"""A product never outlives a harness killed by SIGKILL, even with no sandbox around it.

Each test starts a pytest run (a subprocess) whose ``cli`` product is a long sleep with
``product_sandbox = "off"``, waits until the product runs, and SIGKILLs pytest: the
product must be gone within seconds. What the product itself started in a session of
its own escapes that; the next run's sweep kills it, as it removes the dead run's
directories. Each test has its own system temporary directory (TMPDIR).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from product_harness import needs_bwrap
from skillfactory import QUIET_PLUGINS, make_skill, write_file

from proc_watch import alive_with

# slow: pytest runs started and killed
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG, /proc"),
]

HANG_GUARD = 60.0  # seconds: never reached unless something hangs
GONE_WITHIN = 5.0
# The product: starts a helper in a session of its own (out of the product's group, so
# neither the group kill nor the death signal reaches it), then sleeps. The helper's
# command line says "helper-<marker>", which the product's own never holds: waiting for
# the bare marker would find the product itself before the helper exists.
PRODUCT = """\
import subprocess, sys, time
child, own = sys.argv[1], sys.argv[2]
if child != "-":
    subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(300)", "helper-" + child],
        start_new_session=True,
    )
if own != "quick":
    time.sleep(300)
print("done")
"""


class Run:
    """One pytest run with the ``cli`` product, as a subprocess, its output in a file."""

    def __init__(
        self, pytester: pytest.Pytester, temp: Path, own: str, child: str, sandbox: str = "off"
    ) -> None:
        product = write_file(pytester.path / "product.py", PRODUCT)
        command = json.dumps([sys.executable, str(product), child, own, "{prompt}"])
        write_file(
            pytester.path / "skill-lens.toml",
            f'product_sandbox = "{sandbox}"\n[runners.cli]\ncommand = {command}\n'
            "timeout_seconds = 600\npass_env = []\n",
        )
        self.out = pytester.path / f"run-{time.monotonic_ns()}.txt"
        env = {**os.environ, "TMPDIR": str(temp)}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH")]))
        argv = [sys.executable, "-m", "pytest", "--skill-lens", "skills"]
        argv += ["--skill-lens-runner", "cli", "-p", "no:cacheprovider", *QUIET_PLUGINS]
        with self.out.open("wb") as out:
            self.process = subprocess.Popen(
                argv, cwd=pytester.path, stdout=out, stderr=subprocess.STDOUT, env=env
            )

    def wait_for(self, marker: str) -> None:
        deadline = time.monotonic() + HANG_GUARD
        while not alive_with(marker, within=0):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                pytest.fail(f"the product never started:\n{self.out.read_text()}")
            time.sleep(0.05)

    def finish(self) -> int:
        try:
            return self.process.wait(HANG_GUARD)
        except subprocess.TimeoutExpired:
            self.process.kill()
            pytest.fail(f"the run did not end:\n{self.out.read_text()}")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        assert self.process.wait(HANG_GUARD) == -signal.SIGKILL


@pytest.fixture
def temp(pytester: pytest.Pytester) -> Path:
    root = pytester.path / "system-tmp"
    root.mkdir()
    make_skill(pytester.path / "skills", "sleepy", [{"name": "sleeps", "task": "sleep"}])
    return root


def marker() -> str:
    return f"skill-lens-test-{uuid.uuid4().hex}"


def ours(root: Path) -> list[str]:
    """What skill-lens left: in the user's parent (run/process/temp_parent.py), and beside it."""
    parent = root.resolve() / f"skill-lens-{os.getuid()}"
    beside = [p for p in root.iterdir() if p.name.startswith("skill-lens-")]
    inside = list(parent.iterdir()) if parent.is_dir() else []
    return sorted(p.name for p in [*beside, *inside] if p != parent)


def test_an_unsandboxed_product_dies_with_a_sigkilled_harness(
    pytester: pytest.Pytester, temp: Path
) -> None:
    own = marker()
    run = Run(pytester, temp, own, "-")
    run.wait_for(own)

    run.kill()

    assert alive_with(own, within=GONE_WITHIN) == [], "the product outlived its harness"


def test_the_next_run_kills_what_the_dead_runs_product_left_and_removes_its_directory(
    pytester: pytest.Pytester, temp: Path
) -> None:
    own, child = marker(), marker()
    dead = Run(pytester, temp, own, child)
    child = f"helper-{child}"  # as the helper's command line has it
    dead.wait_for(child)
    dead.kill()
    assert alive_with(own, within=GONE_WITHIN) == []
    # Its helper escaped the product's group and death signal: it is still there,
    # and so is the dead run's directory.
    left = alive_with(child, within=0)
    try:
        assert left, "the helper should have outlived the product"
        assert any(name.startswith("skill-lens-cli-") for name in ours(temp))

        following = Run(pytester, temp, "quick", "-")
        assert following.finish() == 0, following.out.read_text()

        assert alive_with(child, within=GONE_WITHIN) == [], "the sweep left the helper running"
        assert ours(temp) == []  # the dead run's directories too
    finally:
        for pid in alive_with(child, within=0):
            os.kill(pid, signal.SIGKILL)


@needs_bwrap()
def test_a_sandboxed_product_and_all_it_started_die_with_a_sigkilled_harness(
    pytester: pytest.Pytester, temp: Path
) -> None:
    # No death signal is armed by the harness here: bwrap's --die-with-parent does it, for
    # the sandbox's whole PID namespace (the helper in a session of its own included).
    own, child = marker(), marker()
    run = Run(pytester, temp, own, child, sandbox="required")
    child = f"helper-{child}"
    run.wait_for(child)

    run.kill()

    try:
        assert alive_with(own, within=GONE_WITHIN) == [], "the product outlived its harness"
        assert alive_with(child, within=GONE_WITHIN) == [], "its helper outlived the harness"
    finally:
        for pid in alive_with(child, within=0) + alive_with(own, within=0):
            os.kill(pid, signal.SIGKILL)
