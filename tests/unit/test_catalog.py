"""The runner and judge descriptions: one table of what each is, needs and serves."""

from __future__ import annotations

import pytest

from pytest_skill_lens.run.catalog import (
    BUILTIN_RUNNERS,
    EVERY_FEATURE,
    RunnerDescription,
    builtin_runner,
    features_of,
)
from pytest_skill_lens.run.fake import FakeRunner
from pytest_skill_lens.run.requirements import Extra, extra_problem, form_problem, key_problem
from pytest_skill_lens.run.runner import RunnerContext
from pytest_skill_lens.run.runners import langchain_model
from pytest_skill_lens.score.judge import FakeJudge
from pytest_skill_lens.score.judges.catalog import BUILTIN_JUDGES, JudgeDescription, builtin_judge
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase

PRODUCTS = ["copilot", "claude-code", "codex", "gemini-cli", "opencode", "cli"]
NOT_INSTALLED = Extra("mine", 'pip install "mine[x]"', lambda model: "mine_sdk")


def test_the_builtin_names_each_with_a_factory() -> None:
    assert [d.name for d in BUILTIN_RUNNERS] == ["fake", "pydantic-ai", "langchain", *PRODUCTS]
    assert [d.name for d in BUILTIN_JUDGES] == ["fake", "pydantic-ai", "langchain", *PRODUCTS]
    # Every product is built, as a runner and as a judge.
    assert all(callable(d.factory) for d in (*BUILTIN_RUNNERS, *BUILTIN_JUDGES))
    assert builtin_runner("mine") is None
    assert builtin_judge("mine") is None


def test_what_each_builtin_runner_is_held_to() -> None:
    def facts(name: str) -> tuple[bool, bool, bool]:
        description = builtin_runner(name)
        assert description is not None
        return description.reads_model, description.declares_every_tool, description.extra is None

    assert facts("fake") == (False, True, True)
    assert facts("pydantic-ai") == (True, True, False)
    assert facts("langchain") == (True, True, False)
    assert all(facts(name) == (False, False, True) for name in PRODUCTS)
    serves = {d.name: d.serves for d in BUILTIN_RUNNERS}
    # Mock tools reach copilot through the MCP bridge; cli has no trace to read them from.
    assert serves["copilot"] == EVERY_FEATURE
    assert serves["cli"] == EVERY_FEATURE - {"tools", "trajectory", "offered", "neighbours"}
    assert all(serves[name] == EVERY_FEATURE for name in ("fake", "pydantic-ai", "langchain"))


def test_copilot_and_cli_can_never_be_priced_and_claude_code_can() -> None:
    unpriced = {d.name: d.unpriced_reason(Settings()) for d in BUILTIN_RUNNERS[3:]}
    assert unpriced["claude-code"] is None  # it reports total_cost_usd
    assert unpriced["copilot"] is not None and "premium request" in unpriced["copilot"]
    assert unpriced["cli"] is not None and "no cost" in unpriced["cli"]


def test_only_the_framework_judges_read_a_model() -> None:
    assert [d.name for d in BUILTIN_JUDGES if d.reads_model] == ["pydantic-ai", "langchain"]


def test_a_bare_factory_is_described_as_plugin_runners_always_were() -> None:
    described = RunnerDescription("mine", lambda context: FakeRunner())

    assert described.serves == EVERY_FEATURE
    assert not described.declares_every_tool
    assert not described.reads_model
    settings = Settings(model="openai:gpt-4o")
    assert described.extra_problem(settings) is None
    assert described.settings_problem(settings) is None
    assert described.key_problem(settings) is None


def test_the_builtin_factories_build_their_runner_and_judge() -> None:
    fake = builtin_runner("fake")
    assert fake is not None and fake.factory is not None
    assert fake.factory(RunnerContext(name="fake", settings=Settings())).name == "fake"
    judge = builtin_judge("fake")
    assert judge is not None and judge.factory is FakeJudge


