from __future__ import annotations

import builtins
from typing import Any

import pytest

from pytest_skill_lens.run.models.pricing import ResponseUsage, price, provider_id, total_spend

genai_prices = pytest.importorskip("genai_prices")


def list_price(model: str, provider: str, **usage: int) -> float:
    return float(
        genai_prices.calc_price(
            genai_prices.Usage(**usage), model, provider_id=provider
        ).total_price
    )


def test_a_known_model_is_priced_with_no_note() -> None:
    cost, note = price("gpt-4o-mini", "openai", input_tokens=1000, output_tokens=200)
    assert note is None
    assert cost == pytest.approx(
        list_price("gpt-4o-mini", "openai", input_tokens=1000, output_tokens=200)
    )
    assert cost > 0


def test_the_dated_name_a_response_reports_is_priced_too() -> None:
    cost, note = price("gpt-4o-mini-2024-07-18", "openai", input_tokens=1000, output_tokens=0)
    assert note is None and cost > 0


def test_cache_reads_are_priced_below_fresh_input() -> None:
    fresh, _ = price("gpt-4o-mini", "openai", input_tokens=1000, output_tokens=0)
    cached, note = price(
        "gpt-4o-mini", "openai", input_tokens=1000, output_tokens=0, cache_read_tokens=800
    )
    assert note is None
    assert 0 < cached < fresh


def test_an_unknown_model_costs_zero_with_a_note_that_says_why() -> None:
    cost, note = price("my-local-llama", "openai", input_tokens=10, output_tokens=5)
    assert cost == 0.0
    assert note == "genai-prices has no price for model 'my-local-llama' from provider 'openai'"


def test_an_unknown_provider_costs_zero_with_a_note() -> None:
    cost, note = price("llama3.2", "ollama", input_tokens=10, output_tokens=5)
    assert cost == 0.0
    assert note == "genai-prices has no price for model 'llama3.2' from provider 'ollama'"


def test_no_model_name_is_a_note_not_an_error() -> None:
    assert price("", "openai", input_tokens=1, output_tokens=1) == (
        0.0,
        "cannot price the run: the provider reported no model name",
    )


def test_a_pricing_failure_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("price data is corrupt")

    monkeypatch.setattr(genai_prices, "calc_price", broken)
    cost, note = price("gpt-4o-mini", "openai", input_tokens=1, output_tokens=1)
    assert cost == 0.0
    assert note == "cannot price gpt-4o-mini: RuntimeError: price data is corrupt"


def test_without_genai_prices_the_note_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_genai_prices(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "genai_prices":
            raise ImportError("No module named 'genai_prices'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_genai_prices)
    cost, note = price("gpt-4o-mini", "openai", input_tokens=1, output_tokens=1)
    assert cost == 0.0
    assert note is not None
    assert 'genai-prices is not installed (pip install "pytest-skill-lens[pydantic-ai]")' in note


@pytest.mark.parametrize(
    ("prefix", "provider"),
    [
        ("openai", "openai"),
        ("openai-chat", "openai"),
        ("anthropic", "anthropic"),
        ("google-gla", "google"),
        ("groq", "groq"),
    ],
)
def test_model_prefixes_name_genai_prices_providers(prefix: str, provider: str) -> None:
    assert provider_id(prefix) == provider


def test_every_response_is_priced_under_its_own_model_and_summed() -> None:
    usages = [
        ResponseUsage("gpt-4o-mini", input_tokens=1000, output_tokens=100),
        ResponseUsage("gpt-4o", input_tokens=500, output_tokens=50),
    ]
    spend = total_spend("openai:gpt-4o-mini", usages, "no usage")
    expected = list_price("gpt-4o-mini", "openai", input_tokens=1000, output_tokens=100)
    expected += list_price("gpt-4o", "openai", input_tokens=500, output_tokens=50)
    assert spend.cost_usd == pytest.approx(expected)
    assert (spend.input_tokens, spend.output_tokens) == (1500, 150)
    assert (spend.cost_note, spend.unmeasured, spend.model) == (None, False, "gpt-4o")


def test_a_response_without_usage_makes_the_sum_unmeasured_whatever_else_was_priced() -> None:
    usages = [
        ResponseUsage("", input_tokens=10, output_tokens=5),  # no name: the configured one
        ResponseUsage("gpt-4o-mini"),  # no usage at all
        ResponseUsage("gpt-4o-mini", input_tokens=7, output_tokens=3, reported=False),
    ]
    spend = total_spend("openai:gpt-4o-mini", usages, "the provider sent no usage")
    assert spend.unmeasured
    assert spend.cost_note == "the provider sent no usage"
    assert (spend.input_tokens, spend.output_tokens) == (10, 5)
    assert spend.cost_usd == pytest.approx(
        list_price("gpt-4o-mini", "openai", input_tokens=10, output_tokens=5)
    )


def test_an_unpriced_model_keeps_the_first_pricing_note() -> None:
    spend = total_spend(
        "openai:my-local-model", [ResponseUsage("", input_tokens=1, output_tokens=1)], "none"
    )
    assert spend.cost_usd == 0.0
    assert (
        spend.cost_note
        == "genai-prices has no price for model 'my-local-model' from provider 'openai'"
    )
    assert spend.model == "my-local-model"
