"""Where the session lives: ``config.stash``, and the accessor every module reads it by.

Light on purpose: the module-level hooks import it in every pytest run, with or
without ``--skill-lens``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .session import SkillLensSession

SESSION_KEY = pytest.StashKey["SkillLensSession"]()


def get_session(config: pytest.Config) -> SkillLensSession | None:
    """The session, or ``None`` when no skill path turned the plugin on."""
    return config.stash.get(SESSION_KEY, None)


def listing_only(config: pytest.Config) -> bool:
    """Whether this run only lists (``--collect-only``, ``--fixtures-per-test``,
    ``--fixtures``): nothing runs, so nothing is preflighted for spend or gated."""
    option = config.option
    return bool(
        option.collectonly
        or getattr(option, "show_fixtures_per_test", False)
        or getattr(option, "showfixtures", False)
    )
