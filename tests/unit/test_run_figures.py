"""The gate's figures are computed once per record and every report reads them there."""

from __future__ import annotations

import pytest

from pytest_skill_lens.gate import figures
from pytest_skill_lens.gate.judging import judge_record
from pytest_skill_lens.gate.record import GateSettings, RunRecord
from pytest_skill_lens.gate.verdict import DEFAULT_NOT_RUN_CAUSE as STOPPED
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.terminal import summary_lines


def outcome(
    skill: str,
    status: Status,
    arm: Arm = "candidate",
    took: list[str] | None = None,
) -> Outcome:
    return Outcome(
        skill,
        "c",
        "fake",
        status,
        arm=arm,
        trigger_expected=True if took is not None else None,
        skills_triggered=took,
    )


RECORD = RunRecord(
    outcomes=[
        outcome("greet", "passed", took=["greet"]),
        outcome("greet", "failed", took=["farewell"]),
        outcome("farewell", "errored"),
        outcome("farewell", "passed"),
        outcome("greet", "failed", arm="baseline"),
    ],
    not_run=[{"skill_name": "greet", "arm": "candidate"}, {"arm": "baseline"}],
)


def test_the_figures_count_the_candidate_arm_and_its_triggering() -> None:
    got = RECORD.figures
    assert (got.total, got.passed, got.failed, got.errored, got.not_run) == (4, 2, 1, 1, 1)
    assert got.pass_rate == 0.5
    assert dict(got.pass_rate_by_skill) == {"greet": 0.5, "farewell": 0.5}
    assert list(got.pass_rate_by_skill) == ["greet", "farewell"]  # first-seen order
    assert got.triggering is not None
    assert got.triggering.count("greet", "farewell") == 1


def test_an_empty_record_has_no_rate_and_no_triggering() -> None:
    got = RunRecord().figures
    assert (got.total, got.pass_rate, dict(got.pass_rate_by_skill), got.triggering) == (
        0,
        0.0,
        {},
        None,
    )


def test_the_gate_and_every_report_read_one_computation(monkeypatch: pytest.MonkeyPatch) -> None:
    computed: list[list[Outcome]] = []
    real = figures.run_figures

    def counting(outcomes: list[Outcome], not_run: list[dict[str, object]]) -> figures.RunFigures:
        computed.append(outcomes)
        return real(outcomes, not_run)

    monkeypatch.setattr(figures, "run_figures", counting)
    fresh = RunRecord(outcomes=list(RECORD.outcomes), not_run=list(RECORD.not_run))
    record, gate = judge_record(fresh, GateSettings(min_pass_rate=0.5, fail_on_error=False))
    render_json(record, gate)
    render_markdown(record, gate)
    summary_lines(record, gate)
    assert computed == [record.outcomes]
    assert gate.reasons == (f"2 case(s) did not run (1 candidate, 1 baseline): {STOPPED}",)
