"""Collection: one collector per ``SKILL.md``, one item per (case, arm, runner, repeat)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..gcpause import gc_paused
from ..suite.discovery import (
    SKILL_FILE,
    directory_problem,
    eval_files_for,
    is_skill_in_scope,
    misplaced_eval_files,
    reaches_scope,
)
from ..suite.errors import AuthoringError, AuthoringErrors, Where, combined
from ..suite.loader import gather_suite
from ..suite.skill import Skill, load_skill
from ..suite.skill_md_rules import as_entry
from .case_rules import (
    delivered_copy_readers,
    preflight_interpreters,
    preflight_tools,
    runner_rules,
)
from .changed import note_inputs
from .isolation import SkillHooks
from .items import NO_CASES, CaseItem, SkippedSkillItem
from .neighbouring import offered_with, with_neighbours
from .registry import RegistryError, check_names, described_runners
from .signatures import case_signature
from .state import get_session, listing_only

if TYPE_CHECKING:
    from ..settings import Settings
    from .facts import CollectionFacts
    from .state import SessionState

AUTHORING_PREFIX = "skill-lens authoring error: "


class SkillLensWarning(pytest.PytestWarning):
    """Something in a skill the run goes on without, named so it is never silently ignored."""


class UngradedRubricsWarning(SkillLensWarning):
    """Cases carry a ``judge:`` rubric the configured judge cannot grade (plugin/plan.py)."""


class SkillDir(SkillHooks, pytest.Collector):
    """A skill's directory, or one inside it, collected as data.

    Not a :class:`pytest.Directory`: pytest loads the ``conftest.py`` of every
    Directory it collects, and imports the Python files its hooks are offered.
    This yields the skill's ``SKILL.md`` and nothing else from the directory;
    its subdirectories are walked only for nested skills the run takes in.
    """

    def __init__(self, *, skill_hooks_dir: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.skill_hooks_dir = skill_hooks_dir  # read by SkillHooks.ihook

    @classmethod
    def for_directory(cls, parent: pytest.Collector, path: Path, hooks_dir: Path) -> SkillDir:
        try:  # the same node id as pytest's own directory collector would have
            nodeid: str | None = path.relative_to(parent.config.rootpath).as_posix()
        except ValueError:
            nodeid = None
        return cls.from_parent(
            parent, name=path.name, path=path, nodeid=nodeid, skill_hooks_dir=hooks_dir
        )

    def collect(self) -> Iterator[pytest.Collector]:
        session = get_session(self.config)
        assert session is not None
        roots = session.run.roots
        skill_md = self.path / SKILL_FILE
        if skill_md.is_file() and is_skill_in_scope(skill_md, roots):
            yield SkillFile.from_parent(self, path=skill_md)
        with os.scandir(self.path) as scanned:
            entries = sorted(scanned, key=lambda entry: entry.name)
        for entry in entries:
            # A symbolic link is not followed: a link to an ancestor would never end.
            if not entry.is_dir(follow_symlinks=False):
                continue
            path = Path(entry.path)
            if not reaches_scope(path, roots):
                continue
            if self.ihook.pytest_ignore_collect(collection_path=path, config=self.config):
                continue  # --ignore, norecursedirs, collect_ignore of the conftests above
            # pytest's own walk (which this replaces) would have judged it in the session.
            error = directory_problem(path, roots)
            if error is not None:
                raise self.CollectError("skill-lens authoring error: " + error.message)
            yield SkillDir.for_directory(self, path, self.skill_hooks_dir)


class SkillFile(SkillHooks, pytest.File):
    """``SKILL.md``: the node every case of the skill hangs under."""

    def collect(self) -> list[pytest.Item]:
        with gc_paused():  # thousands of small acyclic objects: see gcpause
            return list(self._items())

    def _items(self) -> Iterator[pytest.Item]:
        session = get_session(self.config)
        assert session is not None
        if not _registry_ok(self.config, session):
            return
        run, facts = session.run, session.facts
        skill = load_skill(self.path)
        strict = run.settings.strict_skill_md
        if not strict:  # the run goes on: pytest's warnings summary and the report say so
            _warn_departures(self, skill, facts)
        _claim_name(facts, skill)
        files = eval_files_for(skill.directory, run.evals_override)
        skill = _withholding(skill, run.evals_override, files)
        if run.settings.allow_scripts and not listing_only(self.config):
            preflight_interpreters(skill, run.settings)  # every discovered skill, selected or not
        elif not run.settings.allow_scripts:
            _note_idle_scripts(skill, run.settings, facts)
        suite, errors = gather_suite(skill, files, session.caches.parse_cache)
        errors = [*skill.unfinished, *(skill.departures if strict else ()), *errors]
        misplaced = [] if run.evals_override else misplaced_eval_files(skill.directory, files)
        if not suite.cases and not errors and misplaced:
            errors = [found.error(alone=True) for found in misplaced]
        if not listing_only(self.config) and suite.cases:
            runners = described_runners(self.config, run.runner_names)
            errors += runner_rules(suite.cases, runners, skill.name)
            errors += delivered_copy_readers(suite.cases, runners, skill.name, run.settings)
            if not errors:  # this check starts a process: not for a run refused anyway
                preflight_tools(self.config, suite.cases, runners, run.settings)
        offered = offered_with(skill, suite.cases, run, errors)  # before any spend
        if errors:
            raise combined(errors)
        note_inputs(session, suite)  # --skill-lens-changed: what its run reads
        for found in misplaced:  # the skill has cases: the file is named, not fatal
            self.warn(SkillLensWarning(found.error(alone=False).message))
        if not suite.cases:
            facts.skipped_skills.add(skill.name)
            yield SkippedSkillItem.from_parent(self, name=NO_CASES, skill_name=skill.name)
            return
        kinds = run.settings.baselines
        arms = [("candidate", ""), *(("baseline", kind) for kind in kinds)]
        named = len(kinds) > 1  # several arms: each is named in its items' ids
        repeats = run.settings.repeat_count
        # Items asking for the same fixtures share their resolution, done once per file
        # (pytest shares it the same way between the items of a parametrized test).
        resolved: dict[Callable[..., None], Any] = {}
        through_pytest = bool(
            getattr(self.config.option, "show_fixtures_per_test", False)
        ) or session.overrides.apply_to(self.path)
        for position, loaded in enumerate(suite.cases):
            signature = case_signature(loaded.case, through_pytest=through_pytest)
            for arm, kind in arms:
                for runner in run.runner_names:
                    for repeat in range(repeats):
                        item = CaseItem.from_parent(
                            self,
                            name=item_name(loaded.name, runner, arm, repeat, kind if named else ""),
                            callobj=signature,
                            fixtureinfo=resolved.get(signature),
                            skill=with_neighbours(skill, offered[loaded.index, loaded.file]),
                            loaded=loaded,
                            runner=runner,
                            arm=arm,
                            baseline_kind=kind,
                            arm_named=named,
                            repeat_index=repeat,
                            position=position,
                        )
                        resolved[signature] = getattr(item, "_fixtureinfo", None)
                        yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, AuthoringErrors):
            return excinfo.value.render(AUTHORING_PREFIX)
        if isinstance(excinfo.value, AuthoringError):
            return AUTHORING_PREFIX + excinfo.value.message
        if isinstance(excinfo.value, RegistryError):
            return f"skill-lens: {excinfo.value}"
        return super().repr_failure(excinfo)


def _warn_departures(node: SkillFile, skill: Skill, facts: CollectionFacts) -> None:
    """Each departure of the skill's SKILL.md from the specification, as a warning.

    Node.warn puts it at the file's line 0, so pytest shows no raw line of the file beside
    it; the message says the line, with the value escaped."""
    for departure in skill.departures:
        node.warn(SkillLensWarning(departure.message))
    if skill.departures:
        facts.skill_md_warnings[str(skill.path)] = [as_entry(d) for d in skill.departures]


def item_name(case_name: str, runner: str, arm: str, repeat_index: int, kind: str = "") -> str:
    """``case[runner-baseline-r2]``; the arm's kind after ``baseline`` when several ran, so
    a run of one arm keeps the ids users select with -k and CI history knows."""
    suffix = "-baseline" if arm == "baseline" else ""
    if suffix and kind:
        suffix += f"-{kind}"
    if repeat_index:
        suffix += f"-r{repeat_index + 1}"
    return f"{case_name}[{runner}{suffix}]"


def _withholding(skill: Skill, override: Path | None, files: list[Path]) -> Skill:
    """``skill`` keeping the eval paths ``--skill-lens-evals`` names out of its bundle.

    Discovered eval files are withheld by name (``evals/``, ``*.eval.yaml``); one
    given on the command line may be named anything, anywhere in the skill's
    directory. The path given is withheld, unless it is a directory holding the
    skill itself: then only the eval files read from it are.
    """
    if override is None:
        return skill
    withheld = list(files)
    skill_dir = skill.directory.resolve()
    if not (override.is_dir() and (override == skill_dir or override in skill_dir.parents)):
        withheld.append(override)
    return dataclasses.replace(skill, withheld=tuple(withheld))


def _note_idle_scripts(skill: Skill, settings: Settings, facts: CollectionFacts) -> None:
    """Remember a skill whose scripts will not run, so the report says so."""
    if not skill.ships_scripts_dir:
        return  # most skills ship none: no walk of their files, no script modules loaded
    from ..run.tools.script_tool import runnable_script_count

    count = runnable_script_count(skill.directory, settings, also_withheld=skill.withheld)
    if count:
        facts.idle_scripts[skill.name] = count


def _registry_ok(config: pytest.Config, session: SessionState) -> bool:
    """Check runner and judge names once every conftest on the way here has loaded.

    The error is raised by the first skill only, so a hundred skills give one
    message, not a hundred; the others collect nothing (the run stops anyway).
    """
    caches = session.caches
    if caches.registry_error is None and not caches.registry_checked:
        caches.registry_checked = True
        try:
            check_names(config, session.run.runner_names, session.run.settings.judge)
        except RegistryError as exc:
            caches.registry_error = str(exc)
    if caches.registry_error is None:
        return True
    if caches.registry_error_reported:
        return False
    caches.registry_error_reported = True
    raise RegistryError(caches.registry_error)


def _claim_name(facts: CollectionFacts, skill: Skill) -> None:
    key = skill.name.casefold()
    other = facts.skills_by_name.get(key)
    if other is not None and other != skill.path:
        raise AuthoringError(
            f"the skill name {skill.name!r} is also the name of {other.parent} (names are "
            "compared ignoring letter case; a skill without name: takes its directory's name)",
            where=Where(skill.path, field="name"),
            fix="rename one of them in its SKILL.md, or run the two directories separately",
        )
    facts.skills_by_name[key] = skill.path
