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

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from .items import CaseItem
from .overrides import CASE_FIXTURES
from .state import Started

if TYPE_CHECKING:
    import pytest

    from ..perform.outcome import Outcome
    from ..run.workspace.workspace import Workspace
    from .state import SessionState

_OWN_FIXTURES_MODULE = "pytest_skill_lens.plugin.fixtures"
_RUN_CHANGING_MARKS = ("skip", "skipif", "xfail")


class Prefetcher:
    """Starts items ahead of their turn, at most ``width`` outstanding at once."""

    def __init__(self, state: SessionState, width: int) -> None:
        self.state = state
        self.width = width
        self.pool = ThreadPoolExecutor(width, thread_name_prefix="skill-lens-case")
        self.started: dict[str, Started] = {}
        self._positions: dict[str, int] | None = None
        self.closed = False

    def advance(self, item: pytest.Item) -> None:
        """Start ``item`` and the prefetchable items after it, while fewer than N are out."""
        items = item.session.items
        position = self._position_of(item, items)
        rounds: dict[str, int] | None = {} if self.state.run.settings.repeat_auto else None
        for later in items[position:]:
            if self.closed or len(self.started) >= self.width or item.session.shouldstop:
                return
            if rounds is not None and not self._in_round(later, rounds):
                continue  # auto:N: a round starts once the one before it is read
            if later.nodeid in self.started or not prefetchable(later):
                continue
            if not self._start(later):  # type: ignore[arg-type]  # prefetchable: a CaseItem
                return  # the ledger refused: nothing after it may start either

    def _in_round(self, later: pytest.Item, rounds: dict[str, int]) -> bool:
        """Whether ``later``'s skill has no earlier round still owed and is not stopped."""
        if not isinstance(later, CaseItem):
            return True
        from .items import stopped_early
        from .rounds import round_ready

        if later.nodeid in self.started:
            round_ready(later, rounds)  # in flight: its round is still owed
            return True
        return round_ready(later, rounds) and stopped_early(self.state, later) is None

    def take(self, item: pytest.Item) -> Started | None:
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
        from .act import performed  # imported on first run, not at configure
        from .equip import equip

        state = self.state
        if state.ledger is not None and state.ledger.refusal() is not None:
            return False  # it will be refused again, and skipped, in its own turn
        identity, case, skill = item.identity(), item.loaded.case, item.acting_skill
        try:  # made on the main thread, as the fixtures would make them: never raced
            kit = equip(state, case, identity, ahead=True)
        except Exception:
            return True  # not started: its own turn sets it up and reports the failure
        future = self.pool.submit(performed, state, skill, case, kit, identity)
        self.started[item.nodeid] = Started(future, kit.workspace)
        return True

    def _position_of(self, item: pytest.Item, items: list[pytest.Item]) -> int:
        if self._positions is None:
            self._positions = {it.nodeid: i for i, it in enumerate(items)}
        return self._positions.get(item.nodeid, len(items))


def prefetchable(item: pytest.Item) -> bool:
    """Whether ``item`` runs with the plugin's own fixtures only and nothing changes its run."""
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
