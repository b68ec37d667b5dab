"""A case's mock tools under the REAL Claude Code, through the MCP bridge, offline.

The scripted Anthropic server plays the model: it asks for ``mcp__skill-lens__<name>``
(Claude Code's spelling of a bridge tool), the product calls the bridge the runner
configured, and the bridge answers from ``returns:``. What the model got back is read
from the next request's tool results, so every test sees the whole round trip.
Controls come in pairs: right arguments pass ``call_args``, wrong ones fail it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import AnthropicServer, text, tool_use
from product_harness import CLAUDE_TOML, ProductRun, anthropic_as_server  # noqa: F401 (server)
from product_harness import requests_about as about
from product_scenarios import ORDERS, ORDERS_BODY, ask, call_args_held, looks_up_order
from skillfactory import make_skill, write_file

from pytest_skill_lens.run.products import bridge

# slow: starts the real Claude Code (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "claude_env")]

RUNNER = "claude-code"
TOML = CLAUDE_TOML
PREFIX = "mcp__skill-lens__"
POLL = {"name": "poll", "description": "Poll the job", "returns": ["pending", "done"]}


@pytest.fixture
def temp_dir(monkeypatch: pytest.MonkeyPatch, pytester: pytest.Pytester) -> Path:
    """A system temp dir of this test's own, so what a run leaves there can be listed."""
    directory = pytester.path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    return directory


# Skill "orders" under claude-code: the outcomes by case name.
run = ProductRun(RUNNER, body=ORDERS_BODY, toml=TOML, skill="orders")


def answers(server: AnthropicServer, phrase: str) -> list[str]:
    """What the model got back from its tool calls, in order, in the last request."""
    return [answer for _, answer in about(server, phrase)[-1].tool_results()]


@pytest.mark.parametrize(
    ("order_id", "passes"), [("A-1", True), ("B-2", False)], ids=["right", "wrong"]
)
def test_a_mock_tool_call_passes_call_args_with_the_right_arguments_only(
    pytester: pytest.Pytester, server: AnthropicServer, order_id: str, passes: bool
) -> None:
    server.by_content["where is order"] = [
        tool_use([(f"{PREFIX}get_order", {"id": order_id})]),
        text("Here is what I found."),
    ]
    result, outcomes = run(pytester, [looks_up_order()])
    outcome = outcomes["looks the order up"]
    # called: passes both ways: the call happened, under its declared name.
    call_args_held(result, outcome, passes)
    assert result.ret == (0 if passes else 1)
    # ENABLE_TOOL_SEARCH=false: the tool's schema is in the first request's tool list.
    first = about(server, "where is order")[0]
    [offered] = [tool for tool in first.body["tools"] if tool["name"] == f"{PREFIX}get_order"]
    assert offered["input_schema"]["properties"] == {"id": {"type": "string"}}
    # The bridge answered from returns:, by the one structural matcher.
    expected = "order A-1 shipped" if passes else "no such order"
    assert answers(server, "where is order") == [expected]


