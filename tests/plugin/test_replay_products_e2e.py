"""Cassettes for the product runners and judges, with the REAL Claude Code and Copilot.

Each test records with ``--skill-lens-record once`` while the scripted Anthropic server
is up and the pinned binaries are on PATH, then stops the server and takes every
directory holding ``claude`` or ``copilot`` off PATH, and replays with
``--skill-lens-record none``: a product that started would not be found, so an
identical outcome is proof that none did. The ``cli`` runner's command is a small
shell script that is deleted before its replay.
"""

from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path

import pytest
from anthropic_server import AnthropicServer, text
from product_harness import (  # noqa: F401 (server)
    CLAUDE_TOML,
    anthropic_as_server,
    point_claude_code_at,
    point_copilot_at,
    run_cases,
    stop,
    without_on_path,
)
from product_scenarios import ORDERS, ORDERS_BODY, ask, same
from skillfactory import QUIET_PLUGINS, make_skill, write_file

# slow: starts the real Claude Code and Copilot (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "product_env")]

SECRET = "sk-skill-lens-test-0123456789abcdef"  # the products' key: never in a cassette


@pytest.fixture
def product_env(monkeypatch: pytest.MonkeyPatch, server: AnthropicServer) -> None:
    """Both products pointed at the scripted server under ``SECRET``; nothing of the machine's."""
    point_claude_code_at(monkeypatch, server.url, SECRET)
    point_copilot_at(monkeypatch, server.url, SECRET)


def without_products(monkeypatch: pytest.MonkeyPatch) -> None:
    """PATH without any directory that holds ``claude`` or ``copilot``."""
    without_on_path(monkeypatch, "claude", "copilot")


# Skill ``orders`` under ``runner``: the outcomes by case name.
run = partial(run_cases, skill="orders", body=ORDERS_BODY)


def cassettes(pytester: pytest.Pytester, skill: str = "orders") -> list[Path]:
    return sorted((pytester.path / "skills" / skill / "evals" / "cassettes").rglob("*.json"))


# --- claude-code -------------------------------------------------------------------------


