"""What the plugin objects of both process roles share (:mod:`.controller`, :mod:`.worker`):
the session's state, the SIGTERM handler they installed, and closing what the run opened."""

from __future__ import annotations

import sys
from collections.abc import Callable

from .state import SessionState


class Role:
    """A process's plugin object: a controller's (or a single process's), or a worker's."""

    def __init__(self, state: SessionState, restore_sigterm: Callable[[], None] | None) -> None:
        self.state = state
        self.restore_sigterm = restore_sigterm

    def close_prefetch(self) -> None:
        """Runs started ahead that no item took (-x, Ctrl-C) spent too: they are recorded."""
        state = self.state
        if state.prefetch is None:
            return
        for nodeid, outcome, workspace in state.prefetch.close():
            state.results.outcomes.setdefault(nodeid, outcome)
            if workspace is not None and not state.run.settings.keep_workspace:
                workspace.cleanup()
        state.prefetch = None

    def close(self) -> None:
        """At unconfigure: the signal handler restored, what was started or extracted gone."""
        if self.restore_sigterm is not None:
            self.restore_sigterm()
        self.close_prefetch()
        # The product calls' directories, deleted off the cases' path; a run that started
        # no product never imported the module, and need not now.
        calls = sys.modules.get("pytest_skill_lens.run.products.process")
        if calls is not None:
            calls.wait_removed()
        for arm in self.state.baselines.values():  # the previous versions' extracted bundles
            arm.close()
