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
    from ..run.runner import RunnerFactory
    from ..score.check import Evaluator
    from ..score.judge import JudgeFactory


@pytest.hookspec
def pytest_skill_lens_runners(config: pytest.Config) -> Mapping[str, RunnerFactory]:
    """Runner factories by name. A factory takes a ``RunnerContext`` and returns a ``Runner``.

    Names must not repeat a built-in runner (``fake``, ``pydantic-ai``,
    ``langchain``, ``copilot``, ``claude-code``, ``cli``) or another plugin's.
    """
    raise NotImplementedError


@pytest.hookspec
def pytest_skill_lens_judges(config: pytest.Config) -> Mapping[str, JudgeFactory]:
    """Judge factories by name, chosen with ``judge = "<name>"`` in ``skill-lens.toml``."""
    raise NotImplementedError


@pytest.hookspec
def pytest_skill_lens_evaluators(config: pytest.Config) -> Sequence[Evaluator]:
    """Extra evaluators, scored after the built-in assertion, trajectory, budget and judge.

    Each returns a ``Score`` with ``CheckResult`` entries, like the built-ins.
    """
    raise NotImplementedError
