"""Shared by tests/unit and tests/plugin.

* pytester's in-process runs keep what they import (speed only; kept_imports.py says why and
  what is kept), and report a ``pytest.exit`` at configure time (a refused setting) as its
  exit code and message, as a subprocess would, so such refusals need no subprocess.
* Property tests take their example count from a hypothesis profile: hypothesis's own
  default (100 examples a test) in the everyday run, 1,000 with
  ``pytest --hypothesis-profile thorough``.
* ``-n auto`` is pytest-xdist's one worker a core: 3 or 4 workers on 2 cores finished
  later, each paying its own imports, Copilot unpack and browser (docs/performance.md).
* Under ``-n`` (pytest-xdist) with no ``--dist`` named, the workers steal work from each
  other (``--dist worksteal``) instead of taking fixed chunks (xdist's ``load``): the
  durations here range from milliseconds to seconds (the real products), and with fixed
  chunks one worker was left with a long queue while the other had finished. It is not
  in pyproject.toml's addopts because ``--dist`` is an error where pytest-xdist (a test
  extra) is not installed.
* Python's bytecode caches are written even where ``PYTHONDONTWRITEBYTECODE`` is set (as
  on this project's machines): the suite starts hundreds of Python processes (pytester
  subprocess runs, xdist workers, the CLI), and each would otherwise compile the plugin
  and pytest would rewrite its modules afresh (about 15% of those tests' CPU). Speed
  only: the caches land in ``__pycache__`` directories git ignores.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

from kept_imports import ImportKeeper

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # for every process the suite starts
sys.dont_write_bytecode = False

settings.register_profile("thorough", max_examples=1000)


@pytest.fixture(scope="session")
def import_keeper() -> ImportKeeper:
    return ImportKeeper()


@pytest.fixture
def _imports_kept(import_keeper: ImportKeeper) -> Iterator[ImportKeeper]:
    # Set up before pytester's own fixture, so torn down after it: the imports happen
    # once pytester has put sys.modules back, and stay.
    yield import_keeper
    import_keeper.import_pending()


@pytest.fixture
def pytester(
    _imports_kept: ImportKeeper, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> pytest.Pytester:
    """pytester's own fixture, whose in-process runs leave their imports to this process,
    and whose every inner pytest, in-process, in a subprocess or an xdist worker, leaves
    langsmith's and hypothesis's plugins out."""
    # Speed only: langsmith (installed with langchain) registers a pytest plugin that
    # takes 2 to 4 s to import in every process that loads it, and hypothesis's imports
    # hypothesis at every session's end; no inner run uses either. pyproject.toml's
    # "-p no:langsmith_plugin" is this session's; pytester clears PYTEST_ADDOPTS when it
    # starts, and an inner run reads no pyproject.toml of ours.
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:langsmith_plugin -p no:hypothesispytest")
    return _reports_configure_exits(_imports_kept.watch(pytester))


def _reports_configure_exits(pytester: pytest.Pytester) -> pytest.Pytester:
    """``pytester``, whose in-process runs survive a ``pytest.exit`` in ``pytest_configure``.

    pytester records a run from its own ``pytest_configure``; the plugin refuses a setting
    earlier in that hook, so such a run has no recorder. Its code 2 is also pytest's
    INTERRUPTED, for which pytester looks in the recorder for a KeyboardInterrupt to
    re-raise, and without one it reports an internal error (3) instead of the run. Here
    that look-up happens only when there is a recorder; otherwise the result is main()'s
    code, the one ``pytest`` exits with, and the output the user reads.
    """
    run_inline = pytester.inline_run

    def inline_run(*args: Any, no_reraise_ctrlc: bool = False, **kwargs: Any) -> Any:
        reprec = run_inline(*args, no_reraise_ctrlc=True, **kwargs)
        recorded = hasattr(reprec, "getcalls")  # not pytester's stand-in for "no recorder"
        if recorded and reprec.ret == pytest.ExitCode.INTERRUPTED and not no_reraise_ctrlc:
            calls = reprec.getcalls("pytest_keyboard_interrupt")
            if calls and calls[-1].excinfo.type is KeyboardInterrupt:
                raise KeyboardInterrupt()
        return reprec

    pytester.inline_run = inline_run  # type: ignore[method-assign]
    return pytester


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """Work stealing under ``-n`` when the command line names no ``--dist`` mode."""
    if config.getoption("dist") != "load" or _names_a_dist_mode(config):
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)  # type: ignore[arg-type]


def _names_a_dist_mode(config: pytest.Config) -> bool:
    given = [*config.invocation_params.args, *shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))]
    return any(arg in ("-d", "--dist") or arg.startswith("--dist=") for arg in given)
