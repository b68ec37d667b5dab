"""What collection learnt: the facts an xdist worker sends the controller for its gate."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ..gate.delta import BaselineNote


class PlannedItem(NamedTuple):
    """Which run of which case a collected item is: what the gate owes an outcome for.

    A tuple, not a dict: one is kept per item until its outcome arrives, and to the end
    of the session for an item that never ran."""

    skill_name: str
    case_name: str
    runner: str
    arm: str
    repeat_index: int
    order: int


@dataclass
class CollectionFacts:
    """Filled while collecting; in the xdist controller, merged from every worker."""

    skills_by_name: dict[str, Path] = field(default_factory=dict)  # casefolded name -> SKILL.md
    skipped_skills: set[str] = field(default_factory=set)  # no eval cases
    deselected_skills: set[str] = field(default_factory=set)  # every case deselected
    deselected_cases: set[str] = field(default_factory=set)  # skills with a deselected case
    deselected_by: set[str] = field(default_factory=set)  # "-k" / "-m"
    # nodeid -> identity of each selected item still owed an outcome: an entry goes when
    # its outcome arrives (kept to the end, one per item would cost 0.2 KB each).
    planned: dict[str, PlannedItem] = field(default_factory=dict)
    # Skills that bundle runnable scripts while execution is off: name -> how many.
    idle_scripts: dict[str, int] = field(default_factory=dict)
    collection_errors: int = 0
    # Skills (and offered cases under `none`) whose selected baseline items cannot run.
    baseline_notes: dict[tuple[str, str, str], BaselineNote] = field(default_factory=dict)
    # Where each skill's previous version came from: {skill_name, commit, path, version}.
    baseline_sources: dict[str, dict[str, str]] = field(default_factory=dict)
    # Under a shard only: each skill's selected cases in eval-file order, every shard's
    # included, so a merge of the shards' reports lists them as one session would.
    case_order: dict[str, list[str]] = field(default_factory=dict)
    # Under a shard only: the whole selection's digests (gate/fingerprint.Selection's data).
    selection: dict[str, Any] = field(default_factory=dict)
    # Each SKILL.md's warnings, in the file's order: str(path) -> [{file, line, field,
    # problem, fix}]. Keyed by file, so the same warnings from every worker count once.
    skill_md_warnings: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # --skill-lens-changed: {"changed": [[skill, [reason, ...], moved_from]], "unchanged":
    # [skill, ...]}, decided over every collected skill (see .changed).
    changed: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what xdist can send between processes)."""
        return {
            "skills": {name: str(path) for name, path in self.skills_by_name.items()},
            "skipped": sorted(self.skipped_skills),
            "deselected": sorted(self.deselected_skills),
            "deselected_cases": sorted(self.deselected_cases),
            "deselected_by": sorted(self.deselected_by),
            # Rows, not mappings: a worker's lists every item the other workers ran.
            "planned": [[nodeid, *identity] for nodeid, identity in self.planned.items()],
            "idle_scripts": dict(self.idle_scripts),
            "collection_errors": self.collection_errors,
            "baseline_notes": [
                [note.skill_name, note.kind, note.reason, note.case_name, note.arm]
                for note in self.baseline_notes.values()
            ],
            "baseline_sources": {name: dict(s) for name, s in self.baseline_sources.items()},
            "case_order": {name: list(cases) for name, cases in self.case_order.items()},
            "selection": dict(self.selection),
            "skill_md_warnings": {f: list(w) for f, w in self.skill_md_warnings.items()},
            "changed": dict(self.changed),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CollectionFacts:
        from ..gate.delta import BaselineNote  # read on the controller once a worker is done

        return cls(
            skills_by_name={name: Path(path) for name, path in data["skills"].items()},
            skipped_skills=set(data["skipped"]),
            deselected_skills=set(data["deselected"]),
            deselected_cases=set(data["deselected_cases"]),
            deselected_by=set(data["deselected_by"]),
            planned={row[0]: PlannedItem(*row[1:]) for row in data["planned"]},
            idle_scripts=dict(data["idle_scripts"]),
            collection_errors=int(data["collection_errors"]),
            baseline_notes={
                (skill, case, arm): BaselineNote(skill, kind, reason, case, arm)
                for skill, kind, reason, case, arm in data["baseline_notes"]
            },
            baseline_sources={name: dict(s) for name, s in data["baseline_sources"].items()},
            case_order={name: list(cases) for name, cases in data["case_order"].items()},
            selection=dict(data["selection"]),
            skill_md_warnings={f: list(w) for f, w in data["skill_md_warnings"].items()},
            changed=dict(data["changed"]),
        )

    def merge(self, other: CollectionFacts) -> None:
        """Take in a worker's facts.

        Collection errors are not added up: every worker collects everything, and
        the controller counts each failed collection report once itself (xdist
        relays it through ``pytest_collectreport``).
        """
        self.skills_by_name.update(other.skills_by_name)
        self.skipped_skills |= other.skipped_skills
        self.deselected_skills |= other.deselected_skills
        self.deselected_cases |= other.deselected_cases
        self.deselected_by |= other.deselected_by
        self.planned.update(other.planned)
        self.idle_scripts.update(other.idle_scripts)
        self.baseline_notes.update(other.baseline_notes)
        self.baseline_sources.update(other.baseline_sources)
        self.case_order.update(other.case_order)
        self.selection = self.selection or dict(other.selection)  # every worker's is alike
        self.skill_md_warnings.update(other.skill_md_warnings)
        self.changed = self.changed or dict(other.changed)  # every worker decides alike

    def add_baseline_note(self, note: BaselineNote) -> None:
        self.baseline_notes[(note.skill_name, note.case_name, note.arm)] = note

    def sorted_baseline_notes(self) -> list[BaselineNote]:
        """Skill notes before case notes, by name: the same order however workers split."""
        return [self.baseline_notes[key] for key in sorted(self.baseline_notes)]
