from __future__ import annotations

from typing import Any

from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.score.budget import BudgetEvaluator
from pytest_skill_lens.score.check import CheckResult, Score, ScoringContext
from pytest_skill_lens.suite.model import EvalCase

CONTEXT = ScoringContext(runner="fake")


def score(budget: dict[str, Any] | None, **result: Any) -> Score:
    data: dict[str, Any] = {"name": "c", "task": "t"}
    if budget is not None:
        data["budget"] = budget
    return BudgetEvaluator().evaluate(EvalCase.model_validate(data), RunResult(**result), CONTEXT)


def check(result: Score, check_id: str) -> CheckResult:
    found = [c for c in result.checks if c.id == check_id]
    assert len(found) == 1, [c.id for c in result.checks]
    return found[0]


def test_no_budget_passes() -> None:
    result = score(None, input_tokens=10**9)
    assert (result.evaluator, result.passed, result.score, result.detail) == (
        "budget",
        True,
        1.0,
        "no budget",
    )


def test_values_at_the_limit_pass() -> None:
    result = score(
        {"max_tokens": 100, "max_cost_usd": 0.01, "max_latency_ms": 30000},
        input_tokens=60,
        output_tokens=40,
        cost_usd=0.01,
        latency_ms=30000.0,
    )
    assert result.passed and result.score == 1.0
    assert [c.id for c in result.checks] == ["max_tokens", "max_cost_usd", "max_latency_ms"]
    assert check(result, "max_tokens").evidence == "used 100 tokens, limit is 100"
    assert check(result, "max_cost_usd").evidence == "cost $0.01, limit is $0.01"
    assert check(result, "max_latency_ms").evidence == "took 30000 ms, limit is 30000 ms"


def test_over_a_limit_fails() -> None:
    result = score(
        {"max_tokens": 100, "max_cost_usd": 0.01, "max_latency_ms": 500},
        input_tokens=60,
        output_tokens=41,
        cost_usd=0.0125,
        latency_ms=500.5,
    )
    assert not result.passed and result.score == 0.0
    assert check(result, "max_tokens").evidence == "used 101 tokens, limit is 100"
    assert check(result, "max_cost_usd").evidence == "cost $0.0125, limit is $0.01"
    assert check(result, "max_latency_ms").evidence == "took 500.5 ms, limit is 500 ms"


def test_a_stopped_run_says_so_in_the_token_evidence() -> None:
    note = "pydantic-ai stopped the run before the agent finished, at the case's max_tokens"
    result = score({"max_tokens": 100}, input_tokens=100, output_tokens=20, stop_note=note)
    tokens = check(result, "max_tokens")
    assert not tokens.passed
    assert tokens.evidence == f"used 120 tokens, limit is 100; {note}"


def test_cost_never_counts_retries() -> None:
    result = score({"max_cost_usd": 0.01}, cost_usd=0.005, retry_cost_usd=1.0)
    assert result.passed


def test_an_unpriced_cost_limit_is_a_failing_not_evaluated_check() -> None:
    result = score(
        {"max_tokens": 100, "max_cost_usd": 0.01},
        input_tokens=10,
        cost_usd=0.0,
        cost_note="no price for groq:llama",
    )
    cost = check(result, "max_cost_usd")
    assert not cost.passed
    assert cost.evidence == "cost budget not evaluated: no price for groq:llama"
    assert check(result, "max_tokens").passed
    assert not result.passed  # the verdict needs every limit
    assert result.score == 1.0  # the number counts only what was measured
    assert result.detail == "max_tokens held, max_cost_usd not evaluated"


def test_uncounted_tokens_are_a_failing_not_evaluated_check() -> None:
    result = score(
        {"max_tokens": 100, "max_latency_ms": 1000},
        latency_ms=10.0,
        usage_note="cli reports no token usage",
    )
    tokens = check(result, "max_tokens")
    assert not tokens.passed
    assert tokens.evidence == "token budget not evaluated: cli reports no token usage"
    assert not result.passed and result.score == 1.0


def test_a_block_with_nothing_evaluated_scores_zero() -> None:
    result = score(
        {"max_tokens": 100, "max_cost_usd": 1.0},
        usage_note="no usage",
        cost_note="no price",
    )
    assert not result.passed
    assert result.score == 0.0
    assert result.detail == "max_tokens not evaluated, max_cost_usd not evaluated"


def test_a_cost_note_without_a_cost_limit_changes_nothing() -> None:
    result = score({"max_tokens": 100}, input_tokens=5, cost_note="no price")
    assert result.passed and result.score == 1.0
