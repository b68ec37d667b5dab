"""Which model a keyed judge grades with, and at which endpoint.

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

from ...settings import Settings

KEYED_JUDGES = ("pydantic-ai", "langchain")


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
