from __future__ import annotations

from typing import Any

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.terminal import format_latency, summary_lines, totals_line
from pytest_skill_lens.score.check import Score

PASSED = GateResult(True, 0)


def outcome(status: Status = "passed", arm: Arm = "candidate", **fields: Any) -> Outcome:
    return Outcome(
        skill_name="greet", case_name="c", runner="fake", status=status, arm=arm, **fields
    )


def test_fake_only_run_prints_counts_and_a_positive_gate_line() -> None:
    record = RunRecord(outcomes=[outcome(), outcome()])
    assert summary_lines(record, PASSED) == [
        "2 passed, 0 failed, 0 errored — pass rate 100%",
        "",
        "Gate passed",
    ]


def test_failed_gate_lists_reasons() -> None:
    record = RunRecord(outcomes=[outcome(), outcome("failed"), outcome("errored")])
    gate = GateResult(False, 1, ("pass rate 33% is below the required 100%", "1 case errored"))
    assert summary_lines(record, gate) == [
        "1 passed, 1 failed, 1 errored — pass rate 33%",
        "",
        "Gate FAILED:",
        "  - pass rate 33% is below the required 100%",
        "  - 1 case errored",
    ]


def test_skipped_deselected_and_not_run() -> None:
    record = RunRecord(
        outcomes=[outcome(repeat_index=0), outcome(repeat_index=1)],
        skipped_skills=["a", "b"],
        tag_filtered_skills=["c"],
        deselected_skills=["c", "d"],
        not_run=[
            {"skill_name": "greet", "case_name": "x", "runner": "fake", "repeat_index": "1"},
            {"skill_name": "greet", "case_name": "x", "runner": "fake", "arm": "baseline"},
            {"nodeid": "skills/greet/SKILL.md::y[fake]", "skill_name": "greet"},
        ],
    )
    gate = GateResult(False, 1, ("3 case(s) did not run: stopped",))
    assert summary_lines(record, gate) == [
        "Skipped (no eval cases): a, b",
        "Deselected (no case selected by -k/-m): c, d",
        "",
        "Not run:",
        "  greet :: x (fake, run 2/2)",
        "  greet :: x (fake, baseline)",
        "  skills/greet/SKILL.md::y[fake]",
        "",
        "2 passed, 0 failed, 0 errored, 2 not run — pass rate 100%",
        "",
        "Gate FAILED:",
        "  - 3 case(s) did not run: stopped",
    ]


def test_long_not_run_list_is_capped() -> None:
    items = [{"skill_name": "s", "case_name": f"c{i}", "runner": "fake"} for i in range(25)]
    lines = summary_lines(RunRecord(not_run=items), GateResult(False, 1, ("r",)))
    assert lines[lines.index("Not run:") + 20] == "  s :: c19 (fake)"
    assert lines[lines.index("Not run:") + 21] == "  … +5 more"


def test_totals_include_baseline_and_retries() -> None:
    judge = Score("judge", True, 1.0, "ok", cost_usd=0.002)
    record = RunRecord(
        outcomes=[
            outcome(tokens=1200, cost_usd=0.01, retry_cost_usd=0.005, latency_ms=800.0),
            outcome(
                "failed",
                arm="baseline",
                tokens=34,
                cost_usd=0.0025,
                latency_ms=1550.0,
                scores=[judge],
            ),
        ]
    )
    assert totals_line(record) == (
        "Total tokens: 1,234 | Total cost: $0.0175 | Judge overhead: $0.0020 | Total latency: 2.35s"
    )
    # Baseline outcomes are in the totals, never in the counts.
    assert summary_lines(record, PASSED)[0] == "1 passed, 0 failed, 0 errored — pass rate 100%"


def test_unpriced_cost_never_reads_as_free() -> None:
    unpriced = outcome(cost_note="no price for groq:llama", latency_ms=12.0)
    assert totals_line(RunRecord(outcomes=[unpriced])) == (
        "Total cost: not priced (see per-case cost_note in the JSON report) | Total latency: 12ms"
    )
    priced = outcome(cost_usd=0.5)
    assert totals_line(RunRecord(outcomes=[priced, unpriced])) == (
        "Total cost: $0.5000, some costs not priced (see per-case cost_note in the JSON report)"
        " | Total latency: 12ms"
    )


def test_unpriced_judge() -> None:
    judge = Score("judge", True, 1.0, "ok", cost_note="judge model has no price")
    assert totals_line(RunRecord(outcomes=[outcome(scores=[judge])])) == (
        "Judge overhead: not priced (see scores[].cost_note in the JSON report)"
    )


def test_nothing_spent_or_measured_prints_no_totals_line() -> None:
    assert totals_line(RunRecord(outcomes=[outcome()])) is None


def test_latency_format() -> None:
    assert format_latency(999.4) == "999ms"
    assert format_latency(1000.0) == "1.00s"
    assert format_latency(61234.0) == "61.23s"


def test_every_kept_workspace_is_listed_before_the_gate() -> None:
    record = RunRecord(
        outcomes=[
            outcome(workspace="/tmp/skill-lens-a", repeat_index=0),
            outcome(),  # deleted after scoring: not listed
            outcome("failed", workspace="/tmp/skill-lens-b", repeat_index=1),
            outcome(arm="baseline", workspace="/tmp/skill-lens-c"),
        ]
    )
    assert summary_lines(record, PASSED) == [
        "2 passed, 1 failed, 0 errored — pass rate 67%",
        "",
        "Kept workspaces:",
        "  greet :: c (fake, run 1/2): /tmp/skill-lens-a",
        "  greet :: c (fake, run 2/2): /tmp/skill-lens-b",
        "  greet :: c (fake, baseline, run 1/2): /tmp/skill-lens-c",
        "",
        "Gate passed",
    ]


def test_runs_whose_skill_never_loaded_are_counted_apart_per_runner() -> None:
    record = RunRecord(
        outcomes=[
            outcome(),  # a framework runner cannot tell: None, never counted
            Outcome(
                "greet", "a", "copilot", "passed", skill_loaded=False, load_note="not expanded"
            ),
            Outcome("greet", "b", "copilot", "failed", skill_loaded=False),
            Outcome("greet", "c", "copilot", "passed", skill_loaded=True),
            Outcome("greet", "a", "copilot", "passed", arm="baseline", skill_loaded=False),
            # An offered negative control that left the skill alone: its measured verdict
            # (skill_triggered is set for offered cases only), never a run without it.
            Outcome("greet", "d", "copilot", "passed", skill_loaded=False, skill_triggered=False),
        ]
    )
    lines = summary_lines(record, PASSED)
    assert lines[0] == (
        "Skill never loaded: 2 candidate run(s) under copilot (1 passed) ran without the skill "
        "reaching the model; they say nothing about the skill (first reason: not expanded)"
    )


def test_the_spend_ceiling_joins_the_totals() -> None:
    from pytest_skill_lens.gate.spend import SpendCeiling

    record = RunRecord(outcomes=[outcome(cost_usd=0.25)])
    record.spend_ceiling = SpendCeiling(max_spend_usd=2.0, spent_usd=0.25, unpriced=None)
    assert totals_line(record) == "Total cost: $0.2500 | Spend ceiling: $2.00 ($0.2500 recorded)"


def test_a_run_with_no_case_shows_no_pass_rate_rather_than_zero_percent() -> None:
    # Nothing changed since REF, or every case not run: 0% would read as all failing.
    lines = summary_lines(RunRecord(outcomes=[]), PASSED)
    assert "0 passed, 0 failed, 0 errored — no case ran: no pass rate" in lines
    assert not any("pass rate 0%" in line for line in lines)
