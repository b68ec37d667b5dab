"""``--skill-lens-changed [REF]`` in the session: git read at configure time, each skill's
inputs noted while it is collected, and the unchanged skills' items deselected before the
shard is dealt.

Every process reads git itself (the controller for the header and the report, each xdist
worker for its own selection): the answer is a function of the working copy and REF, so
every process makes the same selection, and every shard deals the same changed cases.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .flags import user_error

if TYPE_CHECKING:
    from ..gate.changed_skills import ChangedSelection
    from ..run.history.changed import Changes
    from ..suite.inputs import SkillInputs
    from ..suite.loaded import SkillSuite
    from .facts import CollectionFacts
    from .run_config import ChangedAsk, RunConfig
    from .state import SessionState

CONFIG_NAME = "skill-lens.toml"


def read_at_configure(ask: ChangedAsk, root: Path) -> Changes:
    """What differs from REF in the repository holding ``root``; exit 2 with the fix when
    that cannot be known (no git, no repository, a shallow clone, an unknown REF)."""
    from ..run.history.changed import ChangedError, read_changes

    try:
        return read_changes(root, ask.ref)
    except ChangedError as exc:
        user_error(exc.problem, exc.fix)


def header_line(changes: Changes) -> str:
    baseline = changes.baseline
    return f"skill-lens: comparing with {baseline.ref} ({baseline.short}): {baseline.how}"


def note_inputs(state: SessionState, suite: SkillSuite) -> None:
    """Keep what ``suite``'s run reads (collected skills only), for the selection."""
    if state.run.changes is None:
        return
    from ..suite.inputs import skill_inputs

    extra = [state.run.evals_override] if state.run.evals_override is not None else []
    state.caches.skill_inputs[suite.skill.name] = skill_inputs(suite, extra)


def deselect_unchanged(state: SessionState, items: list[pytest.Item]) -> None:
    """Drop every item of an unchanged skill (both arms, every runner and repeat), handed
    to ``pytest_deselected`` so pytest counts them, and note each skill's verdict."""
    changes = state.run.changes
    if changes is None:
        return
    from .items import CaseItem

    inputs = with_neighbours(state.caches.skill_inputs, items)
    verdicts = changes.decide(inputs, shared_files(state, changes))
    facts = state.facts
    facts.changed = {
        "changed": [
            [v.skill.name, [str(why) for why in v.reasons], v.moved_from]
            for v in sorted(verdicts, key=lambda v: v.skill.name)
            if v.changed
        ],
        "unchanged": sorted(v.skill.name for v in verdicts if not v.changed),
    }
    unchanged = set(facts.changed["unchanged"])
    dropped = [i for i in items if isinstance(i, CaseItem) and i.skill.name in unchanged]
    if not dropped:
        return
    gone = {id(item) for item in dropped}
    items[:] = [item for item in items if id(item) not in gone]
    # pytest's count of deselected items stays honest, but the session reads every
    # deselected case as -k/-m's doing: these were left out by the flag, so its record
    # of them is put back (as a shard's are).
    filtered = set(facts.deselected_cases)
    state.config.hook.pytest_deselected(items=dropped)
    facts.deselected_cases = filtered


def with_neighbours(inputs: dict[str, SkillInputs], items: list[pytest.Item]) -> list[SkillInputs]:
    """Each skill's inputs with the directories of the neighbours its items were given (per
    case, or the suite's): a neighbour's description changed can change what it triggers."""
    from dataclasses import replace

    from .items import CaseItem

    offered: dict[str, set[Path]] = {}
    for item in items:
        if isinstance(item, CaseItem) and item.skill.neighbours:
            found = offered.setdefault(item.skill.name, set())
            found.update(n.directory.resolve() for n in item.skill.neighbours)
    return [
        replace(skill, neighbours=frozenset(offered[name])) if name in offered else skill
        for name, skill in inputs.items()
    ]


def shared_files(state: SessionState, changes: Changes) -> list[Path]:
    """The configuration every skill's run reads: the ``skill-lens.toml`` in use, pytest's
    ini file, and, where the file is searched for, one added or deleted on the way up from
    the invocation directory (REF's run read it, or this one would)."""
    found = [path for path in (state.run.config_path, state.config.inipath) if path]
    if state.config.option.skill_lens_config:
        return found
    here = state.config.invocation_params.dir.resolve()
    for change in changes.changes:
        for path in change.paths:
            full = changes.top / path
            if full.name == CONFIG_NAME and (full.parent == here or full.parent in here.parents):
                found.append(full)
    return found


def selection_of(run: RunConfig, facts: CollectionFacts) -> ChangedSelection | None:
    """The record's block; ``None`` without the flag, or before any process decided."""
    if run.changes is None or not facts.changed:
        return None
    from ..gate.changed_skills import ChangedSelection, ChangedSkill

    baseline = run.changes.baseline
    return ChangedSelection(
        ref=baseline.ref,
        commit=baseline.commit,
        how=baseline.how,
        changed_skills=tuple(
            ChangedSkill(name, tuple(reasons), moved_from)
            for name, reasons, moved_from in facts.changed["changed"]
        ),
        unchanged_skills=tuple(facts.changed["unchanged"]),
    )
