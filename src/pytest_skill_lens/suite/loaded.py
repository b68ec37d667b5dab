"""A skill together with the eval cases found for it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .model import EvalCase
from .skill import Skill


@dataclass(frozen=True, slots=True)  # one per case, kept to the end of the session
class LoadedCase:
    """One eval case and where it was written."""

    case: EvalCase
    file: Path
    line: int
    index: int  # 0-based position among the file's cases
    # The line of each field the rules after loading may name (``trajectory.called[0]``),
    # so a runner-dependent refusal points at the field, not at the case's first line
    # (for a YAML file, suite/field_lines.LinesInFile: read again only if asked).
    field_lines: Mapping[str, int] = field(default_factory=dict, compare=False)
    # The tool libraries its file imports (files or directories, resolved): read by its run.
    libraries: tuple[Path, ...] = ()

    @property
    def name(self) -> str:
        return self.case.name

    def line_of(self, field_path: str) -> int:
        """The line of ``field_path``, or of the nearest field above it, or the case's."""
        path = field_path
        while path:
            line = self.field_lines.get(path)
            if line is not None:
                return line
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return self.line


@dataclass(frozen=True)
class SkillSuite:
    skill: Skill
    eval_files: tuple[Path, ...]
    cases: tuple[LoadedCase, ...]
