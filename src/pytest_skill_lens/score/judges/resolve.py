"""Which model a keyed judge grades with, at which endpoint, and whether it can.

* The judge's model is ``judge_model`` (``--skill-lens-judge-model`` sets it),
  or else the runners' ``model``: an empty ``judge_model`` means "inherit".
* Its endpoint is ``judge_base_url`` when set; otherwise the runners'
  ``base_url`` only when it inherits the model as well, since an endpoint
  serves a model and a judge naming its own model is another provider's;
  otherwise none, which leaves the provider's own variable
  (``OPENAI_BASE_URL``...) and then its default.
* ``judge_temperature`` is its own and never falls back to ``temperature``.
"""

from __future__ import annotations

from collections.abc import Callable

from ...run.models.providers import base_url_problem
from ...run.requirements import Problem
from ...settings import Settings

# Why a judge's framework cannot serve (model, base_url), or None.
ServedCheck = Callable[[str, str], str | None]
MODEL_FIX = "set --skill-lens-judge-model / judge_model (and judge_base_url) to a model it serves"


def inherits_model(settings: Settings) -> bool:
    return settings.judge_model == ""


def judge_model(settings: Settings) -> str:
    return settings.model if inherits_model(settings) else settings.judge_model


def judge_base_url(settings: Settings) -> str:
    if settings.judge_base_url:
        return settings.judge_base_url
    return settings.base_url if inherits_model(settings) else ""


def judge_temperature(settings: Settings) -> float | None:
    """The temperature to send, or None to send none (``"unset"``, for reasoning models)."""
    value = settings.judge_temperature
    return None if value == "unset" else value


def source_of_model(settings: Settings) -> str:
    """Where the judge's model id was set, for messages."""
    if inherits_model(settings):
        return "the runners' model, which the judge inherits (--skill-lens-model / model)"
    return "--skill-lens-judge-model / judge_model"


def model_problem(judge: str, settings: Settings, served: ServedCheck) -> Problem | None:
    """A model or endpoint the keyed judge ``judge`` cannot use, in the order a user fixes them."""
    model = judge_model(settings)
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
    problem = served(model, judge_base_url(settings))
    if problem is None:
        return None
    said = f"the judge {judge!r} grades with {model!r}, from {source_of_model(settings)}"
    return (f"{said}: {problem}", MODEL_FIX)
