"""The baseline arm of each skill: what it acts with, or why it has none.

``none`` empties the skill (the same name and path, no description, instructions or
bundle: the runners' neutral prompt); ``placebo`` replaces its texts by neutral ones of
the same length and ships no bundle (suite/placebo.py); ``previous`` is the skill's
earlier version from git, resolved once per skill in each process and its extracted
bundle removed when the session ends (:meth:`BaselineArms.close`, called at unconfigure;
a killed run's copy is swept by the next run). A baseline that cannot be had is a note,
never an error: its items are collected and skipped with the note as the reason, so they
show in pytest's own output, and the note reaches the report through the collection facts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..suite.loaded import LoadedCase
from ..suite.skill import Skill

if TYPE_CHECKING:
    from ..gate.delta import BaselineNote
    from ..run.history.previous import PreviousVersion, Unresolved

# Our wording of the reference's note for an offered case under `none`.
OFFERED_UNDER_NONE = "mode: offered has no skill to offer when the baseline is none"


def neutral_skill(skill: Skill) -> Skill:
    """The ``none`` baseline: the skill's name and path with nothing of its own.

    Empty description and instructions are what the prompt builder and the bundle
    read as "no skill" (:func:`~..run.models.prompt.system_prompt`,
    :func:`~..run.tools.bundle_tools.skill_bundle`), so no runner can leak the skill into this arm.
    """
    return dataclasses.replace(
        skill, description="", instructions="", version=None, variant="baseline", meta={}
    )


@dataclass
class BaselineArms:
    """Each skill's baseline for this process, resolved on first use."""

    kind: str  # "none", "placebo" or "previous"
    _previous: dict[Path, PreviousVersion | Unresolved] = field(default_factory=dict)

    def skill_for(self, skill: Skill) -> Skill | BaselineNote:
        """What ``skill``'s baseline items act with, or why the skill has none."""
        if self.kind == "none":
            return neutral_skill(skill)
        if self.kind == "placebo":
            from ..suite.placebo import placebo_skill  # only a placebo run needs it

            return placebo_skill(skill)
        from ..gate.delta import BaselineNote  # imported on first run: a listing never asks
        from ..run.history.previous import PreviousVersion, resolve_previous

        found = self._previous.get(skill.path)
        if found is None:
            found = self._previous[skill.path] = resolve_previous(skill.path)
        if isinstance(found, PreviousVersion):
            return _withholding_the_same(found.skill, skill)
        return BaselineNote(skill.name, "unavailable", found.reason)

    def source_of(self, skill: Skill) -> dict[str, str] | None:
        """Which commit a ``previous`` baseline came from, for the report; None otherwise."""
        from ..run.history.previous import PreviousVersion

        found = self._previous.get(skill.path)
        if not isinstance(found, PreviousVersion):
            return None
        return {
            "skill_name": skill.name,
            "commit": found.commit,
            "path": found.path,
            "version": found.skill.version or "",
        }

    def case_note(self, skill: Skill, loaded: LoadedCase) -> BaselineNote | None:
        """Why one case has no baseline although its skill has one."""
        if self.kind == "none" and loaded.case.mode == "offered":
            from ..gate.delta import BaselineNote  # imported on first run: a listing never asks

            return BaselineNote(skill.name, "skipped", OFFERED_UNDER_NONE, loaded.name)
        return None

    def close(self) -> None:
        """Remove every extracted bundle; safe to call more than once."""
        from ..run.history.previous import PreviousVersion

        for found in self._previous.values():
            if isinstance(found, PreviousVersion):
                found.close()
        self._previous.clear()


def _withholding_the_same(previous: Skill, candidate: Skill) -> Skill:
    """``previous`` keeping out of its bundle the eval paths the candidate keeps out.

    What ``--skill-lens-evals`` names inside the skill's directory is withheld from
    the old bundle at the same relative place, so neither arm can read the cases.
    """
    here = candidate.directory.resolve()
    moved = []
    for path in candidate.withheld:
        try:
            moved.append(previous.directory / path.resolve().relative_to(here))
        except ValueError:
            continue  # outside the skill's directory: never part of either bundle
    return dataclasses.replace(previous, withheld=tuple(moved)) if moved else previous
