"""The module-level pytest hooks: they switch the plugin on.

They stay light, so a pytest run without ``--skill-lens`` pays almost nothing
for the plugin being installed. Once a skill path is given, a
:class:`~.session.SkillLensSession` is registered and carries every hook that
reads or writes the session's state; only then are the heavy modules imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from . import hookspecs
from .state import STATE_KEY, get_state

if TYPE_CHECKING:
    from ..settings import Settings

PLUGIN_NAME = "skill-lens-session"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    from .options import add_options

    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "skill_lens: an eval case collected by pytest-skill-lens")
    if not config.option.skill_lens_paths and not config.getini("skill_lens_paths"):
        return
    from .configure import build_state
    from .session import SkillLensSession

    state = build_state(config)
    if state is not None:
        config.stash[STATE_KEY] = state
        config.pluginmanager.register(SkillLensSession(config, state), PLUGIN_NAME)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    state = get_state(config)
    if state is None:
        return None
    from .. import __version__

    source = str(state.config_path) if state.config_path else "defaults (no skill-lens.toml)"
    return [
        f"skill-lens {__version__}: runner(s) {', '.join(state.runner_names)}; "
        f"judge {state.settings.judge}; config {source}"
    ]


@pytest.fixture(scope="session")
def skill_lens_config(pytestconfig: pytest.Config) -> Settings:
    """The resolved skill-lens settings (command line over skill-lens.toml over defaults)."""
    state = get_state(pytestconfig)
    if state is None:
        pytest.skip("pytest-skill-lens is not enabled (no --skill-lens PATH)")
    return state.settings
