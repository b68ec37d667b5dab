"""Which runners and judges exist: the built-ins plus what conftests register."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any

import pytest

from ..run.fake import FakeRunner
from ..run.runner import Runner, RunnerContext, RunnerFactory
from ..score.judge import FakeJudge, Judge, JudgeContext, JudgeFactory
from .state import get_state


def _pydantic_ai(context: RunnerContext) -> Runner:
    # Imported here: the framework loads only when a case is about to run.
    from ..run.runners.pydantic_ai import PydanticAIRunner

    return PydanticAIRunner(context.settings, sandbox=context.sandbox)


def _langchain(context: RunnerContext) -> Runner:
    from ..run.runners.langchain import LangChainRunner

    return LangChainRunner(context.settings, sandbox=context.sandbox)


BUILTIN_RUNNERS: dict[str, RunnerFactory] = {
    "fake": lambda context: FakeRunner(),
    "pydantic-ai": _pydantic_ai,
    "langchain": _langchain,
}
# The framework runners, each with the module that says whether its extra is installed.
FRAMEWORK_RUNNERS = {
    "pydantic-ai": "..run.runners.pydantic_ai",
    "langchain": "..run.runners.langchain",
}


def _pydantic_ai_judge(context: JudgeContext) -> Judge:
    from ..score.judges.pydantic_ai import PydanticAIJudge

    return PydanticAIJudge(context.settings)


def _langchain_judge(context: JudgeContext) -> Judge:
    from ..score.judges.langchain import LangChainJudge

    return LangChainJudge(context.settings)


BUILTIN_JUDGES: dict[str, JudgeFactory] = {
    "fake": lambda context: FakeJudge(),
    "pydantic-ai": _pydantic_ai_judge,
    "langchain": _langchain_judge,
}
# Named in the specification and reserved, but not built in this version yet.
PLANNED: dict[str, tuple[str, ...]] = {
    "runner": ("copilot", "claude-code", "cli"),
    "judge": ("copilot", "claude-code", "cli"),
}


class RegistryError(Exception):
    pass


def _merge(
    kind: str, builtins: Mapping[str, Any], contributions: list[Mapping[str, Any]]
) -> dict[str, Any]:
    merged = dict(builtins)
    for contribution in contributions:
        for name, factory in (contribution or {}).items():
            if name in merged or name in PLANNED[kind]:
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
        if name in FRAMEWORK_RUNNERS:
            _require_extra(config, name)
    judges = judge_factories(config)
    if judge_name not in judges:
        raise RegistryError(_unknown("judge", judge_name, judges))
    _require_judge_extra(config, judge_name)


def _require_judge_extra(config: pytest.Config, judge: str) -> None:
    """A framework judge is available only with its extra installed (checked, not imported)."""
    from ..score.judges.preflight import missing_extra

    state = get_state(config)
    if state is None:
        return
    problem = missing_extra(judge, state.settings)
    if problem is not None:
        raise RegistryError(f"{problem[0]}; {problem[1]}")


def _require_extra(config: pytest.Config, runner: str) -> None:
    """A framework runner is available only with its extra installed (checked, not imported)."""
    # The runner's module is light: it finds the framework's modules without importing them.
    module = import_module(FRAMEWORK_RUNNERS[runner], __package__)
    state = get_state(config)
    missing = module.missing_extra(state.settings.model if state is not None else None)
    if missing is not None:
        raise RegistryError(
            f"the runner {runner!r} needs the {runner} extra, which is not installed "
            f"(no module named {missing!r}); install it: {module.EXTRA_INSTALL}"
        )


def _unknown(kind: str, name: str, known: Mapping[str, Any]) -> str:
    if name in PLANNED[kind]:
        return (
            f"the {kind} {name!r} is not available in this version of pytest-skill-lens yet; "
            f"available: {', '.join(sorted(known))}"
        )
    return f"unknown {kind} {name!r}; available: {', '.join(sorted(known))}"


def build_runner(config: pytest.Config, name: str, settings: Any, sandbox: Any = None) -> Any:
    context = RunnerContext(name=name, settings=settings, sandbox=sandbox)
    return runner_factories(config)[name](context)


def build_judge(config: pytest.Config, name: str, settings: Any) -> Any:
    return judge_factories(config)[name](JudgeContext(name=name, settings=settings))
