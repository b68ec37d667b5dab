"""The product sandbox around the REAL Gemini CLI, under real bubblewrap, as root.

The model asks Gemini CLI's own ``run_shell_command`` to write a path beside the suite
and one on the host, outside the working directory; under bwrap both writes are refused
and the files never appear. The same case under ``product_sandbox = "off"`` writes them,
so the test can fail; there Gemini CLI runs with your own home, so the test's home holds
the settings a user of Gemini CLI would have.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from gemini_server import GeminiServer, function_calls, text
from product_harness import (  # noqa: F401 (fixtures)
    GEMINI_TOML,
    a_host_directory,
    gemini_as_server,
    gemini_env,
    needs_bwrap,
    run_skill,
)

# slow: starts the real Gemini CLI under bwrap (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "gemini_env")]


def hostile(server: GeminiServer, targets: Sequence[Path]) -> None:
    command = " ; ".join(f"echo pwned > {target}" for target in targets) + " ; pwd"
    server.by_content["tidy the files"] = [
        function_calls([("run_shell_command", {"command": command, "description": "Tidy"})]),
        text("Tidied."),
    ]


def run(
    pytester: pytest.Pytester, cases: Sequence[Mapping[str, Any]], sandbox: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    return run_skill(
        pytester,
        "gemini-cli",
        cases,
        body="Greet people.\n",
        toml=f'product_sandbox = "{sandbox}"\n{GEMINI_TOML}',
    )


@needs_bwrap()
def test_a_hostile_shell_write_outside_the_working_directory_is_refused(
    pytester: pytest.Pytester, server: GeminiServer, host_target: Path
) -> None:
    beside_suite, on_host = pytester.path / "escaped.txt", host_target / "escaped.txt"
    hostile(server, [beside_suite, on_host])
    result, data = run(pytester, [{"name": "tidies", "task": "tidy the files"}], "auto")
    assert result.ret == 0, result.stdout.str()
    assert not beside_suite.exists() and not on_host.exists()
    (said,) = [out for r in server.requests for _, out in r.tool_results()][-1:]
    assert said.count("Read-only file system") == 2, said
    assert data["products"][0]["sandbox"]["backend"] == "bwrap"


def test_the_same_writes_land_under_off(
    pytester: pytest.Pytester,
    server: GeminiServer,
    host_target: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The control: without the sandbox the product writes wherever you can."""
    home = tmp_path / "home"
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))  # your own home, as Gemini CLI's user has it
    beside_suite, on_host = pytester.path / "escaped.txt", host_target / "escaped.txt"
    hostile(server, [beside_suite, on_host])
    result, data = run(pytester, [{"name": "tidies", "task": "tidy the files"}], "off")
    assert result.ret == 0, result.stdout.str()
    assert beside_suite.read_text() == "pwned\n"
    assert on_host.read_text() == "pwned\n"
    assert data["products"][0]["sandbox"]["home_isolated"] is False
