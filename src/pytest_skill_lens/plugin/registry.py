"""Which runners and judges exist: the built-ins plus what conftests register."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ..run.fake import FakeRunner
from ..run.runner import RunnerContext, RunnerFactory
from ..score.judge import FakeJudge, JudgeContext, JudgeFactory

BUILTIN_RUNNERS: dict[str, RunnerFactory] = {"fake": lambda context: FakeRunner()}
BUILTIN_JUDGES: dict[str, JudgeFactory] = {"fake": lambda context: FakeJudge()}
# Named in the specification and reserved, but not built in this version yet.
PLANNED = ("pydantic-ai", "langchain", "copilot", "claude-code", "cli")


class RegistryError(Exception):
    pass


def _merge(
    kind: str, builtins: Mapping[str, Any], contributions: list[Mapping[str, Any]]
) -> dict[str, Any]:
    merged = dict(builtins)
    for contribution in contributions:
        for name, factory in (contribution or {}).items():
            if name in merged or name in PLANNED:
                raise RegistryError(
                    f"a plugin registers the {kind} {name!r}, which is already taken; "
                    "give it another name"
                )
            if not callable(factory):
                raise RegistryError(
                    f"the {kind} {name!r} was registered with something not callable"
                )
            merged[name] = factory
    return merged


def runner_factories(config: pytest.Config) -> dict[str, RunnerFactory]:
    return _merge("runner", BUILTIN_RUNNERS, config.hook.pytest_skill_lens_runners(config=config))


def judge_factories(config: pytest.Config) -> dict[str, JudgeFactory]:
    return _merge("judge", BUILTIN_JUDGES, config.hook.pytest_skill_lens_judges(config=config))


def check_names(config: pytest.Config, runner_names: list[str], judge_name: str) -> None:
    """Raise :class:`RegistryError` when a named runner or judge does not exist."""
    runners = runner_factories(config)
    for name in runner_names:
        if name not in runners:
            raise RegistryError(_unknown("runner", name, runners))
    judges = judge_factories(config)
    if judge_name not in judges:
        raise RegistryError(_unknown("judge", judge_name, judges))


def _unknown(kind: str, name: str, known: Mapping[str, Any]) -> str:
    if name in PLANNED:
        return (
            f"the {kind} {name!r} is not available in this version of pytest-skill-lens yet; "
            f"available: {', '.join(sorted(known))}"
        )
    return f"unknown {kind} {name!r}; available: {', '.join(sorted(known))}"


def build_runner(config: pytest.Config, name: str, settings: Any) -> Any:
    return runner_factories(config)[name](RunnerContext(name=name, settings=settings))


def build_judge(config: pytest.Config, name: str, settings: Any) -> Any:
    return judge_factories(config)[name](JudgeContext(name=name, settings=settings))
