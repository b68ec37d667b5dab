"""The product sandbox around the REAL Claude Code, under real bubblewrap, as root.

Claude Code talks to the scripted Anthropic server on 127.0.0.1 (the sandbox keeps
the network: a product must reach its provider). The hostile case is the model asking
Claude Code's own Bash and Write tools to write host paths outside the working
directory; under bwrap the writes are refused and the files never appear, and the same
case under ``product_sandbox = "off"`` writes them, so the test can fail. Every report
names the product, its version, its executable and the decision's trust sentence.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import AnthropicServer, text, tool_use
from product_harness import (  # noqa: F401 (fixtures)
    CLAUDE_TOML,
    a_host_directory,
    anthropic_as_server,
    needs_bwrap,
    run_skill,
)
from product_scenarios import GREETS_WARMLY

# slow: starts the real products under bwrap (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "claude_env")]

RUNNER = "claude-code"
TOML = CLAUDE_TOML
VERSION = "2.1.332 (Claude Code)"
UNDER_BWRAP = (
    "runs with permission prompts disabled, a temporary home directory and only an "
    "allowlisted environment, under bwrap: it cannot itself change files outside its "
    "working directory and its own temporary directories, or read other skill-lens "
    "temporary directories; it can read anything else you can, reach the network, and ask "
    "system services to act for it; bundled scripts are reachable through the product's "
    "own tools"
)
HOME_ONLY = (
    "runs with permission prompts disabled, a temporary home directory and only an "
    "allowlisted environment; that is not a sandbox: no skill-lens sandbox applies "
    "(bwrap not found on PATH), and the product can read and write anything you can; "
    "bundled scripts are reachable through the product's own tools"
)
OFF = (
    "runs with permission prompts disabled and the full environment; no skill-lens "
    "sandbox applies; bundled scripts are reachable through the product's own tools"
)


def run(
    pytester: pytest.Pytester,
    cases: Sequence[Mapping[str, Any]],
    *args: str,
    sandbox: str = "auto",
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Skill ``greet`` under claude-code and ``product_sandbox = sandbox``; the JSON report.

    In-process, refusals at configure time too (tests/conftest.py's ``pytester``); the
    sandbox probe is cached per PATH, so a test that changes PATH gets a probe of its own.
    """
    return run_skill(
        pytester,
        RUNNER,
        cases,
        *("--skill-lens-markdown", "report.md", "--junitxml", "junit.xml", *args),
        body="Greet people.\n",
        toml=f'product_sandbox = "{sandbox}"\n' + TOML,
    )


def product_line(trust: str) -> str:
    claude = shutil.which("claude")
    return f"product claude-code {VERSION} ({claude}): {trust}"


def assert_every_report_says(
    pytester: pytest.Pytester, result: pytest.RunResult, data: dict[str, Any], trust: str
) -> dict[str, Any]:
    """The product line in the terminal, JUnit and Markdown; the JSON entry, returned."""
    line = product_line(trust)
    assert line in result.stdout.lines
    (product,) = data["products"]
    assert (product["name"], product["version"], product["trust"]) == (RUNNER, VERSION, trust)
    assert product["executable"] == shutil.which("claude")
    junit = ET.parse(pytester.path / "junit.xml").getroot()
    values = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert values["skill-lens.products"] == line
    markdown = (pytester.path / "report.md").read_text(encoding="utf-8")
    assert f"<sub>product claude-code {VERSION} (" in markdown
    return product  # type: ignore[no-any-return]


