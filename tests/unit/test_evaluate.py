from __future__ import annotations

from typing import Any

import pytest

from pytest_skill_lens.run.result import RunResult, ToolCall
from pytest_skill_lens.score.check import Score, ScoringContext
from pytest_skill_lens.score.evaluate import BUILTIN_EVALUATORS, evaluate
from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict
from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.model import EvalCase

CONTEXT = ScoringContext(runner="fake")


def case(**fields: Any) -> EvalCase:
    return EvalCase.model_validate({"name": "c", "task": "t", **fields})


class Fixed:
    def __init__(self, name: str, score: Score) -> None:
        self.name = name
        self.score = score
        self.seen = 0

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score:
        self.seen += 1
        return self.score


class Broken:
    name = "broken"

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score:
        raise RuntimeError("boom")


def test_builtins_run_in_order() -> None:
    assert [e.name for e in BUILTIN_EVALUATORS] == ["assertion", "trajectory", "budget", "judge"]


def test_a_case_with_no_checks_passes() -> None:
    status, scores = evaluate(case(), RunResult(output="x"), CONTEXT)
    assert status == "passed"
    assert [s.evaluator for s in scores] == ["assertion", "trajectory", "budget", "judge"]


def test_an_errored_run_is_not_scored() -> None:
    extra = Fixed("extra", Score("extra", True, 1.0, "ok"))
    status, scores = evaluate(
        case(assertions=[{"kind": "contains", "value": "x"}]),
        RunResult(output="x", error="TimeoutError: 600s"),
        CONTEXT,
        [extra],
    )
    assert (status, scores, extra.seen) == ("errored", [], 0)


def test_a_failing_check_fails_the_case() -> None:
    status, _ = evaluate(
        case(assertions=[{"kind": "contains", "value": "y"}]), RunResult(output="x"), CONTEXT
    )
    assert status == "failed"


def test_an_errored_score_wins_over_a_failure() -> None:
    status, scores = evaluate(
        case(
            mode="offered",
            assertions=[{"kind": "contains", "value": "y"}],
            trajectory={"skill_triggered": True},
        ),
        RunResult(output="x", skill_triggered=None),
        CONTEXT,
    )
    assert status == "errored"
    assert [s.errored for s in scores] == [False, True, False, False]


def test_the_fake_judge_verdict_errors_the_case() -> None:
    from pytest_skill_lens.score.judge import FakeJudge, build_request

    judged = case(judge={"rubric": ["is short"]})
    result = RunResult(output="x")
    answer = FakeJudge().judge(build_request(judged, result))
    context = ScoringContext(runner="fake", judge_verdict=answer)
    status, _ = evaluate(judged, result, context)
    assert status == "errored"


def test_a_judged_case_passes_on_a_supported_verdict() -> None:
    judged = case(judge={"rubric": ["is short"]})
    answer = JudgeVerdict([JudgeCheck("r1", True, "two words")])
    context = ScoringContext(runner="fake", judge_verdict=answer)
    status, _ = evaluate(judged, RunResult(output="x"), context)
    assert status == "passed"


def test_extras_run_after_the_builtins() -> None:
    failing = Fixed("style", Score("style", False, 0.0, "too long"))
    status, scores = evaluate(case(), RunResult(output="x"), CONTEXT, [failing])
    assert status == "failed"
    assert scores[-1].evaluator == "style" and failing.seen == 1


def test_an_extra_that_raises_errors_the_case() -> None:
    status, scores = evaluate(case(), RunResult(output="x"), CONTEXT, [Broken()])
    assert status == "errored"
    assert scores[-1].evaluator == "broken" and "RuntimeError: boom" in scores[-1].detail


class RefusingExtra:
    name = "refusing"

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score:
        raise AuthoringError("a plugin's own complaint")


def test_an_extra_raising_an_authoring_error_errors_the_case_not_the_run() -> None:
    status, scores = evaluate(case(), RunResult(output="x"), CONTEXT, [RefusingExtra()])
    assert status == "errored"
    assert "AuthoringError" in scores[-1].detail


def test_a_builtin_authoring_error_on_a_case_built_in_code_propagates() -> None:
    bad = case(assertions=[{"kind": "regex", "value": "["}])
    with pytest.raises(AuthoringError):
        evaluate(bad, RunResult(output="x"), CONTEXT)


def test_trajectory_and_budget_both_count() -> None:
    status, scores = evaluate(
        case(
            tools=[{"name": "a"}],
            trajectory={"called": ["a"]},
            budget={"max_tokens": 10},
        ),
        RunResult(output="x", tool_calls=[ToolCall("a")], input_tokens=11),
        CONTEXT,
    )
    assert status == "failed"
    assert [(s.evaluator, s.passed) for s in scores] == [
        ("assertion", True),
        ("trajectory", True),
        ("budget", False),
        ("judge", True),
    ]
