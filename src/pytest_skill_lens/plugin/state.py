"""Where the session lives: ``config.stash``, what it holds, and the accessor every module
reads it by.

:class:`SessionState` is data, not hooks: the run's configuration (frozen), the
collection facts (what an xdist worker sends the controller), the results, the caches
and the run's shared objects (spend ledger, baseline arms, the prefetcher). The hooks
that read and write it are separate plugin objects registered for their process's role
(:mod:`.session`). Light on purpose: the module-level hooks import it in every pytest
run, with or without ``--skill-lens``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import pytest

if TYPE_CHECKING:  # built by .session, once the plugin is on
    from concurrent.futures import Future

    from ..perform.outcome import Outcome
    from ..run.workspace.workspace import Workspace
    from .baselines import BaselineArms
    from .caches import SessionCaches
    from .facts import CollectionFacts
    from .ledger import SpendLedger
    from .overrides import FixtureOverrides
    from .results import SessionResults
    from .run_config import RunConfig

SESSION_KEY = pytest.StashKey["SessionState"]()


@dataclass
class Started:
    """One item's run on the prefetcher's pool, and the workspace it was started with."""

    future: Future[Outcome]
    workspace: Workspace | None
    started_at: float = field(default_factory=time.monotonic)  # the progress line reads it


class Ahead(Protocol):
    """The prefetcher (:class:`.concurrency.Prefetcher`) as an item and the progress see it."""

    @property
    def started(self) -> Mapping[str, Started]: ...

    def advance(self, item: pytest.Item) -> None: ...

    def take(self, item: pytest.Item) -> Started | None: ...

    def close(self) -> list[tuple[str, Outcome, Workspace | None]]: ...


class Rounds(Protocol):
    """``--skill-lens-repeat auto:N``'s early stop (:class:`.rounds.RoundWatch`)."""

    def stop_reason(self, item: Any) -> str | None: ...


@dataclass(eq=False)
class SessionState:
    """One session's data, kept in ``config.stash`` while the plugin is on."""

    config: pytest.Config
    run: RunConfig
    facts: CollectionFacts
    results: SessionResults
    caches: SessionCaches
    overrides: FixtureOverrides  # where a conftest defines a case fixture again
    ledger: SpendLedger | None = None  # the spend ceiling's account, shared with workers
    # What each baseline arm acts with, by its kind, in the order asked (none: no arm).
    baselines: dict[str, BaselineArms] = field(default_factory=dict)
    prefetch: Ahead | None = None  # --skill-lens-concurrency: items started ahead
    rounds: Rounds | None = None  # --skill-lens-repeat auto:N: each skill's early stop
    # Under xdist: items whose outcome went to the controller (on a worker), and
    # outcomes whose teardown report has yet to arrive (on the controller).
    outcomes_sent: dict[str, Outcome] = field(default_factory=dict)
    outcomes_received: dict[str, Outcome] = field(default_factory=dict)

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")


def get_session(config: pytest.Config) -> SessionState | None:
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