def test_a_sequence_answers_in_call_order_and_its_last_entry_repeats(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    polls = [ask(f"{PREFIX}poll", {}, f"toolu_poll{n}") for n in range(3)]
    server.by_content["wait for the job"] = [*polls, text("The job is done.")]
    cases = [
        {
            "name": "polls until done",
            "task": "wait for the job",
            "tools": [POLL],
            "trajectory": {"order": ["poll", "poll"], "max_calls": 3},
        }
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["polls until done"]["status"] == "passed"
    assert answers(server, "wait for the job") == ["pending", "done", "done"]


def test_sessions_each_get_a_fresh_bridge_so_a_sequence_starts_again(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    for n, phrase in enumerate(("first look", "second look")):
        server.by_content[phrase] = [ask(f"{PREFIX}poll", {}, f"toolu_look{n}"), text("Looked.")]
    cases = [
        {
            "name": "two looks",
            "sessions": ["first look", "second look"],
            "workspace": {},
            "tools": [POLL],
            "trajectory": {"order": ["poll", "poll"]},
        }
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert [c["name"] for c in outcomes["two looks"]["tool_calls"]] == ["poll", "poll"]
    # One bridge would have answered "done" the second time.
    assert answers(server, "first look") == ["pending"]
    assert answers(server, "second look") == ["pending"]


def test_a_product_that_never_lists_the_tools_is_errored_never_a_pass(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    # --safe-mode switches MCP off; the scripted model asks for the tool anyway, so the
    # trace alone would pass called: for a tool the product never had.
    server.by_content["where is order"] = [
        tool_use([(f"{PREFIX}get_order", {"id": "A-1"})]),
        text("Here is what I found."),
    ]
    cases = [
        {
            "name": "looks the order up",
            "task": "where is order A-1?",
            "tools": [ORDERS],
            "trajectory": {"called": ["get_order"]},
        }
    ]
    result, outcomes = run(pytester, cases, toml=TOML + 'args = ["--safe-mode"]\n')
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["looks the order up"]
    assert outcome["status"] == "errored"
    assert "claude-code finished without ever starting the MCP bridge" in outcome["error"]
    assert "never offered to the model" in outcome["error"]
    assert outcome["tool_calls"] == []
    assert outcome["cost_usd"] > 0  # what it spent is kept
    assert answers(server, "where is order") == [
        "<tool_use_error>Error: No such tool available: mcp__skill-lens__get_order</tool_use_error>"
    ]


def test_the_bridge_lives_in_the_calls_own_directory_and_is_gone_after_the_run(
    pytester: pytest.Pytester, server: AnthropicServer, temp_dir: Path
) -> None:
    bridge = f"ls {temp_dir}/skill-lens-{os.getuid()}/skill-lens-claude-code-*/skill-lens-bridge-*/"
    server.by_content["where is order"] = [
        tool_use(
            [
                ("Bash", {"command": bridge, "description": "List the bridge"}),
                ("Bash", {"command": "ls -A", "description": "List the working directory"}),
            ]
        ),
        text("Listed."),
    ]
    cases = [{"name": "lists", "task": "where is order A-1?", "tools": [ORDERS]}]
    result, _ = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    # The bridge's three files; the working directory holds the skill only. (Claude Code
    # may run the two calls in either order.)
    listed = sorted(answer.split() for answer in answers(server, "where is order"))
    assert listed == [[".claude"], ["calls.jsonl", "mcp.json", "spec.json"]]
    assert [p.name for p in temp_dir.iterdir() if p.name.startswith("skill-lens-")] == []


def test_a_bridge_that_cannot_start_is_exit_2_before_any_case(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bridge, "check_bridge", lambda tools: "the MCP bridge check exited 1: boom")
    cases = [{"name": "looks", "task": "where is order A-1?", "tools": [ORDERS]}]
    result, _ = run(pytester, cases)
    assert result.ret == 2
    output = result.stdout.str()
    assert "the MCP bridge that serves mock tools to claude-code does not start" in output
    assert "exited 1: boom" in output
    assert server.requests == []


def test_the_bridge_check_runs_once_per_run_and_never_when_only_listing(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[list[str]] = []

    def spy(tools: Sequence[Any]) -> str | None:
        checked.append([tool.name for tool in tools])
        return None

    monkeypatch.setattr(bridge, "check_bridge", spy)
    make_skill(
        pytester.path / "skills",
        "polling",
        [{"name": "polls", "task": "wait for the job", "tools": [POLL]}],
    )
    cases = [
        {"name": "plain", "task": "say hi"},
        {"name": "looks", "task": "where is order A-1?", "tools": [ORDERS]},
    ]
    result, _ = run(pytester, cases, "--collect-only")
    assert result.ret == 0 and checked == []
    server.by_content.update({"say hi": [text("hi")], "": [text("Nothing to do.")]})
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert len(outcomes) == 3
    assert len(checked) == 1  # two skills, two cases with tools: one start of the bridge


def test_a_wrapper_command_cannot_take_the_bridge_and_tools_are_exit_2(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    wrapper = write_file(pytester.path / "bin" / "wrap", '#!/bin/sh\nexec claude "$@"\n')
    wrapper.chmod(0o755)
    toml = TOML + f'command = ["{wrapper}", "-p", "{{prompt}}"]\n'
    cases = [{"name": "looks", "task": "where is order A-1?", "tools": [ORDERS]}]
    result, _ = run(pytester, cases, toml=toml)
    assert result.ret == 2
    assert "a wrapper is not known to take the MCP bridge's flag" in result.stdout.str()
    assert server.requests == []
