"""Which models the ``langchain`` runner and judge serve, asked without importing LangChain."""

from __future__ import annotations

from importlib.util import find_spec

from ..providers import provider_of
from ..requirements import Extra, form_problem

EXTRA_INSTALL = 'pip install "pytest-skill-lens[langchain]"'
# The provider prefixes served, and the integration package each needs.
PROVIDER_MODULES = {"openai": "langchain_openai", "anthropic": "langchain_anthropic"}


def missing_extra(model: str | None = None) -> str | None:
    """The module a langchain runner or judge needs that is not installed (not imported)."""
    needed = ["langchain", "langgraph", "genai_prices"]
    if model is not None and provider_of(model) in PROVIDER_MODULES:
        needed.append(PROVIDER_MODULES[provider_of(model)])
    for module in needed:
        if find_spec(module) is None:
            return module
    return None


EXTRA = Extra("langchain", EXTRA_INSTALL, missing_extra)


def model_problem(model: str, *, role: str, base_url_key: str) -> str | None:
    """Why the langchain ``role`` (runner, judge) cannot serve ``model``, or ``None``.

    ``base_url_key`` names the setting that points ``openai:`` at another endpoint.
    """
    problem = form_problem(model)
    if problem is not None:
        return problem
    prefix = provider_of(model)
    if prefix in PROVIDER_MODULES:
        return None
    served = " and ".join(f"{p}:" for p in PROVIDER_MODULES)
    return (
        f"the langchain {role} serves {served} models, not {prefix}:; a self-hosted or "
        f"gateway model is reached as openai:<name> with {base_url_key} set to its "
        "OpenAI-compatible endpoint"
    )
