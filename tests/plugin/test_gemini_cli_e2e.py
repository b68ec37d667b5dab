"""The ``gemini-cli`` runner and judge driving the REAL Gemini CLI binary, offline.

``products_on_path`` puts the pinned binary (``npm ci --prefix products``) first on
PATH, and Gemini CLI talks to the scripted Gemini server on 127.0.0.1
(``GOOGLE_GEMINI_BASE_URL``, a placeholder ``GEMINI_API_KEY``). The table names the model
(``-m``), so there is no router side call and the tokens are priced from the model that
answered. Controls come in pairs: a check that passes with the right answer fails with
the wrong one, a skill activation that triggers is matched by a run that does not.
"""

from __future__ import annotations

import pytest
from gemini_server import MODEL, GeminiServer, failure, function_calls, text
from product_harness import GEMINI_TOML, ProductRun, gemini_as_server, gemini_env  # noqa: F401
from product_harness import seen as about
from product_scenarios import (
    GREET_BODY,
    NOT_CALLED,
    call_args_held,
    looks_up_order,
    offered_outcomes_hold,
    reaches_for_the_skill,
)
from product_scenarios import GREETS_WARMLY as GREETS

# slow: starts the real Gemini CLI (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "gemini_env")]

RUNNER = "gemini-cli"
BODY = GREET_BODY
run = ProductRun(RUNNER, body=BODY, toml=GEMINI_TOML)  # skill greet under gemini-cli


