from __future__ import annotations

from collections.abc import Mapping

import pytest

from pytest_skill_lens.formatting import percent
from pytest_skill_lens.gate.figures import pass_rate, pass_rate_by_skill
from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.gate.verdict import (
    DEFAULT_NOT_RUN_CAUSE,
    evaluate_gate,
    falls_short,
)
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome


def outcome(
    status: Status = "passed", skill: str = "greet", case: str = "c", arm: Arm = "candidate"
) -> Outcome:
    return Outcome(skill_name=skill, case_name=case, runner="fake", status=status, arm=arm)


def gate(
    record: RunRecord,
    *,
    min_pass_rate: float = 1.0,
    fail_on_error: bool = True,
    per_skill_min: Mapping[str, float] | None = None,
) -> GateResult:
    return evaluate_gate(
        record,
        min_pass_rate=min_pass_rate,
        fail_on_error=fail_on_error,
        per_skill_min=per_skill_min or {},
    )


def test_all_passed_is_exit_0() -> None:
    result = gate(RunRecord(outcomes=[outcome(), outcome(case="d")]))
    assert result == GateResult(passed=True, exit_code=0, reasons=())


def test_pass_rate_below_bar() -> None:
    record = RunRecord(outcomes=[outcome(), outcome("failed")])
    result = gate(record)
    assert result == GateResult(False, 1, ("pass rate 50% is below the required 100%",))
    assert gate(record, min_pass_rate=0.5).passed


def test_errored_counts_in_denominator_and_fails_by_default() -> None:
    record = RunRecord(outcomes=[outcome(), outcome("errored")])
    assert pass_rate(record.candidates) == 0.5
    assert gate(record, min_pass_rate=0.5).reasons == ("1 case errored",)
    more = RunRecord(outcomes=[*record.outcomes, outcome("errored")])  # a record is read whole
    assert gate(more, min_pass_rate=0.3).reasons == ("2 cases errored",)


def test_fail_on_error_false_still_lowers_the_rate() -> None:
    record = RunRecord(outcomes=[outcome(), outcome("errored")])
    assert gate(record, fail_on_error=False).reasons == (
        "pass rate 50% is below the required 100%",
    )
    assert gate(record, fail_on_error=False, min_pass_rate=0.5).passed


def test_reasons_come_in_a_fixed_order() -> None:
    record = RunRecord(
        outcomes=[outcome("errored"), outcome(skill="other")],
        not_run=[{"skill_name": "greet", "case_name": "x", "runner": "fake"}],
    )
    assert gate(record, per_skill_min={"greet": 1.0}).reasons == (
        "pass rate 50% is below the required 100%",
        "1 case errored",
        f"1 case(s) did not run: {DEFAULT_NOT_RUN_CAUSE}",
        "skill 'greet' pass rate 0% is below its required 100%",
    )


def test_tolerance_lets_a_float_error_meet_the_bar() -> None:
    assert 0.6 - 0.4 < 0.2  # the float error upstream trips over
    assert not falls_short(0.6 - 0.4, 0.2)
    assert falls_short(0.2 - 2e-9, 0.2)
    # Two of three passing at a bar of 2/3 written out to a few digits still fails.
    assert falls_short(2 / 3, 0.6667)


def test_tolerance_applies_to_the_gate() -> None:
    outcomes = [outcome("passed")] * 3 + [outcome("failed")] * 7
    bar = 0.1 + 0.2  # 0.30000000000000004, a hair above 3/10
    assert pass_rate(outcomes) < bar
    assert gate(RunRecord(outcomes=outcomes), min_pass_rate=bar).passed


def test_close_rates_print_with_enough_digits_to_differ() -> None:
    outcomes = [outcome()] * 299 + [outcome("failed")]
    assert gate(RunRecord(outcomes=outcomes)).reasons == (
        "pass rate 99.7% is below the required 100.0%",
    )
    assert percent(0.5) == "50%"
    assert percent(0.5, 0.25) == "50%"


