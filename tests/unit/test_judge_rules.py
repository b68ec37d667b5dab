from __future__ import annotations

from typing import Any

from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.score.check import Score, ScoringContext
from pytest_skill_lens.score.judge import (
    NO_EVIDENCE,
    FakeJudge,
    Judge,
    JudgeCheck,
    JudgeContext,
    JudgeEvaluator,
    JudgeVerdict,
    build_request,
)
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase

RUBRIC = ["Names order 1234", "Explains the window closed", "Is polite"]


def case(judge: dict[str, Any] | None = None, **extra: Any) -> EvalCase:
    data: dict[str, Any] = {"name": "c", "task": "refund 1234", **extra}
    if judge is not None:
        data["judge"] = judge
    return EvalCase.model_validate(data)


def evaluate(verdict: Any, rubric: list[str] = RUBRIC) -> Score:
    context = ScoringContext(runner="fake", judge_verdict=verdict)
    return JudgeEvaluator().evaluate(case({"rubric": rubric}), RunResult(output="ok"), context)


def verdict(*checks: tuple[str, bool, str], **extra: Any) -> JudgeVerdict:
    return JudgeVerdict([JudgeCheck(*c) for c in checks], **extra)


def test_no_judge_block_passes() -> None:
    result = JudgeEvaluator().evaluate(case(), RunResult(), ScoringContext(runner="fake"))
    assert (result.evaluator, result.passed, result.detail, result.errored) == (
        "judge",
        True,
        "no judge",
        False,
    )


def test_the_score_comes_from_the_checks_in_rubric_order() -> None:
    result = evaluate(
        verdict(
            ("r3", True, "says please"),
            ("r1", True, "mentions 1234"),
            ("r2", False, "no mention of the window"),
            cost_usd=0.02,
        )
    )
    assert [c.id for c in result.checks] == ["r1", "r2", "r3"]
    assert [c.passed for c in result.checks] == [True, False, True]
    assert result.checks[1].evidence == "no mention of the window"
    assert not result.passed and not result.errored
    assert result.score == 2 / 3
    assert result.cost_usd == 0.02 and result.cost_note is None


def test_a_pass_without_evidence_is_recorded_as_failed() -> None:
    result = evaluate(verdict(("r1", True, "   "), ("r2", True, "x"), ("r3", True, "")))
    assert [c.passed for c in result.checks] == [False, True, False]
    assert result.checks[0].evidence == NO_EVIDENCE == "passed with no evidence"
    assert not result.passed and not result.errored


def test_ids_that_do_not_line_up_with_the_rubric_are_errored() -> None:
    missing = evaluate(verdict(("r1", True, "a"), ("r2", True, "b")))
    assert missing.errored and not missing.passed
    assert missing.detail.startswith("judge failed: ")
    assert "missing r3" in missing.detail
    extra = evaluate(
        verdict(("r1", True, "a"), ("r2", True, "b"), ("r3", True, "c"), ("r4", True, "d"))
    )
    assert extra.errored and "unexpected r4" in extra.detail
    repeated = evaluate(
        verdict(("r1", True, "a"), ("r1", True, "a"), ("r2", True, "b"), ("r3", True, "c"))
    )
    assert repeated.errored and "repeated r1" in repeated.detail
    renamed = evaluate(verdict(("1", True, "a"), ("2", True, "b"), ("3", True, "c")))
    assert renamed.errored and "missing r1, r2, r3" in renamed.detail


def test_a_judge_failure_is_errored_and_keeps_its_cost() -> None:
    result = evaluate(JudgeVerdict(None, error="timeout after 60s", cost_usd=0.5, cost_note="n"))
    assert result.errored and not result.passed
    assert result.detail == "judge failed: timeout after 60s"
    assert (result.cost_usd, result.cost_note) == (0.5, "n")


def test_no_verdict_is_errored() -> None:
    result = evaluate(None)
    assert result.errored and result.detail.startswith("judge failed: ")


def test_the_fake_judge_grades_nothing() -> None:
    judge: Judge = FakeJudge(JudgeContext("fake", Settings()))
    assert judge.name == "fake"
    request = build_request(case({"rubric": RUBRIC}), RunResult(output="x"))
    answer = judge.judge(request)
    assert answer.checks is None and answer.error is not None
    assert 'judge = "fake" grades nothing' in answer.error
    assert "skill-lens.toml" in answer.error
    result = evaluate(answer)
    assert result.errored and not result.passed
    assert result.detail.startswith('judge failed: judge = "fake" grades nothing')


def test_build_request_shows_tasks_expected_output_and_positional_rubric() -> None:
    sessions = case(
        {"expected": "a refusal", "rubric": ["a", "b"]},
        task=None,
        sessions=["first", "second"],
        workspace={},
    )
    request = build_request(sessions, RunResult(output="last reply"), [("report.md", "body")])
    assert request.tasks == ["first", "second"]
    assert request.expected == "a refusal"
    assert request.output == "last reply"
    assert request.rubric == [("r1", "a"), ("r2", "b")]
    assert request.artifacts == [("report.md", "body")]
    single = build_request(case({"rubric": ["x"]}), RunResult(output="o"))
    assert (single.tasks, single.expected, single.artifacts) == (["refund 1234"], None, [])
