"""A shard's report as a merge holds it, the merge's refusal, and an item's identity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..gate.fingerprint import ItemIdentity
from ..gate.record import RunRecord, RunSettings
from ..perform.outcome import Outcome

SAME_FLAGS = "run every shard with the same flags and skill-lens.toml"


class MergeError(Exception):
    """The reports cannot be merged: what is wrong, and the fix."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


@dataclass(frozen=True)
class ShardReport:
    source: str  # the file, as named on the command line
    record: RunRecord

    @property
    def settings(self) -> RunSettings:
        assert self.record.run is not None  # checked by consistent.one_run
        return self.record.run


def keys(outcome: Outcome) -> dict[str, Any]:
    """The fields of ``outcome`` that name its item, as a not-run entry holds them."""
    return {name: getattr(outcome, name) for name in _IDENTITY_FIELDS}


_IDENTITY_FIELDS = ("skill_name", "case_name", "runner", "arm", "repeat_index", "baseline_kind")


def identity(entry: Mapping[str, Any]) -> ItemIdentity:
    """Skill, case, runner, arm (``baseline <kind>`` for a baseline outcome, so each of
    several arms is its own item), repeat."""
    repeat = entry.get("repeat_index")
    arm = str(entry.get("arm") or "candidate")
    kind = entry.get("baseline_kind")
    return (
        str(entry.get("skill_name") or ""),
        str(entry.get("case_name") or ""),
        str(entry.get("runner") or ""),
        f"{arm} {kind}" if arm != "candidate" and kind else arm,
        repeat if isinstance(repeat, int) else 0,
    )
