"""Provider facts every keyed runner shares: which key a model needs, what an endpoint may be.

Pure and import-light: the plugin asks these questions before any item runs,
so a missing key or a bad endpoint costs nothing and exits 2.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

# A model id's provider prefix -> the environment variable holding its API key. A
# prefix not listed (ollama, a local provider, one that signs in another way) is
# not checked: the framework reports what it needs itself.
API_KEY_VARS = {
    "openai": "OPENAI_API_KEY",
    "openai-chat": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google": "GOOGLE_API_KEY",
    "google-gla": "GOOGLE_API_KEY",
    "groq": "GROQ_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "cohere": "CO_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
}


def provider_of(model: str) -> str:
    """The text before the first ``:`` of a model id (``openai:gpt-4o-mini`` -> ``openai``)."""
    return model.split(":", 1)[0] if ":" in model else ""


def missing_api_key(model: str) -> str | None:
    """The variable a model needs that is unset or empty in the environment, if any."""
    variable = API_KEY_VARS.get(provider_of(model))
    if variable is None or os.environ.get(variable, "").strip():
        return None
    return variable


def base_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an endpoint, or ``None``.

    An endpoint is an ``http`` or ``https`` URL with a host. Credentials in it
    (``https://user:secret@host``) are refused: the URL is committed in
    skill-lens.toml and printed in reports, and keys belong in the environment.
    The message never repeats the URL, so a refused secret is not echoed either.
    """
    try:
        parts = urlsplit(url)
        port = parts.port  # raises for a port that is not a number
    except ValueError as exc:
        return f"it is not a valid URL ({exc})"
    del port
    if parts.scheme not in ("http", "https"):
        return "it must start with http:// or https://"
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return (
            "it carries credentials (user:password@); put the key in the provider's "
            "environment variable instead"
        )
    if not parts.hostname:
        return "it has no host"
    return None
