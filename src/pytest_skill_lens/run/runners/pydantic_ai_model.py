"""The PydanticAI model a model id names, shared by the ``pydantic-ai`` runner and judge.

``pydantic_ai`` is imported inside :func:`build_model` and :func:`is_transient`
only, so asking what a model id needs (:func:`missing_extra`,
:func:`model_problem`) never loads the framework.

``openai:`` (and ``openai-chat:``) always goes to the Chat Completions API, the
one every OpenAI-compatible server speaks, at ``base_url`` when one is set;
``ollama:`` and ``anthropic:`` take the endpoint too; any other prefix is built
by pydantic-ai as it would be. The framework's JSON-schema rewriting is
switched off, so a schema reaches the provider as it was declared.

Every run gets its own HTTP client (its connections belong to the run's event
loop, and runs overlap on threads under ``--skill-lens-concurrency``), but all
clients share one TLS context: building one loads the CA bundle, 60 of the 67 ms
a model cost to build before (``docs/performance.md``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..models.providers import provider_of
from ..models.retry import transient_status
from ..requirements import Extra, form_problem, missing_module

if TYPE_CHECKING:  # asyncio and ssl only once a run starts: not at collection
    import ssl

    from ..cassettes import SeatCall
    from ..models.pricing import ResponseUsage

EXTRA_INSTALL = 'pip install "pytest-skill-lens[pydantic-ai]"'
# Prefixes whose provider pydantic-ai can point at another endpoint.
BASE_URL_PREFIXES = ("openai", "openai-chat", "ollama", "anthropic")
# The provider SDK each of those prefixes needs, beside pydantic_ai itself.
_PROVIDER_MODULES = {
    "openai": "openai",
    "openai-chat": "openai",
    "openai-responses": "openai",
    "ollama": "openai",
    "anthropic": "anthropic",
}


def missing_extra(model: str | None = None) -> str | None:
    """The module a pydantic-ai runner or judge needs that is not installed (not imported)."""
    return missing_module(("pydantic_ai", "genai_prices"), _PROVIDER_MODULES, model)


# What the pydantic-ai runner and judge need installed.
EXTRA = Extra("pydantic-ai", EXTRA_INSTALL, missing_extra)


def model_problem(model: str, base_url: str) -> str | None:
    """Why pydantic-ai cannot serve ``model`` at ``base_url`` (``""``: the default), or None."""
    problem = form_problem(model)
    if problem is not None:
        return problem
    prefix = provider_of(model)
    if base_url and prefix not in BASE_URL_PREFIXES:
        return (
            f"pydantic-ai cannot send {prefix}: models to base_url; only "
            f"{', '.join(p + ':' for p in BASE_URL_PREFIXES)} take an endpoint"
        )
    return None


@functools.cache
def shared_tls() -> ssl.SSLContext:
    """The TLS context every run's client uses: httpx2's default, made once per process."""
    import httpx2

    return httpx2.create_ssl_context()


def run_agent(make_agent: Callable[[Any], Any], task: str, **run_options: Any) -> Any:
    """``make_agent(http_client).run(task)`` on a fresh event loop, the client closed after.

    A loop of its own per run, as ``run_sync`` would make, so threads never share one.
    """

    async def run() -> Any:
        import httpx2

        # pydantic-ai's own client settings: 600 s to answer, 5 s to connect, a large pool.
        timeout = httpx2.Timeout(600, connect=5)
        limits = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)
        client = httpx2.AsyncClient(verify=shared_tls(), timeout=timeout, limits=limits)
        async with client:
            return await make_agent(client).run(task, **run_options)

    import asyncio

    return asyncio.run(run())


def cassette_or_model(call: SeatCall | None, model: str, base_url: str, http_client: Any) -> Any:
    """The model for ``model``; with a cassette ``call``, wrapped to record or replay.

    Replaying only, the provider is given a placeholder key: nothing is ever sent.
    """
    if call is None:
        return build_model(model, base_url, http_client)
    from ..cassettes.pydantic_ai import REPLAY_KEY, cassette_model

    key = REPLAY_KEY if call.offline else None
    return cassette_model(build_model(model, base_url, http_client, api_key=key), call)


def build_model(
    model: str, base_url: str, http_client: Any = None, *, api_key: str | None = None
) -> Any:
    """The pydantic-ai model for ``provider:name``, at ``base_url`` when it is not empty.

    ``http_client`` (from :func:`run_agent`) serves the providers that take an
    endpoint; any other prefix builds its own. ``api_key`` (None: the provider's
    variable) is given to those providers only.
    """
    prefix, _, name = model.partition(":")
    endpoint = base_url or None  # None: the provider's own variable, then its default
    # Without a transformer the declared schema reaches the provider as written.
    verbatim: Any = {"json_schema_transformer": None}
    if prefix in ("openai", "openai-chat"):
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        openai = OpenAIProvider(base_url=endpoint, api_key=api_key, http_client=http_client)
        return OpenAIChatModel(name, provider=openai, profile=verbatim)
    if prefix == "ollama":
        from pydantic_ai.models.ollama import OllamaModel
        from pydantic_ai.providers.ollama import OllamaProvider

        ollama = OllamaProvider(base_url=endpoint, api_key=api_key, http_client=http_client)
        return OllamaModel(name, provider=ollama, profile=verbatim)
    if prefix == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        anthropic = AnthropicProvider(base_url=endpoint, api_key=api_key, http_client=http_client)
        return AnthropicModel(name, provider=anthropic, profile=verbatim)
    from pydantic_ai.models import infer_model

    return infer_model(model)


# pydantic-ai's names for a busy, slow or unreachable provider when no HTTP status says
# so (a dropped connection, a timeout, an error event inside a stream).
_TRANSIENT_KINDS = (
    "ModelConnectionError",  # ModelTimeoutError is one
    "ModelRequestTimeout",
    "ModelServerError",
    "ModelUnavailableError",  # ModelOverloadedError is one
    "ModelRateLimitError",
)


def is_transient(failure: BaseException) -> bool:
    """Whether another attempt could succeed: a busy, slow or unreachable provider.

    Any other API error (a refusal, a reply that is not JSON, a quota) is an
    errored result at once, as under the langchain runner.
    """
    from pydantic_ai import exceptions

    if isinstance(failure, exceptions.ModelHTTPError):
        return transient_status(failure.status_code)
    kinds = tuple(
        k for name in _TRANSIENT_KINDS if isinstance(k := getattr(exceptions, name, None), type)
    )
    if kinds and isinstance(failure, kinds):
        return True
    return isinstance(failure, TimeoutError | ConnectionError)


def response_usage(response: Any) -> ResponseUsage:
    """A pydantic-ai ``ModelResponse``'s usage (``unmeasured_requests``: none was reported)."""
    from ..models.pricing import ResponseUsage  # imported on first run: the catalog never prices

    usage = response.usage
    return ResponseUsage(
        model=response.model_name or "",
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        reported=not getattr(usage, "unmeasured_requests", 0),
    )
