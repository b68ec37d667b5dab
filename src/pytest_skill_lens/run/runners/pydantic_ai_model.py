"""The PydanticAI model a model id names, shared by the ``pydantic-ai`` runner and judge.

``pydantic_ai`` is imported inside :func:`build_model` and :func:`is_transient`
only, so asking what a model id needs (:func:`missing_extra`,
:func:`model_problem`) never loads the framework.

``openai:`` (and ``openai-chat:``) always goes to the Chat Completions API, the
one every OpenAI-compatible server speaks, at ``base_url`` when one is set;
``ollama:`` and ``anthropic:`` take the endpoint too; any other prefix is built
by pydantic-ai as it would be. The framework's JSON-schema rewriting is
switched off, so a schema reaches the provider as it was declared.
"""

from __future__ import annotations

from typing import Any

from ..pricing import ResponseUsage
from ..providers import provider_of
from ..requirements import Extra, form_problem, missing_module
from ..retry import transient_status

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


def build_model(model: str, base_url: str) -> Any:
    """The pydantic-ai model for ``provider:name``, at ``base_url`` when it is not empty."""
    prefix, _, name = model.partition(":")
    endpoint = base_url or None  # None: the provider's own variable, then its default
    # Without a transformer the declared schema reaches the provider as written.
    verbatim: Any = {"json_schema_transformer": None}
    if prefix in ("openai", "openai-chat"):
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        provider = OpenAIProvider(base_url=endpoint)
        return OpenAIChatModel(name, provider=provider, profile=verbatim)
    if prefix == "ollama":
        from pydantic_ai.models.ollama import OllamaModel
        from pydantic_ai.providers.ollama import OllamaProvider

        return OllamaModel(name, provider=OllamaProvider(base_url=endpoint), profile=verbatim)
    if prefix == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        return AnthropicModel(name, provider=AnthropicProvider(base_url=endpoint), profile=verbatim)
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
    usage = response.usage
    return ResponseUsage(
        model=response.model_name or "",
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        reported=not getattr(usage, "unmeasured_requests", 0),
    )
