"""``--skill-lens-changed``'s selection as the record keeps it: which commit the run was
compared with, each changed skill with its reasons, and the skills left out as unchanged.

Pure data: the plugin fills it from git's answer (``run/history/changed.py``), the JSON report
carries it, a merge of shards keeps it (and refuses shards whose blocks differ), and the
gate reads one thing from it: a run where no skill changed has nothing to evaluate, so it
passes saying so, rather than failing with "no eval cases ran".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChangedSkill:
    """A skill whose run could differ from REF, and why (each reason names a file)."""

    skill_name: str
    reasons: tuple[str, ...]
    moved_from: str | None = None  # the skill's directory at REF, when git saw it renamed


@dataclass(frozen=True)
class ChangedSelection:
    """What ``--skill-lens-changed`` compared with, and what it kept and left out."""

    ref: str  # as given, or the default branch found
    commit: str
    how: str  # "given", or which merge base and how its branch was found
    changed_skills: tuple[ChangedSkill, ...] = ()
    unchanged_skills: tuple[str, ...] = ()

    @property
    def since(self) -> str:
        return f"{self.ref} ({self.commit[:8]})"

    @property
    def unchanged_reason(self) -> str:
        """Why each unchanged skill was deselected."""
        return f"unchanged since {self.since}"

    @property
    def nothing_to_evaluate(self) -> bool:
        """Skills were found, and none could run otherwise than at REF."""
        return not self.changed_skills and bool(self.unchanged_skills)

    @property
    def nothing_said(self) -> str:
        return f"no skill changed since {self.since}: nothing to evaluate"

    def lines(self) -> list[str]:
        """What the terminal says: the unchanged skills, then each changed one's first reason."""
        if self.nothing_to_evaluate:
            return [f"{self.nothing_said} ({len(self.unchanged_skills)} skill(s) deselected)"]
        lines = []
        if self.unchanged_skills:
            lines.append(
                f"{len(self.unchanged_skills)} skill(s) {self.unchanged_reason}, deselected: "
                + ", ".join(self.unchanged_skills)
            )
        for skill in self.changed_skills:
            more = len(skill.reasons) - 1
            extra = f" (and {more} more reason(s): see the JSON report)" if more > 0 else ""
            lines.append(f"changed: {skill.skill_name}: {skill.reasons[0]}{extra}")
        return lines

    def line(self) -> str:
        """One line (the Markdown report's)."""
        if self.nothing_to_evaluate:
            return self.nothing_said
        names = ", ".join(s.skill_name for s in self.changed_skills) or "none"
        return (
            f"Only the skills changed since {self.since} ran: {names}; "
            f"{len(self.unchanged_skills)} unchanged skill(s) deselected"
        )