def test_a_missing_extra_names_the_module_and_the_install() -> None:
    assert extra_problem("runner", "mine", NOT_INSTALLED, None) == (
        "the runner 'mine' needs the mine extra, which is not installed "
        "(no module named 'mine_sdk')",
        'install it: pip install "mine[x]"',
    )
    judge = JudgeDescription("mine", lambda context: FakeJudge(), extra=NOT_INSTALLED)
    problem = judge.extra_problem(Settings())
    assert problem is not None and problem[0].startswith("the judge 'mine' needs the mine extra")


def test_a_missing_key_reads_the_same_for_a_runner_and_a_judge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GROQ_API_KEY", raising=False)

    runner = key_problem("runner", "pydantic-ai", "groq:llama")
    judge = key_problem("judge", "langchain", "groq:llama")

    assert runner is not None and judge is not None
    assert runner[0] == (
        "the runner 'pydantic-ai' needs GROQ_API_KEY for the model 'groq:llama', and it is not set"
    )
    assert judge[0] == runner[0].replace("runner 'pydantic-ai'", "judge 'langchain'")
    assert runner[1] == judge[1]
    monkeypatch.setenv("GROQ_API_KEY", "x")
    assert key_problem("runner", "pydantic-ai", "groq:llama") is None


def test_the_langchain_runner_and_judge_share_one_check_of_the_model() -> None:
    runner = langchain_model.model_problem("groq:llama", role="runner", base_url_key="base_url")
    judge = langchain_model.model_problem("groq:llama", role="judge", base_url_key="judge_base_url")

    assert runner == (
        "the langchain runner serves openai: and anthropic: models, not groq:; a self-hosted "
        "or gateway model is reached as openai:<name> with base_url set to its "
        "OpenAI-compatible endpoint"
    )
    assert judge == runner.replace("runner", "judge").replace(" base_url", " judge_base_url")
    assert langchain_model.model_problem("gpt-4o", role="judge", base_url_key="x") == (
        form_problem("gpt-4o")
    )
    assert langchain_model.model_problem("openai:gpt-4o", role="runner", base_url_key="x") is None


def test_the_builtin_settings_checks_carry_their_fix() -> None:
    runner = builtin_runner("langchain")
    judge = builtin_judge("langchain")
    assert runner is not None and judge is not None

    said = runner.settings_problem(Settings(model="groq:llama"))
    graded = judge.settings_problem(Settings(judge_model="groq:llama"))

    assert said is not None and graded is not None
    assert said[1] == "fix --skill-lens-model / model, or --skill-lens-base-url / base_url"
    assert graded[0].startswith(
        "the judge 'langchain' grades with 'groq:llama', from --skill-lens-judge-model / "
        "judge_model: the langchain judge serves openai: and anthropic: models, not groq:"
    )
    assert graded[1].startswith("set --skill-lens-judge-model / judge_model")


def case(**fields: object) -> EvalCase:
    return EvalCase.model_validate({"name": "c", "task": "t", **fields})


def test_the_features_a_case_uses() -> None:
    assert features_of(case()) == []
    used = case(
        tools=[{"name": "lookup"}],
        trajectory={"called": ["lookup"]},
        mode="offered",
        workspace={"files": {}},
        judge={"rubric": ["says hi"]},
    )
    assert features_of(used) == ["tools", "trajectory", "offered", "workspace", "judge"]
    sessions = EvalCase.model_validate({"name": "c", "sessions": ["a", "b"]})
    assert features_of(sessions) == ["sessions"]


def test_the_first_unserved_feature_is_named() -> None:
    narrow = RunnerDescription(
        "narrow", lambda context: FakeRunner(), serves=frozenset({"workspace", "judge"})
    )

    assert narrow.unserved(case(workspace={"files": {}})) is None
    assert narrow.unserved(case(mode="offered", workspace={"files": {}})) == "offered"
    assert narrow.unserved(case(tools=[{"name": "x"}], mode="offered")) == "tools"
