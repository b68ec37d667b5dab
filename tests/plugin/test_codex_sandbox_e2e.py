"""The REAL Codex CLI under skill-lens' product sandbox (bwrap), offline.

Inside ours, Codex runs with its own sandbox bypassed (run/products/codex.py says why);
these tests hold that to account: a shell command of the model's writing outside the
working directory is refused by bwrap, one inside it lands.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from product_harness import by_case, run_skill
from responses_server import ResponsesServer, calls, text

from pytest_skill_lens.run.product_sandbox import decide

# slow: starts the real Codex CLI under bwrap (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "codex_env")]

HAS_BWRAP = shutil.which("bwrap") is not None and decide("auto").backend == "bwrap"
TOML = '[runners.codex]\nargs = ["-m", "gpt-5-mini"]\n'


@pytest.fixture
def server() -> Iterator[ResponsesServer]:
    with ResponsesServer() as running:
        yield running


@pytest.fixture
def codex_env(monkeypatch: pytest.MonkeyPatch, server: ResponsesServer) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    for name in ("CODEX_API_KEY", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def host_target() -> Iterator[Path]:
    """A host directory outside the system temporary directory (read-only inside bwrap)."""
    made = Path(tempfile.mkdtemp(prefix="skill-lens-test-target-", dir="/var/tmp"))
    yield made
    shutil.rmtree(made, ignore_errors=True)


@pytest.mark.skipif(not HAS_BWRAP, reason="no working bwrap; .ci/run installs bubblewrap")
def test_a_write_outside_the_working_directory_is_refused_inside_it_lands(
    pytester: pytest.Pytester, server: ResponsesServer, host_target: Path
) -> None:
    outside = host_target / "escaped.txt"
    command = f"echo in > inside.txt; echo pwned > {outside}; cat inside.txt"
    server.by_content["tidy the files"] = [
        calls([("exec_command", {"cmd": command})]),
        text("All done."),
    ]
    cases = [
        {
            "name": "tidies",
            "task": "tidy the files",
            "workspace": {},
            "assertions": [{"kind": "file-produced", "file": "inside.txt"}],
        }
    ]
    toml = f'product_sandbox = "required"\n{TOML}'
    result, report = run_skill(pytester, "codex", cases, skill="tidy", toml=toml)
    assert result.ret == 0, result.stdout.str()
    outcome = by_case(report)["tidies"]
    assert outcome["status"] == "passed", outcome
    assert not outside.exists()
    _, answered = (r for r in server.requests if "tidy the files" in r.task)
    (said,) = answered.tool_results
    assert "Read-only file system" in said, said
    assert report["products"][0]["sandbox"]["backend"] == "bwrap"


def test_under_off_codex_keeps_its_own_sandbox_and_home(
    pytester: pytest.Pytester,
    server: ResponsesServer,
    host_target: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``off``: the user's home (here one outside the temporary directory, as a real home
    is), and Codex's own workspace-write sandbox in place of ours."""
    home = host_target / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    outside = host_target / "escaped.txt"
    command = f"echo in > inside.txt; echo pwned > {outside}; cat inside.txt"
    server.by_content["tidy the files"] = [
        calls([("exec_command", {"cmd": command})]),
        text("All done."),
    ]
    cases = [
        {
            "name": "tidies",
            "task": "tidy the files",
            "workspace": {},
            "assertions": [{"kind": "file-produced", "file": "inside.txt"}],
        }
    ]
    toml = f'product_sandbox = "off"\n{TOML}'
    result, report = run_skill(pytester, "codex", cases, skill="tidy", toml=toml)
    outcome = by_case(report)["tidies"]
    assert outcome["status"] == "passed", result.stdout.str()
    assert not outside.exists()
    _, answered = (r for r in server.requests if "tidy the files" in r.task)
    (said,) = answered.tool_results
    assert "Read-only file system" in said and said.rstrip().endswith("in"), said
    assert list((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))  # the user's own
