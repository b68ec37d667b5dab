"""How each product's tokens are priced, driving the REAL binaries offline.

None of Codex CLI, Gemini CLI and OpenCode reports a cost skill-lens can use: their tokens
are priced at genai-prices' list price of the model each was told (Codex's ``-m``,
OpenCode's ``OPENCODE_MODEL`` or its default) or that answered (Gemini CLI's trace names
it), and the price source says which; a model with no known price is "not priced" with a
note, never $0, and a spend ceiling that could never be held stops the run before any
request. Each product talks to its scripted server on 127.0.0.1 with a placeholder key.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from importlib.metadata import version
from typing import Any

import gemini_server
import genai_prices
import model_server
import pytest
import responses_server
from product_harness import by_case, run_skill

# slow: starts the real products (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path")]

GREETS = {
    "name": "greets warmly",
    "task": "greet the team",
    "assertions": [{"kind": "contains", "value": "warmly"}],
}
ENDPOINT_CAVEAT = "; your endpoint may bill differently"


def list_price(model: str) -> str:
    return f"list price of {model} (genai-prices {version('genai-prices')})"


def cost_of(model: str, provider: str, input_tokens: int, output_tokens: int) -> float:
    usage = genai_prices.Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    return float(genai_prices.calc_price(usage, model, provider_id=provider).total_price)


def run(
    pytester: pytest.Pytester,
    runner: str,
    *args: str,
    cases: Sequence[Mapping[str, Any]] = (GREETS,),
    toml: str = "",
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    result, report = run_skill(pytester, runner, cases, *args, toml=toml)
    return result, by_case(report)


# -- OpenCode: priced by the model it is told ------------------------------------------


@pytest.fixture
def opencode_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[model_server.ScriptedModelServer]:
    """OpenCode pointed at the scripted Chat Completions server, told no model of its own."""
    with model_server.ScriptedModelServer() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.url)
        monkeypatch.setenv("OPENAI_API_KEY", "dummy")
        monkeypatch.delenv("OPENCODE_MODEL", raising=False)
        yield running


@pytest.mark.parametrize("told", ["", "gpt-4o"])
def test_opencode_prices_its_tokens_at_the_list_price_of_the_model_it_is_told(
    pytester: pytest.Pytester,
    opencode_server: model_server.ScriptedModelServer,
    monkeypatch: pytest.MonkeyPatch,
    told: str,
) -> None:
    if told:
        monkeypatch.setenv("OPENCODE_MODEL", told)
    model = told or "gpt-4o-mini"  # OpenCode's default under skill-lens
    opencode_server.by_content["greet the team"] = [text_reply(usage=(1200, 40))]
    result, outcomes = run(pytester, "opencode")
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (1200, 40)
    assert outcome["cost_usd"] == pytest.approx(cost_of(model, "openai", 1200, 40))
    # The endpoint is the scripted server, not OpenAI's: the list price may not apply.
    assert outcome["price_source"] == list_price(f"openai:{model}") + ENDPOINT_CAVEAT
    assert outcome["cost_note"] is None
    assert {request.body["model"] for request in opencode_server.requests} == {model}


def text_reply(usage: tuple[int, int]) -> dict[str, Any]:
    return model_server.text("Hello team, warmly.", usage=usage)


def test_opencode_told_a_model_with_no_known_price_is_not_priced_and_cannot_hold_a_ceiling(
    pytester: pytest.Pytester,
    opencode_server: model_server.ScriptedModelServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENCODE_MODEL", "scripted-model")
    opencode_server.by_content["greet the team"] = [text_reply(usage=(1200, 40))]
    result, _ = run(pytester, "opencode", "--skill-lens-max-spend", "1")
    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "*max_spend_usd is set, but the spend of runner 'opencode' can never be priced: "
            "opencode is told the model 'scripted-model' (OPENCODE_MODEL): genai-prices has "
            "no price for model 'scripted-model'*"
        ]
    )
    assert opencode_server.requests == []  # refused before any spend
    result, outcomes = run(pytester, "opencode")
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    assert (outcome["cost_usd"], outcome["price_source"]) == (0.0, "not priced")
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (1200, 40)
    assert "genai-prices has no price for model 'scripted-model'" in outcome["cost_note"]


def test_opencode_under_a_spend_ceiling_counts_what_it_spent(
    pytester: pytest.Pytester, opencode_server: model_server.ScriptedModelServer
) -> None:
    opencode_server.by_content["greet the team"] = [text_reply(usage=(1200, 40))]
    result, outcomes = run(pytester, "opencode", "--skill-lens-max-spend", "1")
    assert result.ret == 0, result.stdout.str()
    assert outcomes["greets warmly"]["cost_usd"] > 0


# -- Gemini CLI: priced by the model that answered -------------------------------------


def test_gemini_cli_prices_its_tokens_by_the_model_that_answered_not_the_one_told(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with gemini_server.GeminiServer() as server:
        monkeypatch.setenv("GEMINI_API_KEY", "dummy")
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
        for name in ("GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT"):
            monkeypatch.delenv(name, raising=False)
        answered = "gemini-2.5-flash"
        server.by_content["greet the team"] = [
            gemini_server.text("Hello team, warmly.", usage=(1000, 50), model=answered)
        ]
        toml = '[runners.gemini-cli]\nargs = ["-m", "gemini-2.5-pro"]\n'
        result, outcomes = run(pytester, "gemini-cli", toml=toml)
    assert result.ret == 0, result.stdout.str()
    assert [request.model for request in server.requests] == ["gemini-2.5-pro"]
    outcome = outcomes["greets warmly"]
    assert outcome["price_source"] == list_price(f"google:{answered}") + ENDPOINT_CAVEAT
    assert outcome["cost_usd"] == pytest.approx(cost_of(answered, "google", 1000, 50))


# -- Codex CLI: priced by the model its -m names ---------------------------------------


def test_codex_prices_its_tokens_at_the_list_price_of_its_m_flag(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with responses_server.ResponsesServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "dummy")
        for name in ("CODEX_API_KEY", "CODEX_HOME"):
            monkeypatch.delenv(name, raising=False)
        server.by_content["greet the team"] = [
            responses_server.text("Hello team, warmly.", usage=(1500, 30))
        ]
        toml = '[runners.codex]\nargs = ["-m", "gpt-4o-mini"]\n'
        result, outcomes = run(pytester, "codex", toml=toml)
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (1500, 30)
    assert outcome["price_source"] == list_price("openai:gpt-4o-mini") + ENDPOINT_CAVEAT
    assert outcome["cost_usd"] == pytest.approx(cost_of("gpt-4o-mini", "openai", 1500, 30))
