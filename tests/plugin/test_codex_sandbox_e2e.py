"""The REAL Codex CLI under skill-lens' product sandbox (bwrap), offline.

Inside ours, Codex runs with its own sandbox bypassed (run/products/codex.py says why);
these tests hold that to account: a shell command of the model's writing outside the
working directory is refused by bwrap, one inside it lands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from product_harness import (  # noqa: F401 (fixtures)
    CODEX_TOML,
    a_host_directory,
    by_case,
    codex_env,
    needs_bwrap,
    requests_about,
    responses_as_server,
    run_skill,
)
from product_scenarios import TIDIES
from responses_server import ResponsesServer, calls, text

# slow: starts the real Codex CLI under bwrap (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "codex_env")]


def tidy(
    pytester: pytest.Pytester, server: ResponsesServer, outside: Path, sandbox: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """The model writes inside.txt and ``outside`` in one command, under ``sandbox``."""
    command = f"echo in > inside.txt; echo pwned > {outside}; cat inside.txt"
    server.by_content[TIDIES["task"]] = [
        calls([("exec_command", {"cmd": command})]),
        text("All done."),
    ]
    toml = f'product_sandbox = "{sandbox}"\n{CODEX_TOML}'
    return run_skill(pytester, "codex", [TIDIES], skill="tidy", toml=toml)


def shell_said(server: ResponsesServer) -> str:
    """What the command printed, as the model read it."""
    _, answered = requests_about(server, TIDIES["task"])
    (said,) = answered.tool_results
    return str(said)


@needs_bwrap()
def test_a_write_outside_the_working_directory_is_refused_inside_it_lands(
    pytester: pytest.Pytester, server: ResponsesServer, host_target: Path
) -> None:
    outside = host_target / "escaped.txt"
    result, report = tidy(pytester, server, outside, "required")
    assert result.ret == 0, result.stdout.str()
    outcome = by_case(report)["tidies"]
    assert outcome["status"] == "passed", outcome
    assert not outside.exists()
    said = shell_said(server)
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
    result, report = tidy(pytester, server, outside, "off")
    outcome = by_case(report)["tidies"]
    assert outcome["status"] == "passed", result.stdout.str()
    assert not outside.exists()
    said = shell_said(server)
    assert "Read-only file system" in said and said.rstrip().endswith("in"), said
    assert list((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))  # the user's own
