"""A skill together with the eval cases found for it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .model import EvalCase
from .skill import Skill


@dataclass(frozen=True)
class LoadedCase:
    """One eval case and where it was written."""

    case: EvalCase
    file: Path
    line: int
    index: int  # 0-based position among the file's cases

    @property
    def name(self) -> str:
        return self.case.name


@dataclass(frozen=True)
class SkillSuite:
    skill: Skill
    eval_files: tuple[Path, ...]
    cases: tuple[LoadedCase, ...]
