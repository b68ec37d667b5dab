"""What the judge a run names needs, checked before any case runs (no framework imported).

Each check returns ``(problem, fix)`` or ``None``; the plugin turns a problem
into exit 2. A judge a plugin registers is not known yet when these run (its
``conftest.py`` may load later): it has none of these problems here.
"""

from __future__ import annotations

from ...run.requirements import Problem
from ...settings import Settings
from .catalog import builtin_judge


def settings_problem(judge: str, settings: Settings) -> Problem | None:
    """A model or endpoint the judge cannot use."""
    description = builtin_judge(judge)
    return None if description is None else description.settings_problem(settings)


def missing_extra(judge: str, settings: Settings) -> Problem | None:
    """The extra the judge needs, when a module of it is not installed."""
    description = builtin_judge(judge)
    return None if description is None else description.extra_problem(settings)


def missing_key(judge: str, settings: Settings) -> Problem | None:
    """The API key the judge's model needs, when the environment does not have it."""
    description = builtin_judge(judge)
    return None if description is None else description.key_problem(settings)
