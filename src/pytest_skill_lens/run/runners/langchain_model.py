"""Which models the ``langchain`` runner and judge serve, asked without importing LangChain."""

from __future__ import annotations

from ..models.providers import provider_of
from ..requirements import Extra, form_problem, missing_module

EXTRA_INSTALL = 'pip install "pytest-skill-lens[langchain]"'
# The provider prefixes served, and the integration package each needs.
PROVIDER_MODULES = {"openai": "langchain_openai", "anthropic": "langchain_anthropic"}


def missing_extra(model: str | None = None) -> str | None:
    """The module a langchain runner or judge needs that is not installed (not imported)."""
    return missing_module(("langchain", "langgraph", "genai_prices"), PROVIDER_MODULES, model)


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