def test_a_loaded_case_runs_the_task_as_typed_and_says_the_skill_never_loaded(
    pytester: pytest.Pytester, server: GeminiServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.", usage=(1000, 50))]
    result, outcomes = run(pytester, [GREETS])
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    assert outcome["status"] == "passed"
    assert outcome["output"] == "Hello team, warmly."  # joined from two streamed pieces
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (1000, 50)
    assert outcome["cost_usd"] > 0
    assert outcome["price_source"].startswith(f"list price of google:{MODEL} (genai-prices ")
    assert outcome["price_source"].endswith("; your endpoint may bill differently")
    # Gemini CLI's -p mode sends /greet as typed: the skill never reached the model.
    assert outcome["skill_loaded"] is False
    assert "did not call activate_skill for 'greet'" in outcome["load_note"]
    (request,) = about(server, "greet the team")
    assert "/greet greet the team" in request and "GREET-INSTRUCTIONS" not in request
    assert server.requests[0].model == MODEL  # the table's -m reached the product


def test_a_loaded_case_where_the_model_activates_the_skill_loads_it(
    pytester: pytest.Pytester, server: GeminiServer
) -> None:
    server.by_content["greet the team"] = [
        function_calls([("activate_skill", {"name": "greet"})]),
        text("Hello team, warmly."),
    ]
    result, outcomes = run(pytester, [GREETS])
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    assert (outcome["skill_loaded"], outcome["load_note"]) == (True, None)
    first, second = about(server, "greet the team")
    assert "GREET-INSTRUCTIONS" not in first
    assert "GREET-INSTRUCTIONS" in second  # activate_skill put the text before the model


def test_a_wrong_answer_fails_showing_it(pytester: pytest.Pytester, server: GeminiServer) -> None:
    server.by_content["greet the team"] = [text("Go away.")]
    result, outcomes = run(pytester, [GREETS])
    assert result.ret == 1
    assert outcomes["greets warmly"]["status"] == "failed"
    assert "Go away." in result.stdout.str()


def test_offered_the_activation_triggers_and_its_absence_is_a_measured_negative(
    pytester: pytest.Pytester, server: GeminiServer
) -> None:
    server.by_content["welcome the guest"] = [
        function_calls([("activate_skill", {"name": "greet"})]),
        text("Hello, guest."),
    ]
    server.by_content["two plus two"] = [text("Four.")]
    result, outcomes = run(pytester, [reaches_for_the_skill("activate_skill"), *NOT_CALLED])
    offered_outcomes_hold(result, outcomes)
    # Offered: the listing names the skill, its text arrives only after the call.
    first = about(server, "welcome the guest")[0]
    assert "<name>greet</name>" in first and "GREET-INSTRUCTIONS" not in first


@pytest.mark.parametrize(
    ("order_id", "passes"), [("A-1", True), ("B-2", False)], ids=["right", "wrong"]
)
def test_a_mock_tool_reaches_gemini_through_the_bridge(
    pytester: pytest.Pytester, server: GeminiServer, order_id: str, passes: bool
) -> None:
    # Gemini CLI names a bridged tool "mcp_skill-lens_<name>"; the report maps it back.
    server.by_content["where is order"] = [
        function_calls([("mcp_skill-lens_get_order", {"id": order_id})]),
        text("Here is what I found."),
    ]
    result, outcomes = run(pytester, [looks_up_order()])
    outcome = outcomes["looks the order up"]
    call_args_held(result, outcome, passes)
    answer = "order A-1 shipped" if passes else "no such order"
    last = [r for r in server.requests if "where is order" in r.task][-1]
    assert "mcp_skill-lens_get_order" in last.tool_names()
    # The bridge answered by the case's when: rules; the model saw it in Gemini's wrapper.
    wrapped = f"<untrusted_context>\n{answer}\n</untrusted_context>"
    assert [output for _, output in last.tool_results()] == [wrapped]


def test_the_products_own_error_is_errored_never_failed(
    pytester: pytest.Pytester, server: GeminiServer
) -> None:
    server.by_content["greet the team"] = [failure(400, "scripted refusal")]
    result, outcomes = run(pytester, [GREETS])
    outcome = outcomes["greets warmly"]
    assert outcome["status"] == "errored", result.stdout.str()
    assert "gemini-cli reported an error" in outcome["error"]
    assert "scripted refusal" in outcome["error"]
    assert len(about(server, "greet the team")) == 1  # maxAttempts 1: never retried


def test_a_dotenv_written_by_one_session_never_configures_the_next(
    pytester: pytest.Pytester, server: GeminiServer
) -> None:
    """Gemini CLI reads a working directory's .env for every variable left unset; the
    first session writes one that would replace its system prompt, and the second
    starts with it emptied, and with the skill delivered again."""
    dotenv = (
        "echo HIJACKED-SYSTEM-PROMPT > hijack.md"
        ' && echo "GEMINI_SYSTEM_MD=$PWD/hijack.md" > .env'
        " && echo vandalised > .gemini/skills/greet/SKILL.md"
    )
    server.by_content["first visit"] = [
        function_calls([("run_shell_command", {"command": dotenv, "description": "x"})]),
        text("First done."),
    ]
    server.by_content["second visit"] = [
        function_calls([("activate_skill", {"name": "greet"})]),
        text("Second done, warmly."),
    ]
    cases = [
        {
            "name": "two visits",
            "workspace": {},
            "sessions": ["first visit", "second visit"],
            "assertions": [
                {"kind": "contains", "value": "warmly"},
                {"kind": "file-produced", "file": "hijack.md"},
            ],
        }
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["two visits"]["output"] == "Second done, warmly."
    second = [r for r in server.requests if "second visit" in r.task]
    assert second and all("HIJACKED" not in r.system for r in second)
    assert "<available_skills>" in second[0].system  # its own system prompt
    _, loaded = about(server, "second visit")
    assert "GREET-INSTRUCTIONS" in loaded and "vandalised" not in loaded  # delivered again


def test_a_timeout_is_errored_never_failed_and_its_spend_unknown(
    pytester: pytest.Pytester, server: GeminiServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.")]
    toml = f"{GEMINI_TOML}timeout_seconds = 0.01\n"
    result, outcomes = run(pytester, [GREETS], toml=toml)
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["greets warmly"]
    assert outcome["status"] == "errored"
    assert "gemini-cli timed out after 0.01 s" in outcome["error"]
    assert outcome["usage_note"] == "gemini-cli timed out before reporting token usage"
    assert "the spend is unknown" in outcome["cost_note"]


def test_with_no_model_named_its_router_picks_one_and_the_run_is_priced_by_what_answered(
    pytester: pytest.Pytester, server: GeminiServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.", usage=(400, 20))]
    result, outcomes = run(pytester, [GREETS], toml="")
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    # The router's side call (a JSON answer built from its schema) reported no tokens.
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (400, 20)
    assert outcome["price_source"].startswith(f"list price of google:{MODEL} ")
    side, main = server.requests
    assert not side.streamed and "generationConfig" in side.body
    assert main.streamed and main.model != side.model


def test_a_missing_executable_or_key_is_exit_2_before_any_request(
    pytester: pytest.Pytester, server: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY")
    result, _ = run(pytester, [GREETS])
    assert result.ret == 2
    output = result.stdout.str() + result.stderr.str()
    assert "can sign in only from the environment" in output and "GEMINI_API_KEY" in output
    monkeypatch.setenv("PATH", str(pytester.path / "nothing-here"))
    result, _ = run(pytester, [GREETS])
    assert result.ret == 2
    assert "needs 'gemini', which is not on PATH" in result.stdout.str() + result.stderr.str()
    assert server.requests == []
