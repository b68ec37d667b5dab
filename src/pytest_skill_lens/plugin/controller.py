"""The process that reports: a single process, or pytest-xdist's controller.

It prints the plan, shows the progress, takes what each xdist worker learnt, and at the
end gates the run and writes the reports (:mod:`.finish`), or, for a session that ends
without a gate, writes them as aborted (:mod:`.aborted`). A worker has its own plugin
object (:mod:`.worker`), as pytest-xdist keeps its controller's and its worker's apart.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..run.process.leftovers import sweep_temp
from ..run.process.temp_parent import remove_parent_if_empty
from .aborted import note_internal_error, note_interruption, rewrite_unfinished
from .facts import CollectionFacts
from .items import CaseItem
from .registry import judge_grades
from .role import Role
from .state import SessionState, listing_only
from .xdist_workers import LEDGER_INPUT, WORKER_OUTPUT, LocalWorkers, lend_shared

if TYPE_CHECKING:
    from .plan import PlannedRun


class Controller(Role):
    """The hooks of the process that gates and reports, over the session's state."""

    def __init__(
        self,
        state: SessionState,
        workers: LocalWorkers,
        restore_sigterm: Callable[[], None] | None,
    ) -> None:
        super().__init__(state, restore_sigterm)
        self.workers = workers  # a SIGTERM is passed on to them
        self.plan_printed = False
        self._sweeper: threading.Thread | None = None

    # -- start ---------------------------------------------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        ledger = self.state.ledger
        if ledger is not None:  # every xdist worker spends against the one ceiling
            node.workerinput[LEDGER_INPUT] = str(ledger.directory)
        lend_shared(node)  # a local worker uses the package and templates the preflight made

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # What a run killed by SIGKILL left behind (a Copilot package is 235 MB):
        # removed beside this run, not before it; unconfigure waits for the end.
        self._sweeper = threading.Thread(target=sweep_temp, name="skill-lens-sweep")
        self._sweeper.daemon = True
        self._sweeper.start()

    # -- the plan, before the first case -------------------------------------------------

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # A collection error stops the run before any case (exit 2): no plan to show.
        if not session.testsfailed:
            self._print_plan(lambda: _planned_runs(session.items), budgets_known=True)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self.plan_printed:  # every worker collects the same items: the first says it
            workers = int(getattr(self.state.config.option, "numprocesses", 0) or 1)
            self._print_plan(lambda: _runs_of(ids), budgets_known=False, processes=workers)

    def _print_plan(
        self, runs: Callable[[], list[PlannedRun]], *, budgets_known: bool, processes: int = 1
    ) -> None:
        """The plan, before the first case, for a run whose runner or judge may spend."""
        config, run = self.state.config, self.state.run
        settings = run.settings
        self.plan_printed = True
        seats = [*run.runner_names, settings.judge]
        # The fake runner and judge spend nothing; a listing spends nothing either.
        spends = not listing_only(config) and any(seat != "fake" for seat in seats)
        # An xdist controller sees node ids only, not rubrics: there the workers' counted
        # warning (collecting.warn_ungraded) says it, in pytest's warnings summary.
        ungraded = budgets_known and not judge_grades(config, settings.judge)
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or not (spends or ungraded):
            return
        from .plan import plan_lines, plan_of, ungraded_line

        planned = runs()
        lines = []
        if spends:
            plan = plan_of(
                planned,
                arms=1 + len(settings.baselines),
                repeats=settings.repeat_count,
                runners=len(run.runner_names),
                max_spend_usd=settings.max_spend_usd,
                processes=processes,
                budgets_known=budgets_known,
                auto=settings.repeat_auto,
            )
            lines = plan_lines(plan)
        said = ungraded_line(planned, settings.judge) if ungraded else None
        for line in [*lines, *([said] if said else [])]:
            reporter.write_line(line)

    # -- while cases run -----------------------------------------------------------------

    @pytest.hookimpl(wrapper=True, trylast=True)  # inside pytest's reporter's own wrapper
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        if listing_only(self.state.config):
            return (yield)
        from .progress import shown_progress  # a run's display: never loaded by a collection

        with shown_progress(self.state, session):
            return (yield)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodeready(self, node: Any) -> None:
        self.workers.came_up(node)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        self.workers.went_down(node)
        output = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT)
        if output:  # what the worker learnt (.worker): its facts and the sandboxes it used
            self.state.facts.merge(CollectionFacts.from_dict(json.loads(output["facts"])))
            self.state.results.sandbox_overrides.update(output["sandbox_overrides"])

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        note_interruption(self.state.results, excinfo)

    def pytest_internalerror(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        note_internal_error(self.state.results, excinfo)

    # -- the finish ----------------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.close_prefetch()
        from .finish import finish_session  # the gate and the reports: never during collection

        session.exitstatus = finish_session(session, self.state, int(exitstatus))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from .finish import write_summary

        write_summary(terminalreporter, self.state.results)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        state = self.state
        results = state.results
        if results.watched and results.record is None:
            # The session never reached its finish: its reports say so, and why.
            rewrite_unfinished(config, state.run, results)
        self.close()
        if self._sweeper is not None:
            self._sweeper.join()
        if state.ledger is not None:
            state.ledger.remove()
        remove_parent_if_empty()  # another session's directories keep it
        # pytest's junitxml wrote its file at session finish; only now can we amend it.
        path = getattr(config.option, "xmlpath", None)
        if path:
            from .finish import amend_junit

            amend_junit(Path(path), results)


# The plan's runs are made only for a plan that is printed: a listing, or a run of the
# fake runner and judge, prints none (and imports no plan module).
def _planned_runs(items: list[pytest.Item]) -> list[PlannedRun]:
    from .plan import PlannedRun

    return [
        PlannedRun(
            item.skill.name, item.case_name, _budget_of(item), item.loaded.case.judge is not None
        )
        for item in items
        if isinstance(item, CaseItem)
    ]


def _runs_of(node_ids: list[str]) -> list[PlannedRun]:
    from .plan import runs_from_node_ids

    return runs_from_node_ids(node_ids)


def _budget_of(item: CaseItem) -> float | None:
    budget = item.loaded.case.budget
    return None if budget is None else budget.max_cost_usd
