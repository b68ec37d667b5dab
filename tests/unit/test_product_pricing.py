"""How a product's tokens are priced when it reports no cost: at genai-prices' list price
of the model it was told (Codex's ``-m``, OpenCode's ``OPENCODE_MODEL`` or its default),
or of the model that answered (Gemini CLI's trace names it); never $0 when no price is known.
"""

from __future__ import annotations

from pathlib import Path

import genai_prices
import pytest

from pytest_skill_lens.run.models.price_source import NOT_PRICED, problem
from pytest_skill_lens.run.models.pricing import price_table
from pytest_skill_lens.run.products import codex, gemini_cli, opencode
from pytest_skill_lens.run.products.opencode_trace import read_trace
from pytest_skill_lens.run.products.trace import Ending, Expect
from pytest_skill_lens.run.result import RunResult, problems
from pytest_skill_lens.settings import ProductTable, Settings

TRACES = Path(__file__).parent / "traces"
CLEAN = Ending(exit_code=0)
PRICED = "list price of openai:gpt-4o-mini (" + price_table() + ")"


@pytest.fixture(autouse=True)
def _no_endpoint_of_the_machines(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENCODE_MODEL"):
        monkeypatch.delenv(name, raising=False)


def read_opencode(model: str, name: str = "loaded") -> RunResult:
    data = (TRACES / "opencode" / f"{name}.jsonl").read_bytes()
    result = read_trace(data, CLEAN, Expect(mode="loaded", skill="greet", model=model))
    assert problems(result) == []
    return result


# -- the model a product is told -------------------------------------------------------


def test_opencode_is_told_the_model_in_its_variable_else_its_default() -> None:
    preset = opencode.PRESET
    assert preset.told_model(ProductTable(), {"OPENCODE_MODEL": " gpt-4o "}) == "gpt-4o"
    assert preset.told_model(ProductTable(), {"OPENCODE_MODEL": ""}) == opencode.DEFAULT_MODEL
    assert preset.told_model(ProductTable(), {}) == "gpt-4o-mini"
    # A wrapper command of the table's own configures OpenCode itself: the model is unknown.
    wrapped = ProductTable(command=["./my-opencode", "{prompt}"])
    assert preset.told_model(wrapped, {"OPENCODE_MODEL": "gpt-4o"}) == ""


def test_the_model_opencode_is_configured_with_is_the_one_it_is_told() -> None:
    for env in ({"OPENCODE_MODEL": "gpt-4o"}, {}):
        told = opencode.PRESET.told_model(ProductTable(), env)
        assert opencode.config(env)["model"] == f"skill-lens/{told}"


def test_codex_and_gemini_are_told_the_model_by_their_flags_only() -> None:
    table = ProductTable(args=["-m", "gpt-5-mini"])
    assert codex.PRESET.told_model(table, {"OPENCODE_MODEL": "x"}) == "gpt-5-mini"
    assert codex.PRESET.told_model(ProductTable(), {}) == ""
    assert gemini_cli.PRESET.told_model(ProductTable(), {"OPENCODE_MODEL": "x"}) == ""


# -- OpenCode's tokens priced ----------------------------------------------------------


def test_opencode_tokens_are_priced_at_the_told_models_list_price() -> None:
    result = read_opencode("gpt-4o-mini")
    # Two steps: 2700 + 200 fresh input, 400 + 3000 read from the cache, 50 + 11 output
    # and 15 reasoning (billed as output).
    expected = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=6300, cache_read_tokens=3400, output_tokens=76),
        "gpt-4o-mini",
        provider_id="openai",
    ).total_price
    assert result.cost_usd == pytest.approx(float(expected))
    assert result.cost_usd > 0
    assert result.price_source == PRICED
    assert result.cost_note is None
    assert result.model == "gpt-4o-mini"


def test_opencode_at_an_endpoint_of_your_own_says_the_list_price_may_not_apply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    result = read_opencode("gpt-4o-mini")
    assert result.price_source == PRICED + "; your endpoint may bill differently"
    assert result.price_source is not None and problem(result.price_source) is None


def test_opencode_told_a_model_with_no_known_price_is_not_priced_never_free() -> None:
    result = read_opencode("scripted-model")
    assert (result.cost_usd, result.price_source) == (0.0, NOT_PRICED)
    assert result.cost_note is not None
    assert "genai-prices has no price for model 'scripted-model'" in result.cost_note
    assert "skill-lens gives it none" in result.cost_note  # why OpenCode's own cost is none


def test_opencode_told_no_known_model_is_not_priced_with_a_note() -> None:
    result = read_opencode("")
    assert (result.cost_usd, result.price_source) == (0.0, NOT_PRICED)
    assert result.cost_note is not None and "no model" in result.cost_note


def test_opencode_with_no_readable_tokens_has_nothing_to_price() -> None:
    result = read_opencode("gpt-4o-mini", "bad_tokens")
    assert (result.cost_usd, result.price_source) == (0.0, NOT_PRICED)
    assert result.cost_note is not None and "no token usage" in result.cost_note


def test_a_cost_opencode_reported_itself_is_still_its_own() -> None:
    result = read_opencode("gpt-4o-mini", "priced")
    assert result.price_source is not None and "not a measured bill" in result.price_source


# -- a spend ceiling -------------------------------------------------------------------


def test_a_spend_ceiling_holds_for_opencode_told_a_priced_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert opencode.PRESET.unpriced(Settings()) is None  # its default model has a price
    monkeypatch.setenv("OPENCODE_MODEL", "gpt-4o")
    assert opencode.PRESET.unpriced(Settings()) is None


def test_a_spend_ceiling_names_the_variable_when_opencodes_model_has_no_price(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENCODE_MODEL", "scripted-model")
    reason = opencode.PRESET.unpriced(Settings())
    assert reason is not None
    assert "OPENCODE_MODEL" in reason and "scripted-model" in reason
    assert "genai-prices has no price" in reason


def test_a_spend_ceiling_under_a_wrapper_says_the_model_is_unknown() -> None:
    wrapped = ProductTable(command=["./my-opencode", "{prompt}"])
    settings = Settings(runners={"opencode": wrapped})
    reason = opencode.PRESET.unpriced(settings)
    assert reason is not None and "command" in reason and "no model" in reason


def test_codex_still_needs_its_flag_for_a_ceiling() -> None:
    reason = codex.PRESET.unpriced(Settings())
    assert reason is not None and "args name no model to price them by (-m or --model)" in reason
    told = Settings(runners={"codex": ProductTable(args=["-m", "gpt-5-mini"])})
    assert codex.PRESET.unpriced(told) is None
