"""What the reports say of outcomes from runner ``fake``, and budget evidence under it."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.labels import Arm
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_report import summary
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.terminal import gate_lines
from pytest_skill_lens.report.wiring import WHAT_HOLDS, FakeShare
from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.score.budget import BudgetEvaluator
from pytest_skill_lens.score.check import ScoringContext
from pytest_skill_lens.suite.model import EvalCase


def outcome(runner: str = "fake", model: str = "fake", arm: Arm = "candidate") -> Outcome:
    return Outcome("s", "c", runner, "passed", arm=arm, model=model)


def test_every_candidate_from_fake_is_wiring_only() -> None:
    share = FakeShare.of(RunRecord(outcomes=[outcome(), outcome()]))
    assert (share.fake, share.total, share.every) == (2, 2, True)
    assert share.note() == (
        "wiring only: every candidate outcome (2) came from runner fake, "
        "which measures the suite's wiring, not the skill"
    )
    assert share.sentence() == (
        "Wiring only: every candidate outcome (2) came from runner fake, "
        f"which measures the suite's wiring, not the skill. {WHAT_HOLDS}"
    )


def test_some_from_fake_names_the_share_and_baselines_do_not_count() -> None:
    record = RunRecord(
        outcomes=[
            outcome(),
            outcome("pydantic-ai", "openai:gpt-4o-mini"),
            outcome("pydantic-ai", "openai:gpt-4o-mini"),
            outcome(arm="baseline"),
        ]
    )
    share = FakeShare.of(record)
    assert (share.fake, share.total, share.every) == (1, 3, False)
    assert share.note() == (
        "partly wiring: 1 of 3 candidate outcomes (33%) came from runner fake, "
        "which measures the suite's wiring, not the skill"
    )


@pytest.mark.parametrize(
    "outcomes",
    [
        [],  # nothing ran
        [outcome(model="replacement")],  # a fixture replaced the runner named fake
        [outcome("scripted", "fake")],  # another runner that calls its model "fake"
    ],
)
def test_no_note_without_an_outcome_of_the_fake_runner(outcomes: list[Outcome]) -> None:
    record = RunRecord(outcomes=outcomes)
    assert FakeShare.of(record).note() is None
    assert gate_lines(GateResult(True, 0), FakeShare.of(record)) == ["Gate passed"]
    assert (summary(record)["fake_outcomes"], summary(record)["fake_note"]) == (0, None)
    assert "wiring" not in render_markdown(record, GateResult(True, 0))


def test_the_gate_lines_carry_the_note_passed_or_failed() -> None:
    share = FakeShare(fake=1, total=1)
    note = share.note()
    assert gate_lines(GateResult(True, 0), share) == [f"Gate passed — {note}", f"  {WHAT_HOLDS}"]
    failed = GateResult(False, 1, ("1 case errored",))
    assert gate_lines(failed, share) == [
        "Gate FAILED:",
        "  - 1 case errored",
        "Wiring only: every candidate outcome (1) came from runner fake, which measures the "
        "suite's wiring, not the skill",
        f"  {WHAT_HOLDS}",
    ]


def budget_score(runner: str, **result: Any) -> Any:
    case = EvalCase.model_validate({"name": "c", "task": "t", "budget": {"max_tokens": 10}})
    return BudgetEvaluator().evaluate(case, RunResult(**result), ScoringContext(runner=runner))


def test_budget_evidence_under_the_fake_runner_is_not_a_measurement() -> None:
    score = budget_score("fake", model="fake")
    assert (score.passed, score.score) == (True, 1.0)
    assert score.detail == (
        "limits compared with the fake runner's figures, which are not measurements: "
        "max_tokens held"
    )
    (check,) = score.checks
    assert check.evidence == (
        "not measured under fake (the fake runner calls no model): used 0 tokens, limit is 10"
    )


def test_a_limit_over_under_fake_still_fails() -> None:
    # A wrapper that kept the fake's model but reported tokens: compared, and said so.
    score = budget_score("fake", model="fake", input_tokens=11)
    assert not score.passed
    assert score.detail.endswith(": max_tokens exceeded")
    assert score.checks[0].evidence.endswith("used 11 tokens, limit is 10")


@pytest.mark.parametrize(("runner", "model"), [("fake", "acme"), ("scripted", "fake")])
def test_budget_evidence_of_any_other_run_is_unchanged(runner: str, model: str) -> None:
    score = budget_score(runner, model=model)
    assert score.detail == "max_tokens held"
    assert score.checks[0].evidence == "used 0 tokens, limit is 10"
