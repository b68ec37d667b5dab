"""What collection learnt: the facts an xdist worker sends the controller for its gate."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class CollectionFacts:
    """Filled while collecting; in the xdist controller, merged from every worker."""

    skills_by_name: dict[str, Path] = field(default_factory=dict)  # casefolded name -> SKILL.md
    skipped_skills: set[str] = field(default_factory=set)  # no eval cases
    deselected_skills: set[str] = field(default_factory=set)  # every case deselected
    deselected_cases: set[str] = field(default_factory=set)  # skills with a deselected case
    deselected_by: set[str] = field(default_factory=set)  # "-k" / "-m"
    planned: dict[str, dict[str, object]] = field(default_factory=dict)  # nodeid -> identity
    # Skills that bundle runnable scripts while execution is off: name -> how many.
    idle_scripts: dict[str, int] = field(default_factory=dict)
    collection_errors: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what xdist can send between processes)."""
        return {
            "skills": {name: str(path) for name, path in self.skills_by_name.items()},
            "skipped": sorted(self.skipped_skills),
            "deselected": sorted(self.deselected_skills),
            "deselected_cases": sorted(self.deselected_cases),
            "deselected_by": sorted(self.deselected_by),
            "planned": {nodeid: dict(identity) for nodeid, identity in self.planned.items()},
            "idle_scripts": dict(self.idle_scripts),
            "collection_errors": self.collection_errors,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CollectionFacts:
        return cls(
            skills_by_name={name: Path(path) for name, path in data["skills"].items()},
            skipped_skills=set(data["skipped"]),
            deselected_skills=set(data["deselected"]),
            deselected_cases=set(data["deselected_cases"]),
            deselected_by=set(data["deselected_by"]),
            planned={nodeid: dict(identity) for nodeid, identity in data["planned"].items()},
            idle_scripts=dict(data["idle_scripts"]),
            collection_errors=int(data["collection_errors"]),
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
