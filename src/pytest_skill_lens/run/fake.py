"""The default runner: offline, deterministic and free."""

from __future__ import annotations

from pathlib import Path

from ..suite.model import EvalCase
from ..suite.skill import Skill
from .result import RunResult
from .tools.skill_tool import skill_triggered, skills_triggered


class FakeRunner:
    """Answers every task with one fixed line and calls no tool.

    It measures the pipeline (discovery, scoring, gate, reports), never a skill.
    It reports no model usage, which is true: nothing ran, so nothing was spent.
    Under ``mode: offered`` it calls no tool either, the skill's included, so it
    reports ``skill_triggered`` false, read from its (empty) calls like any runner's:
    a positive control fails and a negative control passes, as ``called:`` and
    ``forbidden:`` do under it.
    """

    name = "fake"

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        task = case.task if case.task is not None else ""
        return RunResult(
            output=f"[fake] {skill.name} handled: {task}",
            model="fake",
            skill_triggered=skill_triggered(skill, case, []),
            skills_triggered=skills_triggered(skill, case, []),
        )


def is_plain_fake(runner: object) -> bool:
    """Exactly ours, so free, offline and never hangs (a subclass's ``run`` may do either)."""
    return type(runner) is FakeRunner
