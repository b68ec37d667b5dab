"""``--skill-lens-concurrency N``: cases that wait on a model overlap, N at a time.

pytest runs items one after another, and that order is what every report shows. So
the items are not run out of order: when an item's turn comes, it and the next
prefetchable items, up to N outstanding, are started on a thread pool, and the item
then waits for its own run. Its report, its place in the output and its verdict are
exactly those of a serial run; only the waiting overlaps. With pytest-xdist it is N
per worker.

An item is prefetched only when nothing but the plugin's own fixtures apply to it:
a ``conftest.py`` that overrides or wraps a ``skill_lens_*`` fixture, an autouse
fixture, or a skip/xfail marker makes the item run in its turn through pytest's own
fixture setup, as it would serially (docs/concurrency.md). A prefetched item gets
the same runner and judge objects its fixtures would give, and its own fresh
workspace, made on the main thread when it is started and deleted at its teardown.

Each start asks the spend ledger first, so the ceiling is checked as each run starts;
up to N runs may be in flight when it is reached.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .fixtures import CASE_FIXTURES, new_workspace

if TYPE_CHECKING:
    import pytest

    from ..perform.outcome import Outcome
    from ..run.sandbox import SandboxDecision
    from ..run.workspace import Workspace
    from .items import CaseItem
    from .session import SkillLensSession

_OWN_FIXTURES_MODULE = "pytest_skill_lens.plugin.fixtures"
_RUN_CHANGING_MARKS = ("skip", "skipif", "xfail")


@dataclass
class Started:
    """One item's run on the pool, and the workspace it was started with."""

    future: Future[Outcome]
    workspace: Workspace | None
    started_at: float = field(default_factory=time.monotonic)  # the progress line reads it


class Prefetcher:
    """Starts items ahead of their turn, at most ``width`` outstanding at once."""

    def __init__(self, session: SkillLensSession, width: int) -> None:
        self.session = session
        self.width = width
        self.pool = ThreadPoolExecutor(width, thread_name_prefix="skill-lens-case")
        self.started: dict[str, Started] = {}
        self._positions: dict[str, int] | None = None
        self._sandbox: tuple[SandboxDecision | None] | None = None
        self.closed = False

    def advance(self, item: CaseItem) -> None:
        """Start ``item`` and the prefetchable items after it, while fewer than N are out."""
        items = item.session.items
        position = self._position_of(item, items)
        for later in items[position:]:
            if self.closed or len(self.started) >= self.width or item.session.shouldstop:
                return
            if later.nodeid in self.started or not prefetchable(later):
                continue
            if not self._start(later):  # type: ignore[arg-type]  # prefetchable: a CaseItem
                return  # the ledger refused: nothing after it may start either

    def take(self, item: CaseItem) -> Started | None:
        """The item's started run, if it was started ahead; its caller waits for it."""
        return self.started.pop(item.nodeid, None)

    def close(self) -> list[tuple[str, Outcome, Workspace | None]]:
        """Stop starting; wait for the runs in flight; return those nobody took.

        A run that finished but whose item never reported (``-x``, an interruption)
        still spent: its outcome is returned so the report counts it.
        """
        self.closed = True
        self.pool.shutdown(wait=True, cancel_futures=True)
        left = []
        for nodeid, started in self.started.items():
            if started.future.cancelled():
                if started.workspace is not None:
                    started.workspace.cleanup()
                continue
            left.append((nodeid, started.future.result(), started.workspace))
        self.started.clear()
        return left

    def _start(self, item: CaseItem) -> bool:
        from ..perform import errored_outcome, perform  # imported on first run, not at configure

        session = self.session
        ledger = session.ledger
        if ledger is not None and ledger.refusal() is not None:
            return False  # it will be refused again, and skipped, in its own turn
        settings = session.run.settings
        case = item.loaded.case
        # Built on the main thread, as the fixtures would build them: never raced.
        runner = session.runner_for(item.runner_name, self._sandbox_decision())
        judge = session.judge() if case.judge is not None else None
        evaluators = session.evaluators()
        try:
            workspace = new_workspace(item, settings)
        except Exception:
            return True  # not started: its own turn sets it up and reports the failure
        identity = item.identity()
        skill = item.acting_skill

        def act() -> Outcome:
            try:
                outcome = perform(
                    skill,
                    case,
                    runner,
                    judge,
                    workspace,
                    evaluators,
                    identity=identity,
                    settings=settings,
                )
            except Exception as exc:  # perform never raises; if it did, errored
                outcome = errored_outcome(identity, f"{type(exc).__name__}: {exc}")
            if ledger is not None:
                ledger.record(outcome)
            return outcome

        self.started[item.nodeid] = Started(self.pool.submit(act), workspace)
        return True

    def _sandbox_decision(self) -> SandboxDecision | None:
        if self._sandbox is None:
            settings = self.session.run.settings
            from ..run.sandbox import decide

            self._sandbox = (decide(settings.script_sandbox) if settings.allow_scripts else None,)
        return self._sandbox[0]

    def _position_of(self, item: pytest.Item, items: list[pytest.Item]) -> int:
        if self._positions is None:
            self._positions = {it.nodeid: i for i, it in enumerate(items)}
        return self._positions.get(item.nodeid, len(items))


def prefetchable(item: pytest.Item) -> bool:
    """Whether ``item`` runs with the plugin's own fixtures only and nothing changes its run."""
    from .items import CaseItem

    if not isinstance(item, CaseItem) or item.not_run_reason is not None:
        return False
    if any(item.get_closest_marker(name) is not None for name in _RUN_CHANGING_MARKS):
        return False
    names = set(item.fixturenames) - {"request"}  # pytest's own, which every fixture reads
    if not names <= set(CASE_FIXTURES):
        return False  # an autouse fixture, or one a conftest added
    definitions = item._fixtureinfo.name2fixturedefs
    return all(
        getattr(definitions[name][-1].func, "__module__", None) == _OWN_FIXTURES_MODULE
        for name in names
        if name in definitions
    )
