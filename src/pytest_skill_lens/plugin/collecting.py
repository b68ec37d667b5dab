"""The collection phase: skill directories to collectors, the items ordered and sharded,
what was selected noted in the collection facts.

Registered in every process of a run; an xdist controller collects nothing, so there
these hooks stay idle and its facts come from its workers (:mod:`.controller`).
"""

from __future__ import annotations

import dataclasses
import gc
from pathlib import Path

import pytest

from ..suite.discovery import SKILL_FILE, directory_problem, is_skill_in_scope
from ..suite.parse_cache import ParseCache
from ..suite.skill import Skill
from .aborted import first_line
from .changed import deselect_unchanged
from .collect import SkillDir, SkillFile, UngradedRubricsWarning
from .facts import PlannedItem
from .isolation import skill_dir_hooks
from .items import CaseItem
from .neighbouring import offer_the_suite
from .registry import judge_grades
from .shard import apply_shard
from .state import SessionState, listing_only


class CollectionHooks:
    """The hooks of the collection phase, over the session's state."""

    def __init__(self, state: SessionState) -> None:
        self.state = state

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        cache = getattr(self.state.config, "cache", None)  # absent under -p no:cacheprovider
        if cache is not None:
            self.state.caches.parse_cache = ParseCache(cache.mkdir("skill-lens-parsed"))

    def pytest_plugin_registered(self, plugin: object) -> None:
        # Replayed for the plugins and conftests registered before this one was.
        self.state.overrides.note(plugin)

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        if file_path.name != SKILL_FILE or not is_skill_in_scope(file_path, self.state.run.roots):
            return None
        return SkillFile.from_parent(parent, path=file_path)

    @pytest.hookimpl(tryfirst=True)  # ahead of pytest's Dir and Package
    def pytest_collect_directory(
        self, path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        # pytest walks regular files only: a FIFO SKILL.md would vanish without a word.
        error = directory_problem(path, self.state.run.roots)
        if error is not None:  # reported on the parent, whose node id is still clean
            raise parent.CollectError("skill-lens authoring error: " + error.message)
        # A skill's directory gets a collector of ours: pytest's would load its conftest.py.
        hooks_dir = skill_dir_hooks(path, parent)
        return SkillDir.for_directory(parent, path, hooks_dir) if hooks_dir is not None else None

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:  # the first line of each: an aborted run's reports name them
            self.state.facts.collection_errors += 1
            error = first_line(report.longreprtext) or report.nodeid
            self.state.results.collection_error_lines.append(error)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        state = self.state
        offer_the_suite(state, items)  # every skill is known now, sharded or not
        deselect_unchanged(state, items)  # before the shard: every shard deals the same cases
        apply_shard(state.config, state.run.shard, items, state.facts)  # before the numbering
        # Planned order: skill name, case, arm, runner, repeat; other tests keep their places.
        slots = [i for i, item in enumerate(items) if isinstance(item, CaseItem)]
        ordered = sorted((items[i] for i in slots), key=lambda it: it.sort_key())  # type: ignore[attr-defined]
        for order, (slot, item) in enumerate(zip(slots, ordered, strict=True)):
            item.order = order  # type: ignore[attr-defined]
            items[slot] = item

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.state.facts.deselected_cases.update(
            item.skill.name for item in items if isinstance(item, CaseItem)
        )

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Collected items, cases and models live until the session ends. Freezing
        # them keeps every later cyclic-GC pass from rescanning thousands of them.
        gc.freeze()
        facts = self.state.facts
        selected: set[str] = set()
        for item in session.items:
            if isinstance(item, CaseItem):
                if item.is_baseline and not prepare_baseline(self.state, item):
                    continue  # skipped with its note as the reason: it never owes an outcome
                facts.planned[item.nodeid] = PlannedItem(
                    item.skill.name,
                    item.case_name,
                    item.runner_name,
                    item.arm,
                    item.repeat_index,
                    item.order,
                )
                selected.add(item.skill.name)
        facts.deselected_skills |= facts.deselected_cases - selected
        option = self.state.config.option
        if option.keyword:
            facts.deselected_by.add("-k")
        if option.markexpr:
            facts.deselected_by.add("-m")
        warn_ungraded(self.state, session)


def warn_ungraded(state: SessionState, session: pytest.Session) -> None:
    """Rubrics the judge cannot grade, as a warning pytest counts like the others. Under
    xdist, whose controller sees node ids only and prints no guess, it is what says them
    (once per worker: each collects every case, as with SKILL.md warnings)."""
    judge = state.run.settings.judge
    # A collection error stops the run first; a listing runs nothing (its plan says it).
    if session.testsfailed or listing_only(state.config) or judge_grades(state.config, judge):
        return
    judged = {
        (item.skill.name, item.case_name)
        for item in session.items
        if isinstance(item, CaseItem) and item.loaded.case.judge is not None
    }
    if judged:
        from .plan import ungraded_message

        session.warn(UngradedRubricsWarning(ungraded_message(len(judged), judge)))


def prepare_baseline(state: SessionState, item: CaseItem) -> bool:
    """Give a selected baseline item what it acts with; False when it has none.

    Done at the end of collection, for selected items only, so a deselected skill costs
    no git call and a listing none at all.
    """
    baselines = state.baselines.get(item.baseline_kind)
    if baselines is None or listing_only(state.config):
        return True
    from ..gate.delta import BaselineNote

    found = baselines.skill_for(item.skill)
    note = found if isinstance(found, BaselineNote) else None
    note = note or baselines.case_note(item.skill, item.loaded)
    if note is not None and item.arm_named:  # one of several arms: the note names it
        note = dataclasses.replace(note, arm=item.baseline_kind)
    if note is None:
        assert isinstance(found, Skill)
        # Both arms are offered the same neighbours: only the skill differs between them.
        neighbours = item.skill.neighbours
        item.acting_skill = (
            dataclasses.replace(found, neighbours=neighbours) if neighbours else found
        )
        source = baselines.source_of(item.skill)
        if source is not None:
            state.facts.baseline_sources[item.skill.name] = source
        return True
    state.facts.add_baseline_note(note)
    item.add_marker(pytest.mark.skip(reason=note.text))
    return False
