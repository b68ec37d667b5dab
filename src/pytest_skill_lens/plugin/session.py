"""The session of a run that has skill paths to collect: its state built, and the plugin
objects that carry its hooks registered for this process's role.

Like pytest-xdist, which registers its controller (``DSession``) and its worker
(``WorkerInteractor``) as separate plugin objects, the plugin registers one role object
(:class:`.controller.Controller` in a single process or an xdist controller,
:class:`.worker.Worker` in an xdist worker) and one object per phase every process
shares (:class:`.collecting.CollectionHooks`, :class:`.case_reports.CaseReports`), each
over the one :class:`.state.SessionState` kept in ``config.stash``.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .caches import SessionCaches
from .case_reports import CaseReports
from .collecting import CollectionHooks
from .controller import Controller
from .facts import CollectionFacts
from .fixtures import OWN_FIXTURES
from .overrides import FixtureOverrides
from .results import SessionResults
from .role import Role
from .run_config import RunConfig
from .state import SESSION_KEY, SessionState, listing_only
from .terminate import install_sigterm
from .worker import Worker
from .xdist_workers import LEDGER_INPUT, LocalWorkers

if TYPE_CHECKING:
    from .ledger import SpendLedger

ROLE_NAME = "skill-lens-session"
COLLECTION_NAME = "skill-lens-collection"
REPORTS_NAME = "skill-lens-case-reports"


def start_session(config: pytest.Config, run: RunConfig) -> SessionState:
    """The session's state, kept in ``config.stash``, with its hooks registered."""
    # Objects an earlier in-process session froze (pytester, pytest.main called
    # twice) go back to the collector. This session's stay frozen to the end, so
    # pytest's own closing gc.collect() passes skip them too.
    gc.unfreeze()
    state = SessionState(
        config,
        run,
        CollectionFacts(),
        SessionResults(),
        SessionCaches(),
        FixtureOverrides(OWN_FIXTURES),
    )
    settings = run.settings
    if settings.baselines:
        from .baselines import BaselineArms  # only a run with a baseline arm needs it

        state.baselines = {kind: BaselineArms(kind) for kind in settings.baselines}
    state.ledger = _ledger(state)
    if settings.concurrency > 1 and not listing_only(config):
        from .concurrency import Prefetcher  # a listing starts nothing ahead

        state.prefetch = Prefetcher(state, settings.concurrency)
    # SIGTERM (a CI cancel) unwinds like Ctrl-C, so teardown deletes the workspaces;
    # under xdist the controller passes it on to its workers.
    workers = LocalWorkers()
    restore_sigterm = install_sigterm(workers)
    role: Role
    if state.is_worker:
        role = Worker(state, restore_sigterm)
    else:
        role = Controller(state, workers, restore_sigterm)
    config.stash[SESSION_KEY] = state
    # The role first: among hooks of one kind pluggy calls the last registered first, so
    # the role's plan and a worker's emptied run follow the collection's own work.
    manager = config.pluginmanager
    manager.register(role, ROLE_NAME)
    manager.register(CollectionHooks(state), COLLECTION_NAME)
    manager.register(CaseReports(state), REPORTS_NAME)
    return state


def _ledger(state: SessionState) -> SpendLedger | None:
    """The spend ledger this process reads: the controller's, shared with its workers."""
    config = state.config
    ceiling = state.run.settings.max_spend_usd
    if ceiling is None or listing_only(config):
        return None
    from .ledger import SpendLedger  # a listing spends nothing

    if state.is_worker:
        shared = config.workerinput.get(LEDGER_INPUT)  # type: ignore[attr-defined]
        return SpendLedger(ceiling, Path(shared)) if shared else SpendLedger.create(ceiling)
    return SpendLedger.create(ceiling)
