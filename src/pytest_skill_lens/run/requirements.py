"""What a runner or judge needs before it can run: its extra, usable settings, an API key.

Each check returns a :data:`Problem` or ``None``; none of them imports a framework.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from typing import TYPE_CHECKING

from ..settings import Settings
from .models.providers import missing_api_key, provider_of

if TYPE_CHECKING:  # annotations only: configure never imports the sandbox
    from .sandbox.product_sandbox import ProductSandbox

Problem = tuple[str, str]  # (what is wrong, how to fix it)
SettingsCheck = Callable[[Settings], Problem | None]
# What must hold for a product to start, probed under the run's product sandbox decision.
StartCheck = Callable[[Settings, "ProductSandbox | None"], Problem | None]


@dataclass(frozen=True)
class Extra:
    """A package extra, and how to tell which of its modules is missing without importing it.

    ``missing`` takes the model id (its provider may need one more package) and
    returns the first module not installed, or ``None``.
    """

    name: str
    install: str
    missing: Callable[[str | None], str | None]


def missing_module(
    needed: Sequence[str], provider_modules: Mapping[str, str], model: str | None
) -> str | None:
    """The first of ``needed`` (and the module ``model``'s provider needs) not installed.

    Found with ``find_spec``, never imported: collection stays light.
    """
    modules = list(needed)
    if model is not None and provider_of(model) in provider_modules:
        modules.append(provider_modules[provider_of(model)])
    return next((module for module in modules if find_spec(module) is None), None)


def extra_problem(kind: str, name: str, extra: Extra, model: str | None) -> Problem | None:
    module = extra.missing(model)
    if module is None:
        return None
    return (
        f"the {kind} {name!r} needs the {extra.name} extra, which is not installed "
        f"(no module named {module!r})",
        f"install it: {extra.install}",
    )


def key_problem(kind: str, name: str, model: str) -> Problem | None:
    variable = missing_api_key(model)
    if variable is None:
        return None
    return (
        f"the {kind} {name!r} needs {variable} for the model {model!r}, and it is not set",
        f"export {variable}=... (API keys are read from the environment only; a self-hosted "
        "endpoint that takes none accepts any placeholder value)",
    )


def form_problem(model: str) -> str | None:
    """Why ``model`` is not a ``provider:name`` id, or ``None``."""
    if provider_of(model) and model.partition(":")[2]:
        return None
    return (
        f"the model {model!r} is not of the form provider:name "
        "(e.g. openai:gpt-4o-mini, anthropic:claude-sonnet-4-5)"
    )
