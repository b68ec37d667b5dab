"""Hooks for extenders: add runners, judges and checks from a ``conftest.py``.

Example (a scripted runner for offline tests)::

    from pytest_skill_lens.run.result import RunResult

    class Scripted:
        name = "scripted"

        def run(self, skill, case, workspace):
            return RunResult(output="hello", input_tokens=10, output_tokens=2)

    def pytest_skill_lens_runners(config):
        return {"scripted": lambda context: Scripted()}

Then ``pytest --skill-lens skills --skill-lens-runner scripted``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..run.catalog import RunnerDescription
    from ..run.runner import RunnerFactory
    from ..score.check import Evaluator
    from ..score.judge import JudgeFactory
    from ..score.judges.catalog import JudgeDescription


@pytest.hookspec
def pytest_skill_lens_runners(
    config: pytest.Config,
) -> Mapping[str, RunnerFactory | RunnerDescription]:
    """Runners by name: a factory (``RunnerContext`` -> ``Runner``), or a ``RunnerDescription``.

    A bare factory serves every case feature and is held to no tool-name rule; a
    description under its own name can say what the runner needs (an extra, a
    settings check, an API key) and serves. Names must not repeat a built-in runner
    (``fake``, ``pydantic-ai``, ``langchain``, ``copilot``, ``claude-code``,
    ``gemini-cli``, ``cli``) or another plugin's.
    """
    raise NotImplementedError


@pytest.hookspec
def pytest_skill_lens_judges(
    config: pytest.Config,
) -> Mapping[str, JudgeFactory | JudgeDescription]:
    """Judges by name, chosen with ``judge = "<name>"``: a factory, or a ``JudgeDescription``."""
    raise NotImplementedError


@pytest.hookspec
def pytest_skill_lens_evaluators(config: pytest.Config) -> Sequence[Evaluator]:
    """Extra evaluators, scored after the built-in assertion, trajectory, budget and judge.

    Each returns a ``Score`` with ``CheckResult`` entries, like the built-ins.
    """
    raise NotImplementedError
