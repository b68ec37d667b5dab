"""The module-level pytest hooks: they switch the plugin on.

They stay light, so a pytest run without ``--skill-lens`` pays almost nothing
for the plugin being installed. Once a skill path is given, the session starts
(:func:`.session.start_session`): its state, and the plugin objects that carry the
hooks of this process's role; only then are the heavy modules imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from . import hookspecs
from .state import get_session

if TYPE_CHECKING:
    from ..settings import Settings


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    from .options import add_options

    add_options(parser)


def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    # Before pytest's own loader (trylast): a skill's conftest.py must never load.
    from .isolation import initial_conftest_anchors, plugin_enabled, skill_paths_as_arguments

    if plugin_enabled(early_config):
        skill_paths_as_arguments(early_config)
        anchors = initial_conftest_anchors(early_config)
        if anchors is not None:
            early_config.known_args_namespace.file_or_dir = anchors


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "skill_lens: an eval case collected by pytest-skill-lens")
    if not config.option.skill_lens_paths and not config.getini("skill_lens_paths"):
        return
    from .aborted import rewrite_reports_before_state
    from .configure import build_run_config
    from .registry import check_names_before_collection
    from .session import start_session
    from .xdist_workers import adopt_shared

    adopt_shared(getattr(config, "workerinput", None))  # before the preflight makes its own
    try:
        run = build_run_config(config)
        if run is None:
            return
        state = start_session(config, run)
        if run.settings.repeat_auto:
            from .rounds import one_worker_per_skill

            one_worker_per_skill(config)
        check_names_before_collection(config)
    except BaseException:
        rewrite_reports_before_state(config)  # a refused run leaves no earlier green report
        raise
    state.results.watched = True  # from here, an end without a gate rewrites the reports


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    session = get_session(config)
    if session is None:
        return None
    from .. import __version__

    run = session.run
    source = str(run.config_path) if run.config_path else "defaults (no skill-lens.toml)"
    lines = [
        f"skill-lens {__version__}: runner(s) {', '.join(run.runner_names)}; "
        f"judge {run.settings.judge}; config {source}"
    ]
    if run.changes is not None:
        from .changed import header_line

        lines.append(header_line(run.changes))
    if run.settings.repeat_auto:
        from .rounds import header_line as rounds_line

        lines.append(rounds_line(config, run.settings.repeat_count))
    return lines


@pytest.fixture(scope="session")
def skill_lens_config(pytestconfig: pytest.Config) -> Settings:
    """The resolved skill-lens settings (command line over skill-lens.toml over defaults)."""
    session = get_session(pytestconfig)
    if session is None:
        pytest.skip("pytest-skill-lens is not enabled (no --skill-lens PATH)")
    return session.run.settings
