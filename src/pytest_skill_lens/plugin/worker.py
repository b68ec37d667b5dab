"""An xdist worker: it collects and runs its share of the items, and sends the
controller what it learnt (:mod:`.controller` is the other role, as pytest-xdist keeps
its ``DSession`` and ``WorkerInteractor`` apart)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .role import Role
from .xdist_workers import WORKER_OUTPUT


class Worker(Role):
    """The hooks of an xdist worker, over the session's state."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        state = self.state
        if state.facts.collection_errors and not state.config.option.continue_on_collection_errors:
            # pytest stops on a collection error in its own run loop, which an xdist
            # worker replaces: run nothing, so an authoring error spends nothing.
            items.clear()

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.close_prefetch()
        self.state.config.workeroutput[WORKER_OUTPUT] = self.output()  # type: ignore[attr-defined]

    def output(self) -> dict[str, Any]:
        """What this worker learnt, as plain data for the controller's gate."""
        return {
            # One JSON text: execnet's serialiser is pure Python, a call per object, and a
            # worker's facts name every item the other workers ran (still owed, to it).
            "facts": json.dumps(self.state.facts.to_dict()),
            "sandbox_overrides": sorted(self.state.results.sandbox_overrides),
        }

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.close()
