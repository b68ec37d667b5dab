"""``sessions:``: one runner call per session, an ordinary one-task case each, one merged run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.result import Hook, RunResult, ToolCall
from pytest_skill_lens.run.sessions import merge_results, run_sessions, session_case
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill


def case(sessions: list[str], **fields: Any) -> EvalCase:
    return EvalCase.model_validate({"name": "c", "sessions": sessions, "workspace": {}, **fields})


class Recorder:
    """A stand-in runner: answers session ``k`` with ``answers[k]`` and records each case."""

    def __init__(self, *answers: RunResult) -> None:
        self.answers = list(answers)
        self.seen: list[EvalCase] = []

    def __call__(self, one: EvalCase) -> RunResult:
        self.seen.append(one)
        return self.answers[len(self.seen) - 1]


def test_each_session_is_an_ordinary_one_task_case() -> None:
    whole = case(
        ["plan it", "continue"], tags=["t"], assertions=[{"kind": "contains", "value": "x"}]
    )
    runner = Recorder(RunResult(output="one"), RunResult(output="two"))
    run_sessions(whole, runner)
    assert [(c.task, c.sessions) for c in runner.seen] == [("plan it", None), ("continue", None)]
    assert all(c.tasks == [c.task] for c in runner.seen)
    assert all(c.name == "c" and c.tags == ["t"] and c.workspace is not None for c in runner.seen)
    assert whole.sessions == ["plan it", "continue"]  # the case itself is untouched


def test_the_merged_run_has_the_last_output_every_call_and_summed_spend() -> None:
    runner = Recorder(
        RunResult(
            output="first",
            tool_calls=[ToolCall("write_file", {"path": "plan.md"})],
            input_tokens=10,
            output_tokens=2,
            cost_usd=0.25,
            latency_ms=100.0,
            model="m1",
            transcript=[{"role": "user", "content": "one"}],
            cost_note="no price for m1",
            retry_cost_usd=0.5,
        ),
        RunResult(
            output="second",
            tool_calls=[ToolCall("read_file", {"path": "plan.md"}), ToolCall("write_file", {})],
            input_tokens=5,
            output_tokens=1,
            cost_usd=0.5,
            latency_ms=50.0,
            model="m2",
            transcript=[{"role": "user", "content": "two"}],
            cost_note="no price for m1",
            usage_note="no usage reported",
            stop_note="stopped at end_turn",
        ),
    )
    merged = run_sessions(case(["a", "b"]), runner)
    assert merged.error is None
    assert merged.output == "second"
    assert [c.name for c in merged.tool_calls] == ["write_file", "read_file", "write_file"]
    assert (merged.input_tokens, merged.output_tokens, merged.tokens) == (15, 3, 18)
    assert (merged.cost_usd, merged.latency_ms, merged.retry_cost_usd) == (0.75, 150.0, 0.5)
    assert merged.model == "m2"
    assert [t["content"] for t in merged.transcript] == ["one", "two"]
    assert merged.cost_note == "no price for m1"  # each distinct note once
    assert merged.usage_note == "no usage reported"  # one unmeasured session is enough
    assert merged.stop_note == "stopped at end_turn"


def test_distinct_notes_are_all_kept() -> None:
    merged = merge_results(
        [RunResult(cost_note="a"), RunResult(cost_note="b"), RunResult(cost_note="a")]
    )
    assert merged.cost_note == "a; b"
    assert merge_results([RunResult(), RunResult()]).cost_note is None


def test_an_errored_session_errors_the_case_and_stops_the_sequence() -> None:
    runner = Recorder(
        RunResult(output="ok", input_tokens=10, cost_usd=0.25),
        RunResult(error="provider down (HTTP 503)", input_tokens=3, cost_usd=0.5),
        RunResult(output="never", input_tokens=1000),
    )
    merged = run_sessions(case(["a", "b", "c"]), runner)
    assert len(runner.seen) == 2  # session 3 never ran
    assert merged.error == "session 2 of 3: provider down (HTTP 503)"
    assert (merged.input_tokens, merged.cost_usd) == (13, 0.75)  # every session that ran


def test_an_error_in_the_first_session_names_it() -> None:
    merged = run_sessions(case(["a", "b"]), Recorder(RunResult(error="boom")))
    assert merged.error == "session 1 of 2: boom"


def test_skill_triggered_is_any_session() -> None:
    assert merge_results(
        [RunResult(skill_triggered=False), RunResult(skill_triggered=True)]
    ).skill_triggered
    assert merge_results([RunResult(skill_triggered=False)] * 2).skill_triggered is False
    assert merge_results([RunResult(), RunResult()]).skill_triggered is None
    assert merge_results([]) == RunResult()


def test_skill_loaded_needs_every_session_that_could_tell() -> None:
    def loaded(*answers: bool | None) -> bool | None:
        return merge_results([RunResult(skill_loaded=a) for a in answers]).skill_loaded

    assert loaded(True, True) is True
    assert loaded(True, False) is False  # one session ran without the skill
    assert loaded(None, True) is True
    assert loaded(None, None) is None


def test_every_sessions_hooks_are_kept_in_order() -> None:
    first, second = Hook("Stop", "Stop", "success"), Hook("Stop", "Stop", "error", 1)
    merged = merge_results([RunResult(hooks=[first]), RunResult(hooks=[second])])
    assert merged.hooks == [first, second]


def test_each_session_gets_what_the_earlier_ones_left_of_the_token_budget() -> None:
    whole = case(["a", "b", "c"], budget={"max_tokens": 100, "max_latency_ms": 5})
    runner = Recorder(
        RunResult(input_tokens=30, output_tokens=10),
        RunResult(input_tokens=40, output_tokens=10),
        RunResult(input_tokens=1),
    )
    merged = run_sessions(whole, runner)
    budgets = [c.budget for c in runner.seen]
    assert [b.max_tokens for b in budgets if b] == [100, 60, 10]
    assert all(b is not None and b.max_latency_ms == 5 for b in budgets)
    assert merged.tokens == 91
    assert whole.budget is not None and whole.budget.max_tokens == 100


def test_a_spent_token_budget_runs_no_further_session() -> None:
    whole = case(["a", "b", "c"], budget={"max_tokens": 50})
    runner = Recorder(RunResult(input_tokens=60, stop_note="stopped at the token budget"))
    merged = run_sessions(whole, runner)
    assert len(runner.seen) == 1
    assert (merged.error, merged.tokens, merged.stop_note) == (
        None,
        60,
        "stopped at the token budget",
    )


def test_unmeasured_usage_never_reads_as_a_spent_budget() -> None:
    whole = case(["a", "b"], budget={"max_tokens": 1})
    runner = Recorder(RunResult(usage_note="not reported", input_tokens=5), RunResult())
    run_sessions(whole, runner)
    assert len(runner.seen) == 2


def test_session_case_without_a_budget_only_changes_the_task() -> None:
    whole = case(["a", "b"])
    one = session_case(whole, "b", spent_tokens=10)
    assert one.model_dump() == {**whole.model_dump(), "task": "b", "sessions": None}


@pytest.mark.parametrize("module", ["pydantic_ai", "langchain"])
def test_a_framework_runner_handed_a_sessions_case_answers_with_an_error(
    module: str, tmp_path: Path
) -> None:
    """Only the plugin splits sessions; a runner called with the whole case sends nothing."""
    from pytest_skill_lens.run.runners.langchain import LangChainRunner
    from pytest_skill_lens.run.runners.pydantic_ai import PydanticAIRunner

    runner_class = {"pydantic_ai": PydanticAIRunner, "langchain": LangChainRunner}[module]
    # No model and no endpoint: a runner that tried to send a request would fail differently.
    runner = runner_class(Settings())
    skill = Skill("s", "d", "i", tmp_path / "SKILL.md")
    result = runner.run(skill, case(["plan it", "continue"]), tmp_path)
    assert result == RunResult(
        error=f"the {runner.name} runner runs one session per call; the plugin splits sessions:"
    )
