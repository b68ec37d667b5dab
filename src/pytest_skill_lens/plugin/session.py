"""The session of a run that has skill paths to collect: its parts and its behaviour.

:class:`SkillLensSession` is registered as a plugin when the plugin is on and kept in
``config.stash`` (:func:`.state.get_session`). It owns the run's configuration (frozen),
the collection facts (what an xdist worker sends the controller), the results and the
per-session caches, and carries every hook that reads or writes them.
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

import pytest

from ..run.leftovers import sweep
from ..suite.discovery import SKILL_FILE, directory_problem, is_skill_in_scope
from ..suite.parse_cache import ParseCache
from ..suite.skill import Skill
from .caches import SessionCaches
from .collect import SkillDir, SkillFile
from .facts import CollectionFacts, PlannedItem
from .isolation import skill_dir_hooks
from .items import CaseItem
from .overrides import FixtureOverrides
from .registry import judge_grades
from .results import SessionResults
from .run_config import RunConfig
from .shard import apply_shard
from .state import listing_only
from .terminate import install_sigterm
from .xdist_workers import LocalWorkers, lend_packages

# What only a run uses (performing, the wire, the gate, the reports) is imported in
# the hook that first needs it: configure and collection, all an IDE or a
# --collect-only asks for, never load it (tests/plugin/test_collection_imports.py).
if TYPE_CHECKING:
    from ..perform.outcome import Outcome
    from ..run.runner import Runner
    from ..run.sandbox import SandboxDecision
    from ..score.check import Evaluator
    from ..score.judge import Judge
    from .baselines import BaselineArms
    from .concurrency import Prefetcher
    from .ledger import SpendLedger
    from .plan import PlannedRun

WORKER_OUTPUT = "skill_lens"  # the key of an xdist worker's workeroutput
LEDGER_INPUT = "skill_lens_ledger"  # the key of the spend ledger's directory in workerinput
# pytest's progress letters for a baseline item: never ".", "F" or "E", which are verdicts.
_FREEZE_EVERY = 500  # outcomes between two freezes of what the session holds
BASELINE_LETTERS = {"passed": "b", "failed": "B", "errored": "e"}


class SkillLensSession:
    """One session: its configuration, collection facts, results and caches, and its hooks."""

    def __init__(self, config: pytest.Config, run: RunConfig) -> None:
        # Objects an earlier in-process session froze (pytester, pytest.main called
        # twice) go back to the collector. This session's stay frozen to the end, so
        # pytest's own closing gc.collect() passes skip them too.
        gc.unfreeze()
        self.config = config
        self.run = run
        self.facts = CollectionFacts()
        self.results = SessionResults()
        self.caches = SessionCaches()
        self.overrides = FixtureOverrides()  # where a conftest defines a case fixture again
        self._sandbox: tuple[SandboxDecision | None] | None = None
        # Under xdist: items whose outcome went to the controller (on a worker), and
        # outcomes whose teardown report has yet to arrive (on the controller).
        self.outcomes_sent: dict[str, Outcome] = {}
        self.outcomes_received: dict[str, Outcome] = {}
        self.baselines: BaselineArms | None = None
        if run.settings.baseline:
            from .baselines import BaselineArms  # only a run with a baseline arm needs it

            self.baselines = BaselineArms(run.settings.baseline)
        self.is_worker = hasattr(config, "workerinput")
        self.ledger = self._ledger(config, run)
        self.plan_printed = False
        self._sweeper: threading.Thread | None = None
        self.prefetch: Prefetcher | None = None
        if run.settings.concurrency > 1 and not listing_only(config):
            from .concurrency import Prefetcher  # a listing starts nothing ahead

            self.prefetch = Prefetcher(self, run.settings.concurrency)
        # SIGTERM (a CI cancel) unwinds like Ctrl-C, so teardown deletes the workspaces;
        # under xdist the controller passes it on to its workers.
        self.workers = LocalWorkers()
        self.restore_sigterm = install_sigterm(self.workers)

    def _close_prefetch(self) -> None:
        """Runs started ahead that no item took (-x, Ctrl-C) spent too: they are recorded."""
        if self.prefetch is None:
            return
        for nodeid, outcome, workspace in self.prefetch.close():
            self.results.outcomes.setdefault(nodeid, outcome)
            if workspace is not None and not self.run.settings.keep_workspace:
                workspace.cleanup()
        self.prefetch = None

    def _ledger(self, config: pytest.Config, run: RunConfig) -> SpendLedger | None:
        """The spend ledger this process reads: the controller's, shared with its workers."""
        ceiling = run.settings.max_spend_usd
        if ceiling is None or listing_only(config):
            return None
        from .ledger import SpendLedger  # a listing spends nothing

        if self.is_worker:
            shared = config.workerinput.get(LEDGER_INPUT)  # type: ignore[attr-defined]
            return SpendLedger(ceiling, Path(shared)) if shared else SpendLedger.create(ceiling)
        return SpendLedger.create(ceiling)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.ledger is not None:  # every xdist worker spends against the one ceiling
            node.workerinput[LEDGER_INPUT] = str(self.ledger.directory)
        lend_packages(node)  # a local worker uses the Copilot package the preflight unpacked

    def pytest_plugin_registered(self, plugin: object) -> None:
        # Replayed for the plugins and conftests registered before this session was.
        self.overrides.note(plugin)

    def run_sandbox(self) -> SandboxDecision | None:
        """The run's sandbox decision, made once: ``None`` when scripts are off."""
        if self._sandbox is None:
            from ..run.sandbox import decide

            settings = self.run.settings
            self._sandbox = (decide(settings.script_sandbox) if settings.allow_scripts else None,)
        return self._sandbox[0]

    def runner_for(self, name: str, sandbox: SandboxDecision | None) -> Runner:
        """The runner ``name``, built once per sandbox decision and shared by every item."""
        self.note_sandbox(sandbox)
        key = (name, sandbox)
        runner = self.caches.runners.get(key)
        if runner is None:  # asked of every item: the import only where one is built
            from .registry import build_runner

            runner = build_runner(self.config, name, self.run.settings, sandbox)
            self.caches.runners[key] = runner
        return runner

    def note_sandbox(self, decision: SandboxDecision | None) -> None:
        """Remember a sandbox a conftest chose instead of the run's, so the report says so."""
        scripts = self.run.scripts
        if decision is None or scripts is None:
            return
        if (decision.backend, decision.detail) != (scripts["sandbox"], scripts["detail"]):
            self.results.sandbox_overrides.add(decision.label)

    def judge(self) -> Judge:
        """The judge that grades every rubric of the session, built once."""
        from .registry import build_judge

        if self.caches.judge is None:
            settings = self.run.settings
            self.caches.judge = build_judge(self.config, settings.judge, settings)
        return self.caches.judge

    def evaluators(self) -> tuple[Evaluator, ...]:
        """Evaluators that conftests add, asked for once every conftest has loaded."""
        if self.caches.evaluators is None:
            groups = self.config.hook.pytest_skill_lens_evaluators(config=self.config)
            found = tuple(evaluator for group in groups for evaluator in group or ())
            self.caches.evaluators = found
        return self.caches.evaluators

    def worker_output(self) -> dict[str, Any]:
        """What an xdist worker learnt, as plain data for the controller's gate."""
        return {
            # One JSON text: execnet's serialiser is pure Python, a call per object, and a
            # worker's facts name every item the other workers ran (still owed, to it).
            "facts": json.dumps(self.facts.to_dict()),
            "sandbox_overrides": sorted(self.results.sandbox_overrides),
        }

    def take_worker_output(self, output: dict[str, Any] | None) -> None:
        if not output:
            return
        self.facts.merge(CollectionFacts.from_dict(json.loads(output["facts"])))
        self.results.sandbox_overrides.update(output["sandbox_overrides"])

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if not self.is_worker:
            # What a run killed by SIGKILL left behind (a Copilot package is 235 MB):
            # removed beside this run, not before it; unconfigure waits for the end.
            self._sweeper = threading.Thread(
                target=sweep, args=(Path(tempfile.gettempdir()),), name="skill-lens-sweep"
            )
            self._sweeper.daemon = True
            self._sweeper.start()
        cache = getattr(self.config, "cache", None)  # absent under -p no:cacheprovider
        if cache is not None:
            self.caches.parse_cache = ParseCache(cache.mkdir("skill-lens-parsed"))

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        if file_path.name != SKILL_FILE or not is_skill_in_scope(file_path, self.run.roots):
            return None
        return SkillFile.from_parent(parent, path=file_path)

    @pytest.hookimpl(tryfirst=True)  # ahead of pytest's Dir and Package
    def pytest_collect_directory(
        self, path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        # pytest walks regular files only: a FIFO SKILL.md would vanish without a word.
        error = directory_problem(path, self.run.roots)
        if error is not None:  # reported on the parent, whose node id is still clean
            raise parent.CollectError("skill-lens authoring error: " + error.message)
        # A skill's directory gets a collector of ours: pytest's would load its conftest.py.
        hooks_dir = skill_dir_hooks(path, parent)
        return SkillDir.for_directory(parent, path, hooks_dir) if hooks_dir is not None else None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        apply_shard(self.config, self.run.shard, items, self.facts)  # before items are numbered
        # Planned order: skill name, case, arm, runner, repeat; other tests keep their places.
        slots = [i for i, item in enumerate(items) if isinstance(item, CaseItem)]
        ordered = sorted((items[i] for i in slots), key=lambda it: it.sort_key())  # type: ignore[attr-defined]
        for order, (slot, item) in enumerate(zip(slots, ordered, strict=True)):
            item.order = order  # type: ignore[attr-defined]
            items[slot] = item
        if (
            self.is_worker
            and self.facts.collection_errors
            and not self.config.option.continue_on_collection_errors
        ):
            # pytest stops on a collection error in its own run loop, which an xdist
            # worker replaces: run nothing, so an authoring error spends nothing.
            items.clear()

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.facts.deselected_cases.update(
            item.skill.name for item in items if isinstance(item, CaseItem)
        )

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Collected items, cases and models live until the session ends. Freezing
        # them keeps every later cyclic-GC pass from rescanning thousands of them.
        gc.freeze()
        selected: set[str] = set()
        for item in session.items:
            if isinstance(item, CaseItem):
                if item.is_baseline and not self._prepare_baseline(item):
                    continue  # skipped with its note as the reason: it never owes an outcome
                self.facts.planned[item.nodeid] = PlannedItem(
                    item.skill.name,
                    item.case_name,
                    item.runner_name,
                    item.arm,
                    item.repeat_index,
                    item.order,
                )
                selected.add(item.skill.name)
        self.facts.deselected_skills |= self.facts.deselected_cases - selected
        # A collection error stops the run before any case (exit 2): no plan to show.
        if not self.is_worker and not session.testsfailed:
            self._print_plan(lambda: _planned_runs(session.items), budgets_known=True)
        if self.config.option.keyword:
            self.facts.deselected_by.add("-k")
        if self.config.option.markexpr:
            self.facts.deselected_by.add("-m")

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self.plan_printed:  # every worker collects the same items: the first says it
            workers = int(getattr(self.config.option, "numprocesses", 0) or 1)
            self._print_plan(lambda: _runs_of(ids), budgets_known=False, processes=workers)

    def _print_plan(
        self, runs: Callable[[], list[PlannedRun]], *, budgets_known: bool, processes: int = 1
    ) -> None:
        """The plan, before the first case, for a run whose runner or judge may spend."""
        settings = self.run.settings
        self.plan_printed = True
        seats = [*self.run.runner_names, settings.judge]
        # The fake runner and judge spend nothing; a listing spends nothing either.
        spends = not listing_only(self.config) and any(seat != "fake" for seat in seats)
        # An xdist controller cannot count rubrics: it warns only when a run is paid for.
        ungraded = not judge_grades(self.config, settings.judge) and (spends or budgets_known)
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or not (spends or ungraded):
            return
        from .plan import plan_lines, plan_of, ungraded_line

        planned = runs()
        lines = []
        if spends:
            plan = plan_of(
                planned,
                arms=2 if settings.baseline else 1,
                repeats=settings.repeat,
                runners=len(self.run.runner_names),
                max_spend_usd=settings.max_spend_usd,
                processes=processes,
                budgets_known=budgets_known,
            )
            lines = plan_lines(plan)
        said = ungraded_line(planned, settings.judge) if ungraded else None
        for line in [*lines, *([said] if said else [])]:
            reporter.write_line(line)

    def _prepare_baseline(self, item: CaseItem) -> bool:
        """Give a selected baseline item what it acts with; False when it has none.

        Done here, for selected items only, so a deselected skill costs no git call and
        a listing none at all.
        """
        if self.baselines is None or listing_only(self.config):
            return True
        from ..gate.delta import BaselineNote

        found = self.baselines.skill_for(item.skill)
        note = found if isinstance(found, BaselineNote) else None
        note = note or self.baselines.case_note(item.skill, item.loaded)
        if note is None:
            assert isinstance(found, Skill)
            item.acting_skill = found
            source = self.baselines.source_of(item.skill)
            if source is not None:
                self.facts.baseline_sources[item.skill.name] = source
            return True
        self.facts.add_baseline_note(note)
        item.add_marker(pytest.mark.skip(reason=note.text))
        return False

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

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.facts.collection_errors += 1

    @pytest.hookimpl(wrapper=True, trylast=True)  # inside pytest's reporter's own wrapper
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        if self.is_worker or listing_only(self.config):
            return (yield)  # the controller shows its workers' cases
        from .progress import shown_progress  # a run's display: never loaded by a collection

        with shown_progress(self, session):
            return (yield)

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

            outcome = self.outcomes_sent[report.nodeid] = data["skill_lens_outcome"]
            facts = ReportFacts.of_data(data)
            # To the controller packed; as plain data where a reader keeps it (--report-log).
            pack = packed_outcome if self.is_worker else compact_outcome
            data["skill_lens_outcome"] = pack(outcome, facts)
        elif isinstance(data, dict) and data.get("when") == "teardown":
            sent = self.outcomes_sent.pop(report.nodeid, None)
            if sent is not None:
                from .outcome_wire import leave_out_own_properties

                leave_out_own_properties(data, sent)
        return data

    @pytest.hookimpl(wrapper=True)
    def pytest_report_from_serializable(self, data: Any) -> Generator[None, Any, Any]:
        report = yield
        if isinstance(data, dict):
            from .outcome_wire import restore_properties  # on the controller, which never collects

            restore_properties(data, report, self.outcomes_received)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        not_run = getattr(report, "skill_lens_not_run", None)
        if isinstance(not_run, str):
            self.results.not_run_reasons[report.nodeid] = not_run
        outcome = _outcome_of(report)
        if outcome is not None:
            self.results.outcomes[report.nodeid] = outcome
            self.facts.planned.pop(report.nodeid, None)  # owed no more
            if len(self.results.outcomes) % _FREEZE_EVERY == 0:
                _freeze_what_is_held()
        elif report.failed and f"/{SKILL_FILE}::" not in f"/{report.nodeid}":
            self.results.other_failures += 1  # an ordinary test in a mixed run

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodeready(self, node: Any) -> None:
        self.workers.came_up(node)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        self.workers.went_down(node)
        self.take_worker_output(getattr(node, "workeroutput", {}).get(WORKER_OUTPUT))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self._close_prefetch()
        if self.is_worker:
            self.config.workeroutput[WORKER_OUTPUT] = self.worker_output()  # type: ignore[attr-defined]
            return
        from .finish import finish_session  # the gate and the reports: never during collection

        session.exitstatus = finish_session(session, self, int(exitstatus))

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.restore_sigterm is not None:
            self.restore_sigterm()
        if self._sweeper is not None:
            self._sweeper.join()
        self._close_prefetch()
        if self.baselines is not None:  # the previous versions' extracted bundles
            self.baselines.close()
        if self.ledger is not None and not self.is_worker:
            self.ledger.remove()
        # pytest's junitxml wrote its file at session finish; only now can we amend it.
        path = getattr(config.option, "xmlpath", None)
        if path and not self.is_worker:
            from .finish import amend_junit

            amend_junit(Path(path), self.results)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.is_worker:
            from .finish import write_summary

            write_summary(terminalreporter, self.results)


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