@needs_bwrap()
@pytest.mark.parametrize("mode", ["auto", "required"])
def test_a_case_passes_under_bwrap_and_every_report_says_so(
    pytester: pytest.Pytester, server: AnthropicServer, mode: str
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.")]
    cases = [GREETS_WARMLY]
    result, data = run(pytester, cases, sandbox=mode)
    assert result.ret == 0, result.stdout.str()
    assert data["outcomes"][0]["status"] == "passed"
    product = assert_every_report_says(pytester, result, data, UNDER_BWRAP)
    assert product["sandbox"] == {
        "mode": mode,
        "backend": "bwrap",
        "home_isolated": True,
        "detail": None,
    }


def hostile_replies(targets: Sequence[Path]) -> list[dict[str, Any]]:
    """The model asks Bash and Write (one turn) to put files at ``targets``; then it is done."""
    bash, write, *_ = targets
    command = f"echo pwned > {bash}; echo in > inside.txt && cat inside.txt"
    return [
        tool_use(
            [
                ("Bash", {"command": command, "description": "Write files"}),
                ("Write", {"file_path": str(write), "content": "pwned\n"}),
            ]
        ),
        text("All done."),
    ]


@needs_bwrap()
def test_a_hostile_write_outside_the_working_directory_is_refused(
    pytester: pytest.Pytester, server: AnthropicServer, host_target: Path
) -> None:
    beside_suite = pytester.path / "escaped-by-bash.txt"  # under /tmp, not skill-lens's
    on_host = host_target / "escaped-by-write.txt"  # outside /tmp
    server.by_content["tidy the files"] = hostile_replies([beside_suite, on_host])
    cases = [{"name": "tidies", "task": "tidy the files"}]
    result, data = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert not beside_suite.exists()
    assert not on_host.exists()
    _, answered = (r for r in server.requests if "tidy the files" in r.task)
    (_, bash_said), (_, write_said) = answered.tool_results()
    assert "Read-only file system" in bash_said, bash_said
    assert bash_said.strip().endswith("in")  # the working directory itself is writable
    assert "read-only file system" in write_said.lower(), write_said
    assert data["products"][0]["trust"] == UNDER_BWRAP


def test_the_same_writes_land_under_off(
    pytester: pytest.Pytester, server: AnthropicServer, host_target: Path
) -> None:
    """The control: without the sandbox the product writes wherever you can."""
    beside_suite = pytester.path / "escaped-by-bash.txt"
    on_host = host_target / "escaped-by-write.txt"
    server.by_content["tidy the files"] = hostile_replies([beside_suite, on_host])
    result, data = run(pytester, [{"name": "tidies", "task": "tidy the files"}], sandbox="off")
    assert result.ret == 0, result.stdout.str()
    assert beside_suite.read_text() == "pwned\n"
    assert on_host.read_text() == "pwned\n"
    product = assert_every_report_says(pytester, result, data, OFF)
    assert product["sandbox"] == {
        "mode": "off",
        "backend": "none",
        "home_isolated": False,
        "detail": 'product_sandbox = "off"',
    }


def only_products_on_path(monkeypatch: pytest.MonkeyPatch, products_on_path: Path) -> None:
    """PATH with the products and nothing else: no bwrap to be found."""
    monkeypatch.setenv("PATH", str(products_on_path))


def test_auto_without_bwrap_is_home_isolation_that_says_why(
    pytester: pytest.Pytester,
    server: AnthropicServer,
    monkeypatch: pytest.MonkeyPatch,
    products_on_path: Path,
) -> None:
    only_products_on_path(monkeypatch, products_on_path)
    server.by_content["greet the team"] = [text("Hello team, warmly.")]
    cases = [GREETS_WARMLY]
    result, data = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    product = assert_every_report_says(pytester, result, data, HOME_ONLY)
    assert product["sandbox"] == {
        "mode": "auto",
        "backend": "none",
        "home_isolated": True,
        "detail": "bwrap not found on PATH",
    }


def test_required_without_bwrap_is_exit_2_before_any_case(
    pytester: pytest.Pytester,
    server: AnthropicServer,
    monkeypatch: pytest.MonkeyPatch,
    products_on_path: Path,
) -> None:
    only_products_on_path(monkeypatch, products_on_path)
    cases = [{"name": "greets", "task": "greet the team"}]
    result, _ = run(pytester, cases, sandbox="required")
    assert result.ret == 2
    said = result.stdout.str() + result.stderr.str()
    assert 'product_sandbox = "required", but no sandbox backend works here: bwrap not found' in (
        said
    )
    assert "install bubblewrap" in said
    assert server.requests == []


WORKERS_SEEN = """
import os

def pytest_runtest_logreport(report):
    node = getattr(report, "node", None)  # on the controller: the worker it came from
    if node is not None and report.when == "call":
        with open("workers.txt", "a", encoding="utf-8") as handle:
            handle.write(node.gateway.id + "\\n")
"""


@needs_bwrap()
def test_under_xdist_every_workers_product_is_contained(
    pytester: pytest.Pytester, server: AnthropicServer, host_target: Path
) -> None:
    # Each xdist worker decides the sandbox in its own configure: the controller's decision
    # is what the reports say, so each worker's product must be held to it too.
    pytester.makeconftest(WORKERS_SEEN)
    cases, targets = [], []
    for n in range(4):
        pair = [pytester.path / f"escaped-by-bash-{n}.txt", host_target / f"escaped-{n}.txt"]
        server.by_content[f"tidy the files {n}"] = hostile_replies(pair)
        cases.append({"name": f"tidies-{n}", "task": f"tidy the files {n}"})
        targets += pair
    result, data = run(pytester, cases, "-n", "2")
    assert result.ret == 0, result.stdout.str()
    seen = (pytester.path / "workers.txt").read_text(encoding="utf-8").split()
    assert sorted(set(seen)) == ["gw0", "gw1"] and len(seen) == 4  # both workers ran cases
    assert [path for path in targets if path.exists()] == []
    answered = [r for r in server.requests if "tidy the files" in r.task and r.tool_results()]
    assert len(answered) == 4
    for request in answered:
        (_, bash_said), (_, write_said) = request.tool_results()
        assert "Read-only file system" in bash_said, bash_said
        assert "read-only file system" in write_said.lower(), write_said
    assert data["products"][0]["trust"] == UNDER_BWRAP
    assert [o["status"] for o in data["outcomes"]] == ["passed"] * 4
