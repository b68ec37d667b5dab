"""What a model response cost, from genai-prices; a price that cannot be found is a note.

``genai_prices`` is imported on the first call, so a run that never prices
anything (the ``fake`` runner, ``--collect-only``) never loads it. Nothing here
raises: a cost that cannot be computed is ``0.0`` with a note that says why,
and the budget then reads that ``0.0`` as "not measured", never as "free".
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib.metadata import version
from typing import Any

from .endpoint import calls_chosen_endpoint
from .price_source import NOT_PRICED, list_price
from .providers import provider_of

# A model id's provider prefix (as pydantic-ai and LangChain spell it) -> genai-prices'
# provider id. A prefix not listed here is passed through as written.
_PROVIDER_IDS = {
    "openai-chat": "openai",
    "openai-responses": "openai",
    "google-gla": "google",
    "google-vertex": "google",
    "google_genai": "google",
    "google_vertexai": "google",
}


def provider_id(prefix: str) -> str:
    """genai-prices' name for the provider a model id's prefix names."""
    return _PROVIDER_IDS.get(prefix, prefix)


def price(
    model: str,
    provider: str,
    *,
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
) -> tuple[float, str | None]:
    """``(cost_usd, cost_note)`` of one response; the note is ``None`` when it was priced.

    ``input_tokens`` includes the cache tokens (both frameworks count them in it,
    and genai-prices expects them there); the cache counts say how many of them
    were read from or written to the cache, which are priced differently.
    ``provider`` is the model id's prefix (``openai``, ``anthropic``, ...). Prices
    are the provider's list price for ``model``, the name the response reported.
    """
    usage = ResponseUsage(model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
    priced = _price(usage, provider)
    return priced.cost_usd, priced.note


@dataclass(frozen=True)
class _Priced:
    cost_usd: float
    note: str | None  # why it could not be priced
    listed: str | None = None  # the price genai-prices used: ``openai:gpt-4o-mini``


def _price(usage: ResponseUsage, provider: str) -> _Priced:
    model = usage.model
    if not model:
        return _Priced(0.0, "cannot price the run: the provider reported no model name")
    where = provider_id(provider) if provider else None
    try:
        import genai_prices
    except ImportError:
        return _Priced(
            0.0,
            f"cannot price {model}: genai-prices is not installed "
            '(pip install "pytest-skill-lens[pydantic-ai]")',
        )
    try:
        counts = genai_prices.Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
        )
        calculation: Any = genai_prices.calc_price(counts, model, provider_id=where)
        listed = f"{calculation.provider.id}:{calculation.model.id}"
        return _Priced(float(calculation.total_price), None, listed)
    except LookupError:
        at = f" from provider {where!r}" if where else ""
        return _Priced(0.0, f"genai-prices has no price for model {model!r}{at}")
    except Exception as exc:  # a pricing failure must never fail the run
        return _Priced(0.0, f"cannot price {model}: {type(exc).__name__}: {exc}")


@functools.cache
def price_table() -> str:
    """The prices used, by name and version: ``genai-prices 0.2.5``."""
    return f"genai-prices {version('genai-prices')}"


@dataclass(frozen=True)
class ResponseUsage:
    """One model response's usage, as the framework reported it."""

    model: str  # the name the response reported; "" when it reported none
    input_tokens: int = 0  # including cache reads and writes
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reported: bool = True  # False: the framework says the provider sent no usage

    @property
    def measured(self) -> bool:
        return self.reported and bool(self.input_tokens or self.output_tokens)


@dataclass(frozen=True)
class Spend:
    """What a run's (or a judge call's) responses used and cost, summed."""

    input_tokens: int
    output_tokens: int
    cost_usd: float
    cost_note: str | None
    unmeasured: bool  # some response reported no usage: the sums are not a measurement
    model: str  # the last name a response reported, else the configured model's name
    price_source: str | None = None  # where cost_usd came from (run/models/price_source.py)


def total_spend(
    model_id: str, usages: Sequence[ResponseUsage], no_usage_note: str, base_url: str = ""
) -> Spend:
    """Every response priced on its own (models may differ between responses) and summed.

    A response without usage is not counted as free: the spend carries
    ``no_usage_note`` as its cost note instead of any pricing note. ``base_url`` is
    the endpoint setting: a list price at an endpoint you chose says it may not apply.
    """
    provider = provider_of(model_id)
    fallback = model_id.partition(":")[2]
    input_tokens = output_tokens = 0
    cost = 0.0
    note: str | None = None
    unmeasured = False
    listed: list[str] = []
    for usage in usages:
        if not usage.measured:
            unmeasured = True
            continue
        input_tokens += usage.input_tokens
        output_tokens += usage.output_tokens
        priced = _price(replace(usage, model=usage.model or fallback), provider)
        cost += priced.cost_usd
        note = note or priced.note
        if priced.listed and priced.listed not in listed:
            listed.append(priced.listed)
    model = next((u.model for u in reversed(usages) if u.model), "") or fallback
    source = NOT_PRICED if usages else None  # no response: nothing was spent or priced
    if listed:
        source = list_price(listed, price_table(), calls_chosen_endpoint(model_id, base_url))
    return Spend(
        input_tokens,
        output_tokens,
        cost,
        no_usage_note if unmeasured else note,
        unmeasured,
        model,
        source,
    )


def never_priced(model_id: str) -> str | None:
    """Why a model's runs can never be priced (a ceiling could not be held); None if they can.

    Asked by pricing one token each way: a model genai-prices does not know fails here
    exactly as each of its runs would.
    """
    provider = provider_of(model_id)
    name = model_id.split(":", 1)[1] if provider else model_id
    _, note = price(name, provider, input_tokens=1, output_tokens=1)
    return note
