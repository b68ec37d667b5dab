"""The ``copilot`` runner driving the REAL Copilot CLI binary, offline.

``products_on_path`` puts the pinned binary (``npm ci --prefix products``) first on
PATH, and Copilot runs in its bring-your-own-model mode (``COPILOT_OFFLINE``,
``COPILOT_PROVIDER_*``) against the scripted Anthropic server on 127.0.0.1. Its first
user message carries a date before the task, so the server answers by a phrase of
the task (``by_content``). Controls come in pairs: a check that passes with the right
answer fails with the wrong one, a skill call that triggers is matched by one that
does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from anthropic_server import AnthropicServer, failure, text, tool_use
from product_harness import ProductRun, anthropic_as_server, seen  # noqa: F401 (server)
from product_scenarios import (
    GREET_BODY,
    GREETS_WARMLY,
    TWO_VISITS,
    a_wrong_answer_fails_showing_it,
    an_offered_skill_called_is_loaded,
    an_offered_skill_not_called_is_a_measured_negative,
    call_args_held,
    looks_up_order,
)

# slow: starts the real Copilot CLI (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "copilot_env")]

RUNNER = "copilot"
BODY = GREET_BODY
PREMIUM = "copilot bills per premium request, not in dollars: this run used 0 premium request(s)"
run = ProductRun(RUNNER, body=BODY)  # skill greet under copilot: outcomes by case name


def test_a_loaded_case_runs_with_the_task_as_typed_and_says_the_skill_never_loaded(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.", usage=(10, 5))]
    cases = [{**GREETS_WARMLY, "budget": {"max_tokens": 1000}}]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()  # the seed's verdict stands
    outcome = outcomes["greets warmly"]
    assert outcome["status"] == "passed"
    assert outcome["output"] == "Hello team, warmly."
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (10, 5)  # the usage file
    assert (outcome["cost_usd"], outcome["cost_note"]) == (0.0, PREMIUM)
    # Copilot's -p mode sends /greet as typed: the skill never reached the model.
    assert outcome["skill_loaded"] is False
    assert "does not expand /greet in -p mode" in outcome["load_note"]
    (request,) = seen(server, "greet the team")
    assert "/greet greet the team" in request and "GREET-INSTRUCTIONS" not in request
    assert "/.agents/skills/greet" not in request  # listed by name only, never loaded
    assert "Skill never loaded: 1 candidate run(s) under copilot" in result.stdout.str()


def test_a_loaded_case_fails_when_the_answer_lacks_the_expected_text(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    result = a_wrong_answer_fails_showing_it(pytester, server, run)
    assert "skill never loaded" in result.stdout.str()


def test_an_offered_case_where_the_model_calls_the_skill_tool(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    an_offered_skill_called_is_loaded(pytester, server, run, skill_tool="skill")


def test_an_offered_case_where_the_model_does_not_call_it_is_a_measured_negative(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    an_offered_skill_not_called_is_a_measured_negative(pytester, server, run)


def test_sessions_share_the_working_directory_and_get_the_skill_delivered_again(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    vandal = "echo vandalised > .agents/skills/greet/SKILL.md && echo kept > notes.txt"
    server.by_content["first visit"] = [
        tool_use([("bash", {"command": vandal, "description": "Overwrite the skill"})]),
        text("First done."),
    ]
    server.by_content["second visit"] = [
        tool_use([("skill", {"skill": "greet"})]),
        text("Second done, warmly."),
    ]
    cases = [TWO_VISITS]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["two visits"]["output"] == "Second done, warmly."
    _, loaded = seen(server, "second visit")
    assert "GREET-INSTRUCTIONS" in loaded and "vandalised" not in loaded  # delivered again
    # The first session never loaded the skill: the case did not run with it throughout.
    assert outcomes["two visits"]["skill_loaded"] is False


def test_cost_is_never_evaluated_and_tokens_are_from_the_usage_file(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.", usage=(10, 5))]
    cases = [
        {
            "name": "within budget",
            "task": "greet the team",
            "budget": {"max_cost_usd": 1.0, "max_tokens": 1000, "max_latency_ms": 600000},
        }
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 1
    (budget,) = [s for s in outcomes["within budget"]["scores"] if s["evaluator"] == "budget"]
    checks = {c["id"]: c for c in budget["checks"]}
    assert checks["max_cost_usd"]["passed"] is False
    assert checks["max_cost_usd"]["evidence"] == f"cost budget not evaluated: {PREMIUM}"
    assert checks["max_tokens"]["passed"] is True
    assert checks["max_tokens"]["evidence"].startswith("used 15 tokens, limit is 1000")
    assert checks["max_latency_ms"]["passed"] is True


def test_a_spend_ceiling_refuses_copilot_before_any_case(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    cases = [{"name": "c", "task": "greet the team"}]
    result, _ = run(pytester, cases, "--skill-lens-max-spend", "1")
    assert result.ret == 2
    output = result.stdout.str() + result.stderr.str()
    assert "the spend of runner 'copilot' can never be priced" in output
    assert server.requests == []


def test_the_products_own_error_is_errored_never_failed(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["greet the team"] = [failure(400, "scripted refusal")]
    result, outcomes = run(pytester, [{"name": "refused", "task": "greet the team"}])
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["refused"]
    assert outcome["status"] == "errored"
    assert outcome["error"] == "copilot reported an error: 400 scripted refusal"


def test_a_timeout_is_errored_never_failed_and_says_the_count_was_never_reported(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.")]
    toml = "[runners.copilot]\ntimeout_seconds = 0.01\n"
    result, outcomes = run(pytester, [{"name": "too slow", "task": "greet the team"}], toml=toml)
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["too slow"]
    assert "copilot timed out after 0.01 s" in outcome["error"]
    assert "the premium-request count was never reported" in outcome["cost_note"]
    assert outcome["usage_note"] == "copilot timed out before reporting token usage"


@pytest.mark.parametrize(
    ("order_id", "passes"), [("A-1", True), ("B-2", False)], ids=["right", "wrong"]
)
def test_a_mock_tool_reaches_copilot_through_the_bridge(
    pytester: pytest.Pytester, server: AnthropicServer, order_id: str, passes: bool
) -> None:
    # Copilot names a bridged tool "skill-lens-<name>"; the report maps it back.
    server.by_content["where is order"] = [
        tool_use([("skill-lens-get_order", {"id": order_id})]),
        text("Here is what I found."),
    ]
    result, outcomes = run(pytester, [looks_up_order()])
    outcome = outcomes["looks the order up"]
    call_args_held(result, outcome, passes)
    answer = "order A-1 shipped" if passes else "no such order"
    # The bridge answered by the case's when: rules, and the model saw that answer.
    last = [r for r in server.requests if "where is order" in r.task][-1]
    assert [text_ for _, text_ in last.tool_results()] == [answer]


def test_a_missing_executable_is_exit_2_before_any_case(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(pytester.path / "nothing-here"))
    result, _ = run(pytester, [{"name": "c", "task": "greet the team"}])
    assert result.ret == 2
    assert "needs 'copilot', which is not on PATH" in result.stdout.str() + result.stderr.str()
    assert server.requests == []


def test_no_way_to_sign_in_under_home_isolation_is_exit_2(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("COPILOT_PROVIDER_BASE_URL", "COPILOT_PROVIDER_API_KEY"):
        monkeypatch.delenv(name)
    result, _ = run(pytester, [{"name": "c", "task": "greet the team"}])
    assert result.ret == 2
    output = result.stdout.str() + result.stderr.str()
    assert "can sign in only from the environment" in output
    assert "COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN" in output
    assert server.requests == []


def test_home_isolation_passes_only_the_first_github_token_and_the_allowlist(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILL_LENS_TEST_SECRET", "leak-me")
    monkeypatch.setenv("GH_TOKEN", "the-copilot-token")
    monkeypatch.setenv("GITHUB_TOKEN", "a-ci-token")
    server.by_content["show the environment"] = [
        tool_use([("bash", {"command": "env", "description": "Print the environment"})]),
        text("Shown."),
    ]
    result, _ = run(pytester, [{"name": "env", "task": "show the environment"}])
    assert result.ret == 0, result.stdout.str()
    _, second = server.requests
    ((_, printed),) = second.tool_results()
    variables = dict(line.partition("=")[::2] for line in printed.splitlines() if "=" in line)
    assert "SKILL_LENS_TEST_SECRET" not in variables
    assert "GITHUB_TOKEN" not in variables  # only the first set token travels
    assert variables["GH_TOKEN"] == "the-copilot-token"  # the first set one travels
    home = variables["HOME"]
    assert "skill-lens-copilot-" in home
    assert variables["TMPDIR"].startswith(home)
    assert not Path(home).exists()  # removed when the call ended