def test_claude_code_replays_its_trace_bridge_calls_and_files_with_no_process(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    write = "printf 'order A-1 shipped' > answer.txt && rm seed.txt"
    server.by_content["where is order"] = [
        ask("mcp__skill-lens__get_order", {"id": "A-1"}, "toolu_order"),
        ask("Bash", {"command": write, "description": "Write the answer"}, "toolu_write"),
        text("Order A-1 shipped.", usage=(10, 5)),
    ]
    cases = [
        {
            "name": "looks up and writes",
            "task": "where is order A-1?",
            "tools": [ORDERS],
            "workspace": {"files": {"seed.txt": "seeded\n"}},
            "assertions": [
                {"kind": "contains", "value": "shipped"},
                {"kind": "file-produced", "file": "answer.txt"},
                {"kind": "contains", "file": "answer.txt", "value": "order A-1 shipped"},
            ],
            "trajectory": {
                "called": ["get_order"],
                "call_args": [{"tool": "get_order", "equals": {"id": "A-1"}}],
            },
        }
    ]
    result, recorded = run(
        pytester, "claude-code", cases, "--skill-lens-record", "once", toml=CLAUDE_TOML
    )
    assert result.ret == 0, result.stdout.str()
    first = recorded["looks up and writes"]
    assert first["status"] == "passed" and first["cost_usd"] > 0
    (path,) = cassettes(pytester)
    written = path.read_text(encoding="utf-8")
    assert SECRET not in written
    cassette = json.loads(written)
    version = cassette["key"]["runner:version"]
    assert version["what"] == "the claude-code version"
    assert re.fullmatch(r"[0-9.]+ \(Claude Code\)", version["shown"])  # what --version said
    (call,) = cassette["calls"]
    start = call["exchanges"][0]["response"]
    assert start["exit_code"] == 0 and start["cut"] is False
    assert any('"type":"result"' in line for line in start["stdout"]["lines"])
    served = [json.loads(line) for line in start["calls"]["lines"] if line]
    assert {"event": "call", "name": "get_order", "arguments": {"id": "A-1"}} | {
        "answer": "order A-1 shipped",
        "error": None,
        "pid": 1,
    } in served
    changes = {c["path"]: c for c in start["workspace"]}
    assert changes["answer.txt"] == {"path": "answer.txt", "text": "order A-1 shipped"}
    assert changes["seed.txt"] == {"path": "seed.txt", "deleted": True}
    requests = len(server.requests)

    stop(server)
    without_products(monkeypatch)
    result, replayed = run(
        pytester, "claude-code", cases, "--skill-lens-record", "none", "-v", toml=CLAUDE_TOML
    )
    assert result.ret == 0, result.stdout.str()
    same(first, replayed["looks up and writes"])
    assert "PASSED (replayed)" in result.stdout.str()
    # The product line says no sandbox contained anything: nothing was started.
    assert "this run started no product" in result.stdout.str()
    assert len(server.requests) == requests
    assert path.read_text(encoding="utf-8") == written  # replaying never rewrites

    # A changed SKILL.md is a miss naming it; still nothing is started.
    skill_md = pytester.path / "skills" / "orders" / "SKILL.md"
    make_skill(pytester.path / "skills", "orders", cases, body="Answer politely.\n")
    assert "politely" in skill_md.read_text(encoding="utf-8")
    result = pytester.runpytest(
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "claude-code",
        "--skill-lens-json",
        "report.json",
        "--skill-lens-record",
        "none",
        *QUIET_PLUGINS,
    )
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    (missed,) = report["outcomes"]
    assert missed["status"] == "errored"
    assert "cassette miss" in missed["error"] and "SKILL.md changed" in missed["error"]
    assert str(path) in missed["error"]
    assert missed["replayed"] is False


def test_a_product_run_without_a_cassette_is_errored_naming_the_file_and_never_started(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_products(monkeypatch)  # the preflight asks nothing of a product it never starts
    cases = [{"name": "greets", "task": "greet the team"}]
    result, outcomes = run(
        pytester, "claude-code", cases, "--skill-lens-record", "none", toml=CLAUDE_TOML
    )
    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(errors=1)
    error = outcomes["greets"]["error"]
    assert "no cassette for this case at" in error and "greets-" in error
    assert "--skill-lens-record once" in error
    assert server.requests == []
    assert cassettes(pytester) == []


# --- copilot -----------------------------------------------------------------------------


def test_copilot_replays_with_its_usage_file_and_a_changed_returns_is_a_miss(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.by_content["where is order"] = [
        ask("skill-lens-get_order", {"id": "A-1"}, "toolu_order"),
        text("Order A-1 shipped.", usage=(12, 7)),
    ]
    cases = [
        {
            "name": "looks the order up",
            "task": "where is order A-1?",
            "tools": [ORDERS],
            "assertions": [{"kind": "contains", "value": "shipped"}],
            "trajectory": {"call_args": [{"tool": "get_order", "equals": {"id": "A-1"}}]},
        }
    ]
    result, recorded = run(pytester, "copilot", cases, "--skill-lens-record", "once")
    assert result.ret == 0, result.stdout.str()
    first = recorded["looks the order up"]
    # Both requests, from the usage file Copilot writes at exit.
    assert (first["input_tokens"], first["output_tokens"]) == (22, 12)
    (path,) = cassettes(pytester)
    written = path.read_text(encoding="utf-8")
    assert SECRET not in written
    start = json.loads(written)["calls"][0]["exchanges"][0]["response"]
    assert "left" in start  # the usage file Copilot wrote at exit

    stop(server)
    without_products(monkeypatch)
    result, replayed = run(pytester, "copilot", cases, "--skill-lens-record", "none")
    assert result.ret == 0, result.stdout.str()
    same(first, replayed["looks the order up"])

    changed = [{**cases[0], "tools": [{**ORDERS, "returns": "no such order"}]}]
    result, missed = run(pytester, "copilot", changed, "--skill-lens-record", "none")
    assert result.ret == 1
    error = missed["looks the order up"]["error"]
    assert "the returns: of mock tool get_order changed" in error


# --- a product judge -----------------------------------------------------------------------


def test_a_claude_code_judge_replays_its_verdict(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    verdict = {"checks": [{"id": "r1", "passed": True, "evidence": "order 1234 is named"}]}
    server.by_content["handled: refund order 1234"] = [text(json.dumps(verdict), usage=(30, 9))]
    cases = [
        {"name": "grades", "task": "refund order 1234", "judge": {"rubric": ["Names order 1234"]}}
    ]
    toml = f'judge = "claude-code"\n{CLAUDE_TOML}'
    result, recorded = run(pytester, "fake", cases, "--skill-lens-record", "once", toml=toml)
    assert result.ret == 0, result.stdout.str()
    first = recorded["grades"]
    (judged,) = [s for s in first["scores"] if s["evaluator"] == "judge"]
    assert judged["passed"] is True and judged["cost_usd"] > 0
    (path,) = cassettes(pytester)
    (call,) = json.loads(path.read_text(encoding="utf-8"))["calls"]
    assert (call["seat"], call["by"]) == ("judge", "claude-code")

    stop(server)
    without_products(monkeypatch)
    result, replayed = run(pytester, "fake", cases, "--skill-lens-record", "none", toml=toml)
    assert result.ret == 0, result.stdout.str()
    same(first, replayed["grades"])


# --- cli -------------------------------------------------------------------------------------

AGENT = """\
#!/bin/sh
printf 'started\\n' >> {log}
printf 'answer to: %s\\n' "$1" > answer.txt
printf 'got: %s\\n' "$1"
"""


def test_the_cli_runner_replays_with_its_command_gone(pytester: pytest.Pytester) -> None:
    log = pytester.path / "started.log"
    agent = write_file(pytester.path / "agent.sh", AGENT.format(log=log))
    agent.chmod(0o755)
    # Off the product sandbox, so the script can log its starts outside its directory.
    toml = f'product_sandbox = "off"\n[runners.cli]\ncommand = ["{agent}", "{{prompt}}"]\n'
    cases = [
        {
            "name": "answers",
            "task": "say hi",
            "workspace": {},
            "assertions": [
                {"kind": "contains", "value": "got: say hi"},
                {"kind": "contains", "file": "answer.txt", "value": "answer to: say hi"},
            ],
        },
        {"name": "another", "task": "say bye"},
    ]
    result, recorded = run(pytester, "cli", cases[:1], "--skill-lens-record", "once", toml=toml)
    assert result.ret == 0, result.stdout.str()
    assert log.read_text() == "started\n"
    agent.unlink()  # a replay that started the command would fail to find it

    result, replayed = run(pytester, "cli", cases[:1], "--skill-lens-record", "none", toml=toml)
    assert result.ret == 0, result.stdout.str()
    same(recorded["answers"], replayed["answers"])
    assert replayed["answers"]["cost_note"].startswith("the cli runner reports no cost")

    # A case with no cassette is errored under none, naming the file; nothing starts.
    result, missed = run(pytester, "cli", cases, "--skill-lens-record", "none", toml=toml)
    assert result.ret == 1
    assert missed["answers"]["replayed"] is True
    assert "no cassette for this case at" in missed["another"]["error"]
    assert log.read_text() == "started\n"
