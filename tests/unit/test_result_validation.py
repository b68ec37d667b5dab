"""What a runner, a judge and an evaluator hand back is checked before anything reads it.

``problems`` (a runner's RunResult), ``verdict_problems`` (a judge's JudgeVerdict) and
``score_problems`` (a plugin evaluator's Score) name every malformed field with a
bounded picture of the bad value; the budget evaluator refuses an impossible figure
as errored instead of comparing against it.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_skill_lens.run.result import RunResult, ToolCall, problems
from pytest_skill_lens.score.budget import BudgetEvaluator
from pytest_skill_lens.score.check import CheckResult, Score, ScoringContext
from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict
from pytest_skill_lens.score.shapes import score_problems, verdict_problems
from pytest_skill_lens.suite.model import EvalCase

# --- a runner's RunResult ----------------------------------------------------------------


def test_a_default_result_and_a_fully_filled_one_are_well_formed() -> None:
    full = RunResult(
        output="done",
        tool_calls=[ToolCall("lookup", {"id": 7, "tags": ["a", None], "deep": {"x": 1.5}})],
        input_tokens=10,
        output_tokens=5,
        cost_usd=0.25,
        latency_ms=12,  # a whole number of milliseconds is a number too
        model="m",
        transcript=[{"role": "user", "content": object()}],  # never reported: not inspected
        error=None,
        skill_triggered=True,
        skill_triggered_by_session=[True, None, False],
        cost_note="n",
        usage_note="u",
        stop_note="s",
        retry_cost_usd=0.0,
    )
    assert problems(RunResult()) == []
    assert problems(full) == []


MALFORMED: list[Any] = [
    pytest.param({"output": 12345}, "output: Input should be a valid string (got 12345)", id="out"),
    pytest.param(
        {"tool_calls": [None, 5, "x"]},
        "tool_calls[0]: Input should be a ToolCall, not NoneType (got None)",
        id="tool-calls-garbage",
    ),
    pytest.param(
        {"tool_calls": (ToolCall("a"),)},
        "tool_calls: Input should be a valid list (got (ToolCall(name='a', arguments={}),))",
        id="tool-calls-tuple",
    ),
    pytest.param(
        {"tool_calls": [ToolCall(3)]},  # type: ignore[arg-type]
        "tool_calls[0].name: Input should be a valid string (got 3)",
        id="tool-name-not-text",
    ),
    pytest.param(
        {"tool_calls": [ToolCall("a", {"when": object()})]},
        "tool_calls[0].arguments.when: input was not a valid JSON value (got <object object",
        id="tool-argument-not-json",
    ),
    pytest.param(
        {"tool_calls": [ToolCall("a", {1: "x"})]},  # type: ignore[dict-item]
        "tool_calls[0].arguments[1]",
        id="tool-argument-key-not-text",
    ),
    pytest.param(
        {"input_tokens": "12"},
        "input_tokens: Input should be a valid integer (got '12')",
        id="tokens-text",
    ),
    pytest.param(
        {"output_tokens": True},
        "output_tokens: Input should be a valid integer (got True)",
        id="tokens-bool",
    ),
    pytest.param(
        {"input_tokens": -1},
        "input_tokens: Input should be greater than or equal to 0 (got -1)",
        id="tokens-negative",
    ),
    pytest.param({"output_tokens": 1.0}, "output_tokens: Input should be a valid integer", id="f"),
    pytest.param({"input_tokens": 10**30}, "input_tokens: Input should be less than", id="huge"),
    pytest.param(
        {"cost_usd": -1e9},
        "cost_usd: Input should be greater than or equal to 0 (got -1000000000.0)",
        id="cost-negative",
    ),
    pytest.param(
        {"cost_usd": math.nan}, "cost_usd: Input should be a finite number (got nan)", id="nan"
    ),
    pytest.param(
        {"latency_ms": math.inf},
        "latency_ms: Input should be a finite number (got inf)",
        id="latency-inf",
    ),
    pytest.param(
        {"latency_ms": -5.0},
        "latency_ms: Input should be greater than or equal to 0 (got -5.0)",
        id="latency-negative",
    ),
    pytest.param(
        {"retry_cost_usd": None},
        "retry_cost_usd: Input should be a valid number (got None)",
        id="retry-cost-none",
    ),
    pytest.param(
        {"cost_usd": "0.1"}, "cost_usd: Input should be a valid number (got '0.1')", id="cost-text"
    ),
    pytest.param({"model": None}, "model: Input should be a valid string (got None)", id="model"),
    pytest.param(
        {"transcript": "hi"}, "transcript: Input should be a valid list (got 'hi')", id="transcript"
    ),
    pytest.param(
        {"transcript": ["hi"]},
        "transcript[0]: Input should be a valid dictionary (got 'hi')",
        id="transcript-entry",
    ),
    pytest.param({"error": 5}, "error: Input should be a valid string (got 5)", id="error-number"),
    pytest.param(
        {"skill_triggered": "yes"},
        "skill_triggered: Input should be a valid boolean (got 'yes')",
        id="triggered-text",
    ),
    pytest.param(
        {"skill_triggered": 1},
        "skill_triggered: Input should be a valid boolean (got 1)",
        id="triggered-one",
    ),
    pytest.param(
        {"skill_triggered_by_session": [True, "no"]},
        "skill_triggered_by_session[1]: Input should be a valid boolean (got 'no')",
        id="by-session",
    ),
    pytest.param(
        {"cost_note": 0}, "cost_note: Input should be a valid string (got 0)", id="cost-note"
    ),
    pytest.param(
        {"usage_note": b"x"}, "usage_note: Input should be a valid string (got b'x')", id="usage"
    ),
    pytest.param(
        {"stop_note": ["x"]}, "stop_note: Input should be a valid string (got ['x'])", id="stop"
    ),
]


@pytest.mark.parametrize(("fields", "message"), MALFORMED)
def test_a_malformed_field_is_named_with_its_value(fields: dict[str, Any], message: str) -> None:
    found = problems(RunResult(**fields))
    assert found, fields
    assert found[0].startswith(message)


def test_every_malformed_field_is_listed_in_field_order() -> None:
    found = problems(RunResult(output=1, tool_calls=[None, 5, "x"], cost_usd=-1))  # type: ignore[arg-type,list-item]
    assert [p.split(":")[0] for p in found] == [
        "output",
        "tool_calls[0]",
        "tool_calls[1]",
        "tool_calls[2]",
        "cost_usd",
    ]


def test_a_huge_bad_value_is_shown_bounded() -> None:
    found = problems(RunResult(output=b"x" * 100_000, tool_calls=[{"k": "v" * 100_000}]))  # type: ignore[arg-type,list-item]
    assert len(found) == 2
    assert all(len(problem) < 200 for problem in found), found
    assert "..." in found[0]


def test_a_value_whose_repr_raises_is_still_named() -> None:
    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("no repr for you")

    found = problems(RunResult(output=Hostile()))  # type: ignore[arg-type]
    assert found[0].startswith("output: Input should be a valid string (got <")


def test_a_cyclic_argument_is_refused_not_recursed_forever() -> None:
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    found = problems(RunResult(tool_calls=[ToolCall("a", cyclic)]))
    assert found and found[0].startswith("tool_calls[0].arguments.self")


def test_a_subclass_is_checked_by_the_same_fields() -> None:
    class Mine(RunResult):
        pass

    assert problems(Mine(output="ok")) == []
    assert problems(Mine(output=None))[0].startswith("output:")  # type: ignore[arg-type]


# --- a judge's JudgeVerdict ----------------------------------------------------------------


def test_a_well_formed_verdict_has_no_problems() -> None:
    verdict = JudgeVerdict(
        checks=[JudgeCheck("r1", True, "quoted")], cost_usd=0.5, tokens=30, model="j"
    )
    assert verdict_problems(verdict) == []
    assert verdict_problems(JudgeVerdict(checks=None, error="could not grade")) == []


MALFORMED_VERDICTS: list[Any] = [
    pytest.param(
        JudgeVerdict(checks=[None]),  # type: ignore[list-item]
        "checks[0]: Input should be a JudgeCheck, not NoneType (got None)",
        id="check-none",
    ),
    pytest.param(
        JudgeVerdict(checks="r1 passed"),  # type: ignore[arg-type]
        "checks: Input should be a valid list (got 'r1 passed')",
        id="checks-text",
    ),
    pytest.param(
        JudgeVerdict(checks=[JudgeCheck("r1", "yes", "e")]),  # type: ignore[arg-type]
        "checks[0].passed: Input should be a valid boolean (got 'yes')",
        id="passed-text",
    ),
    pytest.param(
        JudgeVerdict(checks=[JudgeCheck("r1", True, None)]),  # type: ignore[arg-type]
        "checks[0].evidence: Input should be a valid string (got None)",
        id="evidence-none",
    ),
    pytest.param(
        JudgeVerdict(checks=[JudgeCheck(1, True, "e")]),  # type: ignore[arg-type]
        "checks[0].id: Input should be a valid string (got 1)",
        id="id-number",
    ),
    pytest.param(
        JudgeVerdict(checks=[], cost_usd=-1.0),
        "cost_usd: Input should be greater than or equal to 0 (got -1.0)",
        id="cost-negative",
    ),
    pytest.param(
        JudgeVerdict(checks=[], cost_usd=math.nan),
        "cost_usd: Input should be a finite number (got nan)",
        id="cost-nan",
    ),
    pytest.param(
        JudgeVerdict(checks=[], tokens=-3),
        "tokens: Input should be greater than or equal to 0 (got -3)",
        id="tokens-negative",
    ),
    pytest.param(
        JudgeVerdict(checks=[], error=RuntimeError("x")),  # type: ignore[arg-type]
        "error: Input should be a valid string (got RuntimeError('x'))",
        id="error-exception",
    ),
    pytest.param(
        JudgeVerdict(checks=[], cost_note=1),  # type: ignore[arg-type]
        "cost_note: Input should be a valid string (got 1)",
        id="cost-note",
    ),
    pytest.param(
        JudgeVerdict(checks=[], model=None),  # type: ignore[arg-type]
        "model: Input should be a valid string (got None)",
        id="model",
    ),
]


@pytest.mark.parametrize(("verdict", "message"), MALFORMED_VERDICTS)
def test_a_malformed_verdict_field_is_named(verdict: JudgeVerdict, message: str) -> None:
    found = verdict_problems(verdict)
    assert found and found[0] == message


# --- a plugin evaluator's Score --------------------------------------------------------------


def test_a_well_formed_score_has_no_problems() -> None:
    score = Score("mine", False, 0.5, "1/2 held", (CheckResult("a", True, "e"),))
    assert score_problems(score) == []
    assert score_problems(Score("mine", True, 1, "ok", [CheckResult("a", True, "e")])) == []  # type: ignore[arg-type]


MALFORMED_SCORES: list[Any] = [
    pytest.param(
        Score("mine", "no", 0.0, "d"),  # type: ignore[arg-type]
        "passed: Input should be a valid boolean (got 'no')",
        id="passed-text",
    ),
    pytest.param(
        Score("mine", True, math.nan, "d"),
        "score: Input should be a finite number (got nan)",
        id="score-nan",
    ),
    pytest.param(
        Score("mine", True, 2.0, "d"),
        "score: Input should be less than or equal to 1 (got 2.0)",
        id="score-above-one",
    ),
    pytest.param(
        Score("mine", True, 1.0, None),  # type: ignore[arg-type]
        "detail: Input should be a valid string (got None)",
        id="detail-none",
    ),
    pytest.param(
        Score("mine", True, 1.0, "d", (None,)),  # type: ignore[arg-type]
        "checks[0]: Input should be a CheckResult, not NoneType (got None)",
        id="check-none",
    ),
    pytest.param(
        Score("mine", True, 1.0, "d", (CheckResult("a", True, 5),)),  # type: ignore[arg-type]
        "checks[0].evidence: Input should be a valid string (got 5)",
        id="evidence-number",
    ),
    pytest.param(
        Score("mine", False, 0.0, "d", (CheckResult("a", False, "e", "no"),)),  # type: ignore[arg-type]
        "checks[0].evaluated: Input should be a valid boolean (got 'no')",
        id="evaluated-text",
    ),
    pytest.param(
        Score("mine", True, 1.0, "d", errored="no"),  # type: ignore[arg-type]
        "errored: Input should be a valid boolean (got 'no')",
        id="errored-text",
    ),
    pytest.param(
        Score("mine", True, 1.0, "d", cost_usd=-2.0),
        "cost_usd: Input should be greater than or equal to 0 (got -2.0)",
        id="cost-negative",
    ),
    pytest.param(
        Score(7, True, 1.0, "d"),  # type: ignore[arg-type]
        "evaluator: Input should be a valid string (got 7)",
        id="evaluator-number",
    ),
]


@pytest.mark.parametrize(("score", "message"), MALFORMED_SCORES)
def test_a_malformed_score_field_is_named(score: Score, message: str) -> None:
    found = score_problems(score)
    assert found and found[0] == message


# --- impossible figures never reach a budget comparison -----------------------------------


def _budget(**result: Any) -> Score:
    case = EvalCase.model_validate(
        {
            "name": "c",
            "task": "t",
            "budget": {"max_tokens": 100, "max_cost_usd": 100, "max_latency_ms": 100},
        }
    )
    return BudgetEvaluator().evaluate(case, RunResult(**result), ScoringContext(runner="r"))


@pytest.mark.parametrize(
    ("figures", "named"),
    [
        pytest.param({"cost_usd": -1e9}, "cost_usd -1000000000.0", id="negative-cost"),
        pytest.param({"cost_usd": math.nan}, "cost_usd nan", id="nan-cost"),
        pytest.param({"latency_ms": -1.0}, "latency_ms -1.0", id="negative-latency"),
        pytest.param({"latency_ms": math.inf}, "latency_ms inf", id="inf-latency"),
        pytest.param({"input_tokens": -500}, "input_tokens -500", id="negative-tokens"),
        pytest.param({"output_tokens": -1, "input_tokens": 5}, "output_tokens -1", id="neg-out"),
    ],
)
def test_an_impossible_figure_errors_the_budget(figures: dict[str, Any], named: str) -> None:
    score = _budget(**figures)
    assert score.errored
    assert not score.passed
    assert score.checks == ()  # nothing was compared against it
    assert score.detail == f"budget not evaluated: impossible figure {named}"


def test_possible_figures_are_still_compared() -> None:
    score = _budget(input_tokens=10, cost_usd=0.5, latency_ms=50.0)
    assert score.passed and not score.errored
    assert len(score.checks) == 3
