"""Authoring errors: a mistake in a skill, an eval file or the config.

Each one stops the run with exit 2 before anything is spent, and its message
names the file, the case (by name and position), the field and the fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .quoting import escaped, shown

MAX_SHOWN_PER_FILE = 10
"""How many of one file's mistakes a message lists; the rest are counted."""
_PROBLEM_LIMIT = 2_000  # a library's message (a schema error) may quote a whole value


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
            file = escaped(str(self.file))
            parts.append(f"{file}:{self.line}" if self.line else file)
        if self.case_index is not None or self.case_name is not None:
            label = "case"
            if self.case_name is not None:
                label += f" {shown(self.case_name)}"
            if self.case_index is not None:
                label += f" (#{self.case_index + 1} in the file)"
            parts.append(label)
        if self.field:
            parts.append(f"field {shown(self.field, 200)}")
        return ", ".join(parts)


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
        problem = escaped(self.problem, _PROBLEM_LIMIT)
        text = f"{place}: {problem}" if place else problem
        if self.fix:
            text += f"\n  fix: {escaped(self.fix, _PROBLEM_LIMIT)}"
        return text

    @property
    def each(self) -> tuple[AuthoringError, ...]:
        """The single mistakes this error stands for: itself, or the ones it gathers."""
        return (self,)

    def located(self, **changes: object) -> AuthoringError:
        """The same error with more of its place filled in (known fields win)."""
        fields = {k: v for k, v in self.where.__dict__.items() if v is not None}
        merged = {**changes, **fields}
        return AuthoringError(self.problem, where=Where(**merged), fix=self.fix)


class AuthoringErrors(AuthoringError):
    """Several independent mistakes, reported in one run (docs/authoring-errors.md).

    ``problem``, ``where`` and ``fix`` are the first mistake's, so code that reads one
    error reads the first; :attr:`message` lists up to :data:`MAX_SHOWN_PER_FILE` of
    each file's and counts the rest.
    """

    def __init__(self, errors: Sequence[AuthoringError]) -> None:
        self.errors = tuple(one for error in errors for one in error.each)
        if not self.errors:
            raise ValueError("AuthoringErrors needs at least one error")
        first = self.errors[0]
        super().__init__(first.problem, where=first.where, fix=first.fix)

    @property
    def each(self) -> tuple[AuthoringError, ...]:
        return self.errors

    def listed(self) -> list[tuple[list[AuthoringError], int]]:
        """Per file, in the order the files were first met: the mistakes shown, in the
        order found, and how many more there are."""
        by_file: dict[Path | None, list[AuthoringError]] = {}
        for error in self.errors:
            by_file.setdefault(error.where.file, []).append(error)
        return [
            (errors[:MAX_SHOWN_PER_FILE], max(len(errors) - MAX_SHOWN_PER_FILE, 0))
            for errors in by_file.values()
        ]

    def render(self, prefix: str = "") -> str:
        """Each shown mistake's message after ``prefix``, and a count of those not shown."""
        lines: list[str] = []
        for errors, more in self.listed():
            lines += [prefix + error.message for error in errors]
            if more:
                file = errors[0].where.file
                lines.append(
                    f"...and {more} more in {escaped(str(file)) if file else 'this run'} "
                    "(fix these and run again to see them)"
                )
        return "\n".join(lines)

    @property
    def message(self) -> str:
        return self.render()


def combined(errors: Sequence[AuthoringError]) -> AuthoringError:
    """One error standing for ``errors``: the error itself when there is one."""
    flat = [one for error in errors for one in error.each]
    return flat[0] if len(flat) == 1 else AuthoringErrors(flat)


class ConfigError(AuthoringError):
    """``skill-lens.toml`` or a flag cannot be used as given."""
