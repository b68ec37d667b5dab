"""The ``codex`` runner and judge driving the REAL Codex CLI binary, offline.

``products_on_path`` puts the pinned binary (``npm ci --prefix products``) first on PATH;
Codex talks to the scripted Responses API server on 127.0.0.1 (responses_server.py)
through the provider entry the preset makes of ``OPENAI_BASE_URL``, with a placeholder
key. The table tells it the model (``-m gpt-5-mini``), by which its tokens are priced.
Controls come in pairs: a check that passes with the right answer fails with the wrong
one, a skill read that triggers is matched by a run that does not read it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from product_harness import (  # noqa: F401 (fixtures)
    CODEX_TOML,
    ProductRun,
    by_case,
    codex_env,
    responses_as_server,
    run_skill,
)
from product_harness import requests_about as about
from product_scenarios import (
    GREET_BODY,
    NOT_CALLED,
    ORDERS,
    TWO_VISITS,
    checks,
    looks_up_order,
    offered_outcomes_hold,
    reaches_for_the_skill,
)
from product_scenarios import GREETS_WARMLY as GREETS
from responses_server import ResponsesServer, calls, text
from skillfactory import QUIET_PLUGINS

from pytest_skill_lens.score.judges.product import CLOSING

# slow: starts the real Codex CLI (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "codex_env")]

RUNNER = "codex"
BODY = GREET_BODY
TOML = CODEX_TOML
LIST_PRICE = "list price of openai:gpt-5-mini (genai-prices "
run = ProductRun(RUNNER, body=BODY, toml=TOML)  # skill greet under codex: outcomes by case name


def test_a_loaded_case_mentions_the_skill_and_codex_loads_it(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["greet the team"] = [
        text("Hello team, warmly.", usage=(1000, 20), cached=400)
    ]
    result, outcomes = run(pytester, [GREETS])
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    assert outcome["status"] == "passed" and outcome["output"] == "Hello team, warmly."
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (1000, 20)
    assert outcome["skill_loaded"] is True  # Codex's session log holds the <skill> message
    assert outcome["cost_usd"] > 0
    assert outcome["price_source"].startswith(LIST_PRICE)
    assert outcome["price_source"].endswith("; your endpoint may bill differently")
    (request,) = about(server, "greet the team")
    assert request.task == "$greet greet the team"
    assert "GREET-INSTRUCTIONS" in request.user_text  # the mention put the skill in front


def test_a_loaded_case_fails_when_the_answer_lacks_the_expected_text(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["greet the team"] = [text("Go away.")]
    result, outcomes = run(pytester, [GREETS])
    assert result.ret == 1
    assert outcomes["greets warmly"]["status"] == "failed"
    assert "Go away." in result.stdout.str()


def test_an_offered_skill_read_by_a_command_is_triggered_and_loaded_and_not_read_is_not(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    read = calls([("exec_command", {"cmd": "cat .agents/skills/greet/SKILL.md"})])
    server.by_content["welcome the guest"] = [read, text("Hello, guest.")]
    server.by_content["what is two plus two"] = [text("Four.")]
    result, outcomes = run(pytester, [reaches_for_the_skill("exec_command"), *NOT_CALLED])
    offered_outcomes_hold(result, outcomes)
    first, second = about(server, "welcome the guest")
    assert "greet" in first.system and "GREET-INSTRUCTIONS" not in json.dumps(first.body)
    assert any("GREET-INSTRUCTIONS" in answer for answer in second.tool_results)


@pytest.mark.parametrize(("order_id", "passes"), [("A-1", True), ("B-2", False)])
def test_a_mock_tool_through_the_bridge_with_call_args_right_and_wrong(
    pytester: pytest.Pytester, server: ResponsesServer, order_id: str, passes: bool
) -> None:
    server.by_content["where is order"] = [
        calls([("mcp__skill_lens__get_order", {"id": order_id})]),
        text("Order news."),
    ]
    result, outcomes = run(pytester, [looks_up_order()], skill="orders")
    outcome = outcomes["looks the order up"]
    assert outcome["error"] is None, outcome["error"]
    assert checks(outcome) == {"called:get_order": True, "call_args[0]": passes}
    assert result.ret == (0 if passes else 1)
    first, second = about(server, "where is order")
    assert "mcp__skill_lens__get_order" in first.tool_names
    answer = "order A-1 shipped" if passes else "no such order"
    assert any(answer in result_text for result_text in second.tool_results)


def test_a_model_it_was_not_told_is_not_priced(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.")]
    result, outcomes = run(pytester, [GREETS], toml="")
    outcome = outcomes["greets warmly"]
    assert outcome["status"] == "passed", result.stdout.str()
    assert (outcome["cost_usd"], outcome["price_source"]) == (0.0, "not priced")
    assert "-m in [runners.codex] args" in outcome["cost_note"]


def test_a_failing_endpoint_is_errored_with_codexs_words(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    # Nothing scripted for the task: the server answers 400 and Codex fails the turn.
    result, outcomes = run(pytester, [GREETS])
    outcome = outcomes["greets warmly"]
    assert outcome["status"] == "errored", result.stdout.str()
    assert "codex reported an error" in outcome["error"]


def test_codex_records_and_replays_with_no_process(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.", usage=(300, 9))]
    result, recorded = run(pytester, [GREETS], "--skill-lens-record", "once")
    assert result.ret == 0, result.stdout.str()
    asked = len(server.requests)
    result, replayed = run(pytester, [GREETS], "--skill-lens-record", "none")
    assert result.ret == 0, result.stdout.str()
    assert len(server.requests) == asked  # nothing started
    first, again = recorded["greets warmly"], replayed["greets warmly"]
    assert again["replayed"] is True and first["replayed"] is False
    for key in ("output", "input_tokens", "output_tokens", "cost_usd", "skill_loaded"):
        assert again[key] == first[key], key


def verdict(passed: bool) -> str:
    checked = [{"id": "r1", "passed": passed, "evidence": "'order 1234' is named"}]
    return "```json\n" + json.dumps({"checks": checked}) + "\n```"


def test_codex_grades_a_pass_and_a_fail_with_no_shell(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["refund order 1234"] = [text(verdict(True), usage=(50, 5))]
    server.by_content["cancel order 1234"] = [text(verdict(False), usage=(50, 5))]
    cases = [
        {"name": name, "task": task, "judge": {"rubric": ["The reply names order 1234"]}}
        for name, task in (("kind", "refund order 1234"), ("curt", "cancel order 1234"))
    ]
    result, report = run_skill(
        pytester, "fake", cases, skill="order-support", toml=f'judge = "codex"\n{TOML}'
    )
    outcomes = by_case(report)
    assert result.ret == 1, result.stdout.str()
    assert (outcomes["kind"]["status"], outcomes["curt"]["status"]) == ("passed", "failed")
    (request,) = about(server, "refund order 1234")
    assert request.task.rstrip().endswith(CLOSING)
    assert "exec_command" not in request.tool_names  # judging, Codex has no shell
    (score,) = [s for s in outcomes["kind"]["scores"] if s["evaluator"] == "judge"]
    assert score["cost_usd"] > 0


def test_a_run_over_its_timeout_is_errored_naming_it(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["wait for the job"] = [
        calls([("exec_command", {"cmd": "sleep 60"})]),
        text("done"),
    ]
    cases = [{"name": "waits", "task": "wait for the job"}]
    toml = TOML + "timeout_seconds = 3\n"
    result, outcomes = run(pytester, cases, toml=toml)
    outcome = outcomes["waits"]
    assert outcome["status"] == "errored", result.stdout.str()
    assert "codex timed out after 3 s" in outcome["error"]
    assert outcome["price_source"] == "not priced"


def test_sessions_share_the_working_directory_and_each_mentions_the_skill(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["first visit"] = [
        calls([("exec_command", {"cmd": "echo kept > notes.txt"})]),
        text("First done."),
    ]
    server.by_content["second visit"] = [
        calls([("exec_command", {"cmd": "cat notes.txt"})]),
        text("Second done, warmly."),
    ]
    cases = [TWO_VISITS]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["two visits"]
    assert outcome["output"] == "Second done, warmly."
    assert outcome["skill_loaded"] is True
    _, answered = about(server, "second visit")
    assert any("kept" in said for said in answered.tool_results)  # the first one's file
    assert all("GREET-INSTRUCTIONS" in r.user_text for r in server.requests)


def test_the_example_suite_runs_under_codex_offline(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    example = Path(__file__).parents[2] / "examples" / "codex" / "commit-message"
    shutil.copytree(example, pytester.path / "skills" / "commit-message")
    read = calls([("exec_command", {"cmd": "cat .agents/skills/commit-message/SKILL.md"})])
    server.by_content.update(
        {
            "login form": [
                text("fix(auth): raise the login timeout to 30 seconds\n\nSlow links were cut off.")
            ],
            "--dry-run": [read, text("feat(deploy): add a --dry-run flag")],
            "capital of France": [text("Paris")],
        }
    )
    (pytester.path / "skill-lens.toml").write_text(TOML, encoding="utf-8")
    result = pytester.runpytest(
        "--skill-lens", "skills", "--skill-lens-runner", RUNNER, *QUIET_PLUGINS
    )
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=3)
    (loaded,) = about(server, "login form")
    assert "imperative mood" in loaded.user_text  # the mention put the skill's body there


def test_a_spend_ceiling_needs_a_model_to_price_codex_by(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.")]
    result, _ = run(pytester, [GREETS], "--skill-lens-max-spend", "1", toml="")
    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "*max_spend_usd is set, but the spend of runner 'codex' can never be priced: "
            "codex reports tokens but no cost, and [[]runners.codex] args name no model*"
        ]
    )
    assert server.requests == []  # refused before any spend
    result, outcomes = run(pytester, [GREETS], "--skill-lens-max-spend", "1")
    assert result.ret == 0, result.stdout.str()
    assert outcomes["greets warmly"]["cost_usd"] > 0


def test_a_mock_tool_case_replays_its_bridge_calls_with_no_process(
    pytester: pytest.Pytester, server: ResponsesServer
) -> None:
    server.by_content["where is order"] = [
        calls([("mcp__skill_lens__get_order", {"id": "A-1"})]),
        text("Order A-1 shipped."),
    ]
    cases = [
        {
            "name": "looks it up",
            "task": "where is order A-1?",
            "tools": [ORDERS],
            "assertions": [{"kind": "contains", "value": "shipped"}],
            "trajectory": {"call_args": [{"tool": "get_order", "equals": {"id": "A-1"}}]},
        }
    ]
    result, recorded = run(pytester, cases, "--skill-lens-record", "once", skill="orders")
    assert result.ret == 0, result.stdout.str()
    asked = len(server.requests)
    result, replayed = run(pytester, cases, "--skill-lens-record", "none", skill="orders")
    assert result.ret == 0, result.stdout.str()
    assert len(server.requests) == asked
    first, again = recorded["looks it up"], replayed["looks it up"]
    assert again["replayed"] is True
    assert checks(again) == checks(first) == {"contains[0]": True, "call_args[0]": True}
