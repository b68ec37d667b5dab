"""A product's ``--version`` answer is remembered from one session to the next.

A stand-in ``claude`` on PATH counts its ``--version`` starts in a file; each run is a
session of its own (a fresh process), with the system temp dir in the test's directory.
The answer is remembered only for an executable unchanged for ``SETTLED_NS`` (2 s), so
the stand-in is given that long before its first run.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from product_harness import run_skill
from skillfactory import write_file

from pytest_skill_lens.run.products import version_memo

# slow: three sessions in processes of their own, and the stand-in left to settle
pytestmark = pytest.mark.slow

ANSWER = {"type": "result", "subtype": "success", "is_error": False, "result": "hello"}
ANSWER |= {"total_cost_usd": 0.0, "usage": {"input_tokens": 1, "output_tokens": 1}}
CASE = {"name": "hi", "task": "say hi", "assertions": [{"kind": "contains", "value": "hello"}]}
TOML = 'product_sandbox = "off"\n'


@pytest.fixture
def claude(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    counter = pytester.path / "version-starts"
    script = (
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then\n'
        f'  echo start >> "{counter}"\n'
        '  echo "9.9.9 (Stand-in)"\n'
        "  exit 0\n"
        "fi\n"
        f"echo '{json.dumps(ANSWER)}'\n"
    )
    fake = write_file(pytester.path / "bin" / "claude", script)
    fake.chmod(0o755)
    temp = pytester.path / "system-tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # nothing of this test's reaches /tmp
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    return fake


def session(pytester: pytest.Pytester, *args: str) -> tuple[int, dict[str, Any]]:
    """One run in a process of its own: how many --version starts so far, and its report."""
    cases = [CASE, {**CASE, "name": "hi-again"}]
    result, report = run_skill(pytester, "claude-code", cases, *args, toml=TOML, subprocess=True)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    assert "claude-code 9.9.9 (Stand-in)" in result.stdout.str()
    counter = pytester.path / "version-starts"
    return len(counter.read_text().splitlines()), report


def test_a_second_session_does_not_start_the_product_for_its_version(
    pytester: pytest.Pytester, claude: Path
) -> None:
    time.sleep(version_memo.SETTLED_NS / 1e9 + 0.2)  # an executable installed a while ago

    first, report = session(pytester)
    assert first == 1
    (product,) = report["products"]
    assert product["version"] == "9.9.9 (Stand-in)"
    memo = pytester.path / "system-tmp" / f"skill-lens-{os.getuid()}" / version_memo.MEMO_NAME
    assert memo.is_file()

    second, again = session(pytester)
    assert second == 1  # answered from the memo
    assert again["products"] == report["products"]

    subprocess.run(["touch", str(claude)], check=True)  # reinstalled: asked again
    third, _ = session(pytester)
    assert third == 2


def test_deleting_the_memo_forces_a_probe(pytester: pytest.Pytester, claude: Path) -> None:
    time.sleep(version_memo.SETTLED_NS / 1e9 + 0.2)
    assert session(pytester)[0] == 1
    memo = pytester.path / "system-tmp" / f"skill-lens-{os.getuid()}" / version_memo.MEMO_NAME
    memo.unlink()
    assert session(pytester)[0] == 2
    assert session(pytester)[0] == 2


def test_xdist_workers_take_the_controllers_answer(pytester: pytest.Pytester, claude: Path) -> None:
    time.sleep(version_memo.SETTLED_NS / 1e9 + 0.2)
    starts, report = session(pytester, "-n", "2")
    assert starts == 1  # the controller's preflight; each worker's is answered by the memo
    assert report["products"][0]["version"] == "9.9.9 (Stand-in)"
