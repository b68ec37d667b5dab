"""What a keyed judge needs, checked before any case runs (nothing here imports a framework).

Each check returns ``(problem, fix)`` or ``None``; the plugin turns a problem
into exit 2. The order is the order a user fixes things in: the model id, the
endpoint, the extra, the API key.
"""

from __future__ import annotations

from ...run.providers import base_url_problem, missing_api_key, provider_of
from ...settings import Settings
from .resolve import KEYED_JUDGES, inherits_model, judge_base_url, judge_model

Problem = tuple[str, str]


def source_of_model(settings: Settings) -> str:
    """Where the judge's model id was set, for messages."""
    if inherits_model(settings):
        return "the runners' model, which the judge inherits (--skill-lens-model / model)"
    return "--skill-lens-judge-model / judge_model"


def settings_problem(judge: str, settings: Settings) -> Problem | None:
    """A model or endpoint the judge cannot use."""
    if judge not in KEYED_JUDGES:
        return None
    model = judge_model(settings)
    said = f"the judge {judge!r} grades with {model!r}, from {source_of_model(settings)}"
    if not model.strip():
        return (
            f"the judge {judge!r} has a blank model, from {source_of_model(settings)}",
            "set --skill-lens-judge-model / judge_model to provider:name, e.g. openai:gpt-4o-mini",
        )
    if settings.judge_base_url:
        problem = base_url_problem(settings.judge_base_url)
        if problem is not None:
            return (
                f"judge_base_url cannot be used: {problem}",
                "set judge_base_url to an http(s) URL such as http://localhost:11434/v1, "
                "or remove it",
            )
    fix = "set --skill-lens-judge-model / judge_model (and judge_base_url) to a model it serves"
    base_url = judge_base_url(settings)
    if judge == "pydantic-ai":
        from ...run.runners.pydantic_ai_model import model_problem

        problem = model_problem(model, base_url)
        return (f"{said}: {problem}", fix) if problem is not None else None
    from ...run.runners.langchain import PROVIDER_MODULES

    prefix = provider_of(model)
    if not prefix or not model.partition(":")[2]:
        return (f"{said}: it is not of the form provider:name (e.g. openai:gpt-4o-mini)", fix)
    if prefix not in PROVIDER_MODULES:
        served = " and ".join(f"{p}:" for p in PROVIDER_MODULES)
        return (
            f"{said}: the langchain judge serves {served} models, not {prefix}:",
            f"{fix}; a self-hosted model is reached as openai:<name> with judge_base_url "
            "set to its OpenAI-compatible endpoint",
        )
    return None


def missing_extra(judge: str, settings: Settings) -> Problem | None:
    """The extra the judge needs, when a module of it is not installed."""
    if judge == "pydantic-ai":
        from ...run.runners.pydantic_ai_model import EXTRA_INSTALL, missing_extra

        missing = missing_extra(judge_model(settings))
    elif judge == "langchain":
        from ...run.runners.langchain import EXTRA_INSTALL, missing_extra

        missing = missing_extra(judge_model(settings))
    else:
        return None
    if missing is None:
        return None
    return (
        f"the judge {judge!r} needs the {judge} extra, which is not installed "
        f"(no module named {missing!r})",
        f"install it: {EXTRA_INSTALL}",
    )


def missing_key(judge: str, settings: Settings) -> Problem | None:
    """The API key the judge's model needs, when the environment does not have it."""
    if judge not in KEYED_JUDGES:
        return None
    model = judge_model(settings)
    variable = missing_api_key(model)
    if variable is None:
        return None
    return (
        f"the judge {judge!r} needs {variable} for the model {model!r}, and it is not set",
        f"export {variable}=... (API keys are read from the environment only; a self-hosted "
        "endpoint that takes none accepts any placeholder value)",
    )