def test_baseline_outcomes_never_count() -> None:
    record = RunRecord(
        outcomes=[outcome(), outcome("failed", arm="baseline"), outcome("errored", arm="baseline")]
    )
    assert gate(record).passed
    only_baseline = RunRecord(outcomes=[outcome(arm="baseline")], skills_found=1)
    assert gate(only_baseline).reasons == (
        "no eval cases ran: 1 skill(s) were found but no case produced an outcome",
    )
    assert pass_rate_by_skill(record.outcomes) == {"greet": 1.0}


def test_zero_cases_deselected_by_selection() -> None:
    record = RunRecord(deselected_skills=["a", "b"], skipped_skills=["c"], skills_found=3)
    assert gate(record).reasons == (
        "no eval cases ran: the -k/-m selection deselected every case (skill(s): a, b)",
    )


def test_zero_cases_filtered_lists_are_merged_without_duplicates() -> None:
    record = RunRecord(
        tag_filtered_skills=["a"], case_filtered_skills=["b"], deselected_skills=["a"]
    )
    assert gate(record).reasons == (
        "no eval cases ran: the -k/-m selection deselected every case (skill(s): a, b)",
    )


def test_zero_cases_all_skipped() -> None:
    record = RunRecord(skipped_skills=["a", "b"], skills_found=2)
    assert gate(record).reasons == (
        "no eval cases ran: all discovered skill(s) were skipped for having no eval cases: a, b",
    )


def test_zero_cases_no_skills() -> None:
    result = gate(RunRecord(), min_pass_rate=0.0)
    assert result == GateResult(False, 1, ("no eval cases ran: no skills were found",))


def test_zero_cases_with_everything_unrun() -> None:
    record = RunRecord(skills_found=1, not_run=[{"nodeid": "s/SKILL.md::a[fake]"}])
    assert gate(record).reasons == (
        "no eval cases ran: none of the 1 selected case(s) produced an outcome",
        f"1 case(s) did not run: {DEFAULT_NOT_RUN_CAUSE}",
    )


def test_not_run_fails_a_passing_run_and_groups_causes() -> None:
    record = RunRecord(
        outcomes=[outcome()],
        not_run=[
            {"case_name": "a", "reason": "stopped by -x"},
            {"case_name": "b", "arm": "baseline", "reason": "stopped by -x"},
            {"case_name": "c"},
        ],
    )
    assert gate(record, min_pass_rate=0.0).reasons == (
        "2 case(s) did not run (1 candidate, 1 baseline): stopped by -x",
        f"1 case(s) did not run: {DEFAULT_NOT_RUN_CAUSE}",
    )


def test_per_skill_min_skipped_versus_no_results() -> None:
    record = RunRecord(outcomes=[outcome()], skipped_skills=["empty"])
    assert gate(record, per_skill_min={"empty": 0.5, "typo": 0.8}).reasons == (
        "skill 'empty' requires a pass rate of 50% but was skipped (no eval cases)",
        "skill 'typo' requires a pass rate of 80% but produced no results",
    )


def test_per_skill_min_pools_runners_and_repeats() -> None:
    record = RunRecord(
        outcomes=[outcome(), outcome("failed"), outcome(skill="b"), outcome("failed", skill="b")]
    )
    result = gate(record, min_pass_rate=0.0, per_skill_min={"b": 0.75, "greet": 0.5})
    assert result.reasons == ("skill 'b' pass rate 50% is below its required 75%",)


def test_per_skill_min_baseline_only_skill_produced_no_results() -> None:
    record = RunRecord(outcomes=[outcome(), outcome(skill="b", arm="baseline")])
    assert gate(record, per_skill_min={"b": 0.1}).reasons == (
        "skill 'b' requires a pass rate of 10% but produced no results",
    )


@pytest.mark.parametrize("statuses", [[], ["passed"], ["failed", "errored"]])
def test_pass_rate_helper(statuses: list[Status]) -> None:
    expected = statuses.count("passed") / len(statuses) if statuses else 0.0
    assert pass_rate([outcome(s) for s in statuses]) == expected
