"""Which endpoint a keyed model call goes to, and which setting decided it.

An errored run or verdict names it, so a wrong ``base_url`` is seen at once.
"""

from __future__ import annotations

import os

from .providers import provider_of

# Where each provider's SDK sends a request when no base_url is set.
_DEFAULT_ENDPOINTS = {
    "openai": "https://api.openai.com/v1",
    "openai-chat": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "google": "https://generativelanguage.googleapis.com",
    "google-gla": "https://generativelanguage.googleapis.com",
    "groq": "https://api.groq.com/openai/v1",
    "mistral": "https://api.mistral.ai/v1",
    "deepseek": "https://api.deepseek.com",
    "cohere": "https://api.cohere.com",
}

# Where each SDK reads an endpoint from when no base_url is passed to it.
_ENVIRONMENT = (
    ("openai", "OPENAI_BASE_URL"),
    ("anthropic", "ANTHROPIC_BASE_URL"),
    ("ollama", "OLLAMA_BASE_URL"),
)


def endpoint_named(model: str, base_url: str, key: str = "base_url") -> str:
    """The endpoint ``model`` is called at, ``base_url`` being the value of setting ``key``."""
    if base_url:
        return f"{base_url} ({key})"
    provider = provider_of(model)
    if variable := _environment_variable(provider):
        return f"{os.environ[variable].strip()} ({variable})"
    default = _DEFAULT_ENDPOINTS.get(provider)
    if default is not None:
        return f"{default} (the default of provider {provider!r}; set {key} for another)"
    return f"the default of model {model!r} (set {key} to name one)"


def calls_chosen_endpoint(model: str, base_url: str) -> bool:
    """Whether ``model`` is called at an endpoint you chose (``base_url``, else
    ``OPENAI_BASE_URL``) rather than the provider's own.

    A list price is the provider's; a server you chose may bill otherwise, or not at all.
    """
    provider = provider_of(model)
    variable = _environment_variable(provider)
    chosen = base_url or (os.environ[variable].strip() if variable else "")
    return bool(chosen) and chosen.rstrip("/") != _DEFAULT_ENDPOINTS.get(provider)


def _environment_variable(provider: str) -> str | None:
    """The variable the provider's SDK reads its endpoint from, when it is set."""
    variable = next((v for p, v in _ENVIRONMENT if provider.startswith(p)), None)
    return variable if variable and os.environ.get(variable, "").strip() else None
