"""The default runner: offline, deterministic and free."""

from __future__ import annotations

from pathlib import Path

from ..spec.model import EvalCase
from ..spec.skill import Skill
from .result import RunResult


class FakeRunner:
    """Answers every task with one fixed line and calls no tool.

    It measures the pipeline (discovery, scoring, gate, reports), never a skill.
    It reports no model usage, which is true: nothing ran, so nothing was spent.
    """

    name = "fake"

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        task = case.task if case.task is not None else ""
        return RunResult(output=f"[fake] {skill.name} handled: {task}", model="fake")
