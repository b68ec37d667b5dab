"""What a session builds or asks for once and reuses: parsed files, runners, the judge,
markers, conftest-added evaluators, the registry check."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # kept out of the import path of a run without --skill-lens
    from ..run.runner import Runner
    from ..run.sandbox.script_sandbox import SandboxDecision
    from ..score.check import Evaluator
    from ..score.judge import Judge
    from ..suite.inputs import SkillInputs
    from ..suite.parse_cache import ParseCache


@dataclass
class SessionCaches:
    parse_cache: ParseCache | None = None  # None without pytest's cache provider
    # Built once per (runner name, sandbox decision), shared by every item.
    runners: dict[tuple[str, SandboxDecision | None], Runner] = field(default_factory=dict)
    judge: Judge | None = None
    tag_markers: dict[str, pytest.MarkDecorator | None] = field(default_factory=dict)
    foreign_markers: set[str] | None = None  # markers other plugins registered
    # Each eval file's path as pytest reports it, relative to the rootdir (CaseItem.location).
    report_paths: dict[Path, str] = field(default_factory=dict)
    evaluators: tuple[Evaluator, ...] | None = None  # conftest-added, asked for once
    # Runner and judge names are checked once, by the first skill collected.
    registry_checked: bool = False
    registry_error: str | None = None
    registry_error_reported: bool = False
    # --skill-lens-changed: what each collected skill's run reads (.changed).
    # By name: a skill collected twice (given twice) is one skill.
    skill_inputs: dict[str, SkillInputs] = field(default_factory=dict)
