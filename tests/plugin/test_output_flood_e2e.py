"""A process that floods its output is stopped at the cap, not at its timeout.

``yes`` writes as fast as the machine allows. A bundled script running it (under the
model's ``run_script``) and a ``cli`` product running it must each be stopped as soon
as their output passes the cap, with an answer or error that names the cap, and
nothing near the flood's size may reach the disk. A watcher measures the bytes under
the run's own temporary directory all along; past :data:`SAFETY_BYTES` it kills the
flood itself, so a regression fails the test without filling the disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from proc_watch import alive_with

pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

from model_server import ScriptedModelServer, text, tool_calls
from runs import LensRun, Report, served_by
from skillfactory import make_skill, write_file

from pytest_skill_lens.run.sandbox.product_sandbox import decide as decide_product
from pytest_skill_lens.run.sandbox.script_sandbox import decide

# slow: floods of real processes, under a real bwrap where it works
pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX")]

YES = shutil.which("yes")
SAFETY_BYTES = 200_000_000  # the watcher stops a flood that reaches this much on disk
NEAR_CAP = 1_000_000  # what may reach the disk at most (the cap is far smaller)
ENDS_WITHIN = 20.0  # seconds; the timeouts below are far longer
SCRIPT_CAP = 20_000
PRODUCT_CAP = 50_000
BWRAP_SCRIPTS = decide("auto").backend == "bwrap"
BWRAP_PRODUCTS = decide_product("auto").backend == "bwrap"


class DiskWatch:
    """The most bytes seen under ``root`` while the run went on, sampled every few ms."""

    def __init__(self, root: Path, marker: str) -> None:
        self.root, self.marker, self.most = root, marker, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> DiskWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def _watch(self) -> None:
        while not self._stop.is_set():
            size = _bytes_under(self.root)
            self.most = max(self.most, size)
            if size > SAFETY_BYTES:  # a regression: end the flood before it fills the disk
                for pid in alive_with(self.marker, within=0):
                    _kill(pid)
            time.sleep(0.005)


def _kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, 9)


def _bytes_under(root: Path) -> int:
    total = 0
    for directory, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(directory, name)).st_blocks * 512
            except OSError:
                continue
    return total


@pytest.fixture
def temp_root(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The run's own system temporary directory: what it writes, and nothing else, is there."""
    root = pytester.path / "system-tmp"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", str(root))  # the in-process run's cached one
    yield root


def report_of(pytester: pytest.Pytester) -> Report:
    return Report.read(pytester.path / "report.json")


# -- a bundled script ----------------------------------------------------------------------


@pytest.mark.skipif(YES is None, reason="needs yes(1)")
@pytest.mark.parametrize(
    "sandbox",
    [
        pytest.param(
            "auto", marks=pytest.mark.skipif(not BWRAP_SCRIPTS, reason="no working bwrap")
        ),
        "off",
    ],
)
def test_a_script_running_yes_is_stopped_at_the_cap(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    temp_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    sandbox: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", f"sk-test-{uuid.uuid4().hex}")
    marker = f"flood-{uuid.uuid4().hex}"
    task = "Run the flood script."
    cases = [{"name": "floods", "task": task, "workspace": {"files": {"a.txt": "a\n"}}}]
    skill = make_skill(pytester.path / "skills", "flood", cases)
    write_file(skill / "scripts" / "flood.sh", f"exec {YES} {marker}\n")
    call = json.dumps({"path": "scripts/flood.sh", "args": []})
    server.script[task] = [tool_calls([("run_script", call)]), text("done")]
    write_file(
        pytester.path / "skill-lens.toml",
        "retry_backoff_seconds = 0.0\nscript_timeout_seconds = 120\n"
        f'script_sandbox = "{sandbox}"\nmax_script_output_bytes = {SCRIPT_CAP}\n'
        'script_interpreters = { sh = ["bash"] }\n',
    )

    began = time.monotonic()
    with DiskWatch(temp_root, marker) as watch:
        lens = LensRun(runner="pydantic-ai", json="report.json")
        result = lens(pytester, *served_by(server.url), "--skill-lens-allow-scripts")
    took = time.monotonic() - began

    assert report_of(pytester)["outcomes"][0]["status"] == "passed", result.stdout.str()
    [answer] = [m["content"] for m in server.for_task(task)[-1].messages("tool")]
    head, _, rest = answer.partition("\nstdout:\n")
    assert head == f"stopped: the output passed max_script_output_bytes ({SCRIPT_CAP:,} bytes)"
    body, _, tail = rest.partition("\n... [")
    assert body == (f"{marker}\n" * SCRIPT_CAP)[:SCRIPT_CAP]
    assert tail.startswith(f"truncated at {SCRIPT_CAP:,} bytes: the script was stopped]")
    assert took < ENDS_WITHIN
    assert watch.most < NEAR_CAP, f"{watch.most:,} bytes reached the disk"
    assert alive_with(marker) == []


# -- a cli product ---------------------------------------------------------------------------


@pytest.mark.skipif(YES is None, reason="needs yes(1)")
@pytest.mark.parametrize(
    "sandbox",
    [
        pytest.param(
            "auto", marks=pytest.mark.skipif(not BWRAP_PRODUCTS, reason="no working bwrap")
        ),
        "off",
    ],
)
def test_a_cli_product_running_yes_is_stopped_at_the_cap(
    pytester: pytest.Pytester, temp_root: Path, sandbox: str
) -> None:
    marker = f"flood-{uuid.uuid4().hex}"
    make_skill(pytester.path / "skills", "flood", [{"name": "floods", "task": "go"}])
    command = json.dumps([YES, marker, "{prompt}"])
    write_file(
        pytester.path / "skill-lens.toml",
        f'product_sandbox = "{sandbox}"\n[runners.cli]\ncommand = {command}\npass_env = []\n'
        f"timeout_seconds = 300\nmax_output_bytes = {PRODUCT_CAP}\n",
    )

    began = time.monotonic()
    with DiskWatch(temp_root, marker) as watch:
        result = LensRun(runner="cli", json="report.json")(pytester)
    took = time.monotonic() - began

    assert result.ret == 1, result.stdout.str()
    [outcome] = report_of(pytester)["outcomes"]
    assert outcome["status"] == "errored"
    assert f"max_output_bytes ({PRODUCT_CAP:,} bytes)" in outcome["error"]
    assert "timed out" not in outcome["error"]
    assert took < ENDS_WITHIN
    assert watch.most < NEAR_CAP, f"{watch.most:,} bytes reached the disk"
    assert alive_with(marker) == []
