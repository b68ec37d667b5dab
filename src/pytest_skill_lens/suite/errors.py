"""Authoring errors: a mistake in a skill, an eval file or the config.

Each one stops the run with exit 2 before anything is spent, and its message
names the file, the case (by name and position), the field and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Where:
    """A place in an eval file, as precise as is known."""

    file: Path | None = None
    line: int | None = None
    case_name: str | None = None
    case_index: int | None = None  # 0-based position among the file's cases
    field: str | None = None

    def render(self) -> str:
        parts: list[str] = []
        if self.file is not None:
            file = _escaped(str(self.file))
            parts.append(f"{file}:{self.line}" if self.line else file)
        if self.case_index is not None or self.case_name is not None:
            label = "case"
            if self.case_name is not None:
                label += f" {self.case_name!r}"
            if self.case_index is not None:
                label += f" (#{self.case_index + 1} in the file)"
            parts.append(label)
        if self.field:
            parts.append(f"field {self.field!r}")
        return ", ".join(parts)


def _escaped(text: str) -> str:
    """``text`` with each character a reader cannot see escaped as ``repr`` would (a path
    may hold anything but ``/`` and NUL, ESC included)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


class AuthoringError(Exception):
    """A skill, eval file or configuration that cannot be run as written."""

    def __init__(self, problem: str, *, where: Where | None = None, fix: str | None = None):
        self.problem = problem
        self.where = where or Where()
        self.fix = fix
        super().__init__(self.message)

    @property
    def message(self) -> str:
        place = self.where.render()
        text = f"{place}: {self.problem}" if place else self.problem
        if self.fix:
            text += f"\n  fix: {self.fix}"
        return text

    def located(self, **changes: object) -> AuthoringError:
        """The same error with more of its place filled in (known fields win)."""
        fields = {k: v for k, v in self.where.__dict__.items() if v is not None}
        merged = {**changes, **fields}
        return AuthoringError(self.problem, where=Where(**merged), fix=self.fix)


class ConfigError(AuthoringError):
    """``skill-lens.toml`` or a flag cannot be used as given."""
