"""Each case item's reports: its words, its outcome on its reports, the reports as plain
data between xdist processes, and the outcome kept when its report is logged.

Registered in every process of a run: a worker makes the reports and sends them, the
controller receives and keeps them, a single process does both.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, TypeGuard

import pytest

from ..suite.discovery import SKILL_FILE
from .items import CaseItem
from .state import SessionState

if TYPE_CHECKING:
    from ..perform.outcome import Outcome

# pytest's progress letters for a baseline item: never ".", "F" or "E", which are verdicts.
BASELINE_LETTERS = {"passed": "b", "failed": "B", "errored": "e"}
_FREEZE_EVERY = 500  # outcomes between two freezes of what the session holds


class CaseReports:
    """The hooks on each case item's reports, over the session's state."""

    def __init__(self, state: SessionState) -> None:
        self.state = state

    def pytest_report_teststatus(
        self, report: pytest.TestReport, config: pytest.Config
    ) -> tuple[str, str, str] | None:
        """A baseline item's status under words of its own: it is never a pass or a failure;
        a replayed item's word says so (``PASSED (replayed)``, docs/replay.md)."""
        if report.when != "call":
            return None
        data = _outcome_of(report)
        if data is None:
            return None
        if data.arm != "baseline" and not (data.replayed or data.replayed_calls):
            return None  # pytest's own word (the common case: asked three times an item)
        from ..report.replay_lines import replay_word

        replayed = replay_word(data)
        marked = f" ({replayed})" if replayed else ""
        if data.arm != "baseline":
            if not replayed or report.outcome not in ("passed", "failed"):
                return None
            letter = "." if report.passed else "F"
            return report.outcome, letter, f"{report.outcome.upper()}{marked}"
        status = str(data.status)
        if status not in BASELINE_LETTERS:
            return None
        return f"baseline {status}", BASELINE_LETTERS[status], f"BASELINE {status.upper()}{marked}"

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        try:
            return (yield)
        finally:  # the whole protocol, reruns within it included: its case is done with
            if isinstance(item, CaseItem):
                item.release_case()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if not isinstance(item, CaseItem):
            return report
        item.share_report_keywords(report)
        if call.when == "setup" and item.not_run_reason is not None:
            report.skill_lens_not_run = item.not_run_reason  # type: ignore[attr-defined]
        if call.when == "setup" and item.stopped_reason is not None:
            report.skill_lens_stopped = item.stopped_reason  # type: ignore[attr-defined]
        if item.outcome is None:
            return report
        if call.when == "setup" and call.excinfo is not None:
            from .act import CaseErrored, failure_text  # the item ran: its imports made these

            if isinstance(call.excinfo.value, CaseErrored):
                # pytest renders setup errors as tracebacks; an errored case reads as its cause.
                report.longrepr = failure_text(item, item.outcome)
        if call.when == "call" and item.is_baseline and item.outcome.status != "passed":
            from .act import failure_text

            # It never fails, so pytest shows no failure text; -rA / -rP show this instead.
            report.sections.append(
                ("skill-lens baseline verdict", failure_text(item, item.outcome))
            )
        if (call.when == "setup" and report.failed) or call.when == "call":
            # The object itself; it becomes plain data only if the report is serialised.
            report.skill_lens_outcome = item.outcome  # type: ignore[attr-defined]
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(self, report: Any) -> Generator[None, Any, Any]:
        data = yield
        # pytest-xdist sends reports between processes as plain data.
        if isinstance(data, dict) and _is_outcome(data.get("skill_lens_outcome")):
            from .outcome_wire import ReportFacts, compact_outcome, packed_outcome

            outcome = self.state.outcomes_sent[report.nodeid] = data["skill_lens_outcome"]
            facts = ReportFacts.of_data(data)
            # To the controller packed; as plain data where a reader keeps it (--report-log).
            pack = packed_outcome if self.state.is_worker else compact_outcome
            data["skill_lens_outcome"] = pack(outcome, facts)
        elif isinstance(data, dict) and data.get("when") == "teardown":
            sent = self.state.outcomes_sent.pop(report.nodeid, None)
            if sent is not None:
                from .outcome_wire import leave_out_own_properties

                leave_out_own_properties(data, sent)
        return data

    @pytest.hookimpl(wrapper=True)
    def pytest_report_from_serializable(self, data: Any) -> Generator[None, Any, Any]:
        report = yield
        if isinstance(data, dict):
            from .outcome_wire import restore_properties  # on the controller, which never collects

            restore_properties(data, report, self.state.outcomes_received)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        not_run = getattr(report, "skill_lens_not_run", None)
        if isinstance(not_run, str):
            self.state.results.not_run_reasons[report.nodeid] = not_run
        stopped = getattr(report, "skill_lens_stopped", None)
        if isinstance(stopped, str):
            self.state.results.stopped_early[report.nodeid] = stopped
        outcome = _outcome_of(report)
        if outcome is not None:
            self.state.results.outcomes[report.nodeid] = outcome
            self.state.facts.planned.pop(report.nodeid, None)  # owed no more
            if len(self.state.results.outcomes) % _FREEZE_EVERY == 0:
                _freeze_what_is_held()
        elif report.failed and f"/{SKILL_FILE}::" not in f"/{report.nodeid}":
            self.state.results.other_failures += 1  # an ordinary test in a mixed run


_OUTCOME_MODULE = "pytest_skill_lens.perform.outcome"


def _freeze_what_is_held() -> None:
    """Take what the session holds out of every later cyclic-GC pass.

    Reports and outcomes live to the session's end, and an xdist controller collects no
    items to freeze, so every full pass (pytest's closing ones too) walked them all
    again. Collected first, so no garbage is frozen with them: that pass walks only
    what came since the last freeze.
    """
    gc.collect()
    gc.freeze()


def _is_outcome(value: object) -> TypeGuard[Outcome]:
    """Whether ``value`` is an outcome, asked of every report: none can be before the
    outcome's module is imported, so it is never imported here (nor asked again)."""
    module = sys.modules.get(_OUTCOME_MODULE)
    return module is not None and isinstance(value, module.Outcome)


def _outcome_of(report: Any) -> Outcome | None:
    """The outcome a report carries: the object itself, or rebuilt from the plain data
    of a report not rebuilt on arrival."""
    data = getattr(report, "skill_lens_outcome", None)
    if isinstance(data, dict | str):
        from .outcome_wire import ReportFacts, outcome_from_wire, wire_data

        plain = wire_data(data)
        return None if plain is None else outcome_from_wire(plain, ReportFacts.of_report(report))
    return data if _is_outcome(data) else None
