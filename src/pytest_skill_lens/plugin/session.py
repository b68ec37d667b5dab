"""Hooks that read or write the session's state (registered only when the plugin is on)."""

from __future__ import annotations

import gc
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from ..perform.outcome import Outcome
from ..run.leftovers import sweep
from ..spec.discovery import SKILL_FILE, directory_problem, is_skill_in_scope
from ..spec.parse_cache import ParseCache
from .collect import SkillFile
from .finish import (
    add_scripts_to_junit,
    finish_session,
    mark_failed_gate_in_junit,
    merge_worker_facts,
    worker_facts,
    write_summary,
)
from .items import CaseItem
from .state import SessionState
from .terminate import install_sigterm


class SkillLensSession:
    """The hooks of one session that has skill paths to collect."""

    def __init__(self, config: pytest.Config, state: SessionState) -> None:
        # Objects an earlier in-process session froze (pytester, pytest.main called
        # twice) go back to the collector. This session's stay frozen to the end, so
        # pytest's own closing gc.collect() passes skip them too.
        gc.unfreeze()
        self.config = config
        self.state = state
        self.is_worker = hasattr(config, "workerinput")
        # SIGTERM (a CI cancel) unwinds like Ctrl-C, so teardown deletes the workspaces.
        self.restore_sigterm = install_sigterm()

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if not self.is_worker:  # what a run killed by SIGKILL left behind
            sweep(Path(tempfile.gettempdir()))
        cache = getattr(self.config, "cache", None)  # absent under -p no:cacheprovider
        if cache is not None:
            self.state.parse_cache = ParseCache(cache.mkdir("skill-lens-parsed"))

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        if file_path.name != SKILL_FILE or not is_skill_in_scope(file_path, self.state.roots):
            return None
        return SkillFile.from_parent(parent, path=file_path)

    @pytest.hookimpl(tryfirst=True)  # before any hook that returns the directory's collector
    def pytest_collect_directory(self, path: Path, parent: pytest.Collector) -> None:
        # pytest walks regular files only: a FIFO SKILL.md would vanish without a word.
        error = directory_problem(path, self.state.roots)
        if error is not None:  # reported on the parent, whose node id is still clean
            raise parent.CollectError("skill-lens authoring error: " + error.message)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        # Planned order: skill name, case, arm, runner, repeat; other tests keep their places.
        slots = [i for i, item in enumerate(items) if isinstance(item, CaseItem)]
        ordered = sorted((items[i] for i in slots), key=lambda it: it.sort_key())  # type: ignore[attr-defined]
        for order, (slot, item) in enumerate(zip(slots, ordered, strict=True)):
            item.order = order  # type: ignore[attr-defined]
            items[slot] = item
        if (
            self.is_worker
            and self.state.collection_errors
            and not self.config.option.continue_on_collection_errors
        ):
            # pytest stops on a collection error in its own run loop, which an xdist
            # worker replaces: run nothing, so an authoring error spends nothing.
            items.clear()

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.state.deselected_cases.update(
            item.skill.name for item in items if isinstance(item, CaseItem)
        )

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Collected items, cases and models live until the session ends. Freezing
        # them keeps every later cyclic-GC pass from rescanning thousands of them.
        gc.freeze()
        selected: set[str] = set()
        for item in session.items:
            if isinstance(item, CaseItem):
                self.state.planned[item.nodeid] = {
                    "skill_name": item.skill.name,
                    "case_name": item.case_name,
                    "runner": item.runner_name,
                    "arm": item.arm,
                    "repeat_index": item.repeat_index,
                    "order": item.order,
                }
                selected.add(item.skill.name)
        self.state.deselected_skills |= self.state.deselected_cases - selected
        if self.config.option.keyword:
            self.state.deselected_by.add("-k")
        if self.config.option.markexpr:
            self.state.deselected_by.add("-m")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.state.collection_errors += 1

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if not isinstance(item, CaseItem) or item.outcome is None:
            return report
        from .act import CaseErrored, failure_text

        if (
            call.when == "setup"
            and call.excinfo is not None
            and isinstance(call.excinfo.value, CaseErrored)
        ):
            # pytest renders setup errors as tracebacks; an errored case reads as its cause.
            report.longrepr = failure_text(item, item.outcome)
        if (call.when == "setup" and report.failed) or call.when == "call":
            # The object itself; it becomes plain data only if the report is serialised.
            report.skill_lens_outcome = item.outcome  # type: ignore[attr-defined]
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(self, report: Any) -> Generator[None, Any, Any]:
        data = yield
        # pytest-xdist sends reports between processes as plain data.
        if isinstance(data, dict) and isinstance(data.get("skill_lens_outcome"), Outcome):
            data["skill_lens_outcome"] = data["skill_lens_outcome"].to_dict()
        return data

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, "skill_lens_outcome", None)
        if isinstance(data, Outcome):
            self.state.outcomes[report.nodeid] = data
        elif data is not None:  # from an xdist worker
            self.state.outcomes[report.nodeid] = Outcome.from_dict(data)
        elif report.failed and f"/{SKILL_FILE}::" not in f"/{report.nodeid}":
            self.state.other_failures += 1  # an ordinary test in a mixed run

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        merge_worker_facts(self.state, getattr(node, "workeroutput", {}).get("skill_lens"))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.is_worker:
            self.config.workeroutput["skill_lens"] = worker_facts(self.state)  # type: ignore[attr-defined]
            return
        session.exitstatus = finish_session(session, self.state, int(exitstatus))

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.restore_sigterm is not None:
            self.restore_sigterm()
        # pytest's junitxml wrote its file at session finish; only now can we amend it.
        path = getattr(config.option, "xmlpath", None)
        if path and not self.is_worker:
            add_scripts_to_junit(Path(path), self.state)
            mark_failed_gate_in_junit(Path(path), self.state)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.is_worker:
            write_summary(terminalreporter, self.state)
