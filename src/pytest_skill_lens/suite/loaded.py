"""A skill together with the eval cases found for it."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from .model import EvalCase
from .skill import Skill


class FieldLines(Mapping[str, int]):
    """Field path -> line, kept small, as every case keeps one to the end of the session:
    the paths are shared by all cases of one shape, the lines are one byte each above
    the first (a case rarely spans 256 lines; else one integer array)."""

    __slots__ = ("_base", "_index", "_lines")
    _SHAPES: ClassVar[dict[tuple[str, ...], dict[str, int]]] = {}  # paths -> position

    def __init__(self, lines: Mapping[str, int]) -> None:
        paths = tuple(lines)
        index = self._SHAPES.get(paths)
        if index is None:
            index = self._SHAPES[paths] = {path: i for i, path in enumerate(paths)}
        self._index = index
        values = list(lines.values())
        self._base = base = min(values, default=0)
        offsets = [line - base for line in values]
        self._lines: bytes | array[int] = (
            bytes(offsets) if not offsets or max(offsets) < 256 else array("I", offsets)
        )

    def __getitem__(self, path: str) -> int:
        return self._base + self._lines[self._index[path]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._lines)


@dataclass(frozen=True, slots=True)  # one per case, kept to the end of the session
class LoadedCase:
    """One eval case and where it was written."""

    case: EvalCase
    file: Path
    line: int
    index: int  # 0-based position among the file's cases
    # The line of each field the rules after loading may name (``trajectory.called[0]``),
    # so a runner-dependent refusal points at the field, not at the case's first line.
    field_lines: Mapping[str, int] = field(default_factory=dict, compare=False)

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
