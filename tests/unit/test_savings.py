"""What a run spent and did not spend, and why, as every report says it (report/savings.py)."""

from __future__ import annotations

import dataclasses

from pytest_skill_lens.gate.changed_skills import ChangedSelection, ChangedSkill
from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_report import report_dict
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.savings import Savings, not_paid_again
from pytest_skill_lens.report.terminal import summary_lines

PASSED = GateResult(True, 0)


LISTED = "list price of openai:gpt-4o-mini (genai-prices 0.2.5); your endpoint may bill differently"


def outcome(case: str, *, cost: float = 0.0, replayed: bool = False) -> Outcome:
    return Outcome(
        skill_name="greet",
        case_name=case,
        runner="fake",
        status="passed",
        cost_usd=cost,
        replayed=replayed,
        price_source=LISTED if cost else None,
    )


def record() -> RunRecord:
    return RunRecord(
        outcomes=[outcome("fresh", cost=0.5), outcome("taped", cost=0.25, replayed=True)],
        stopped_early=[
            {"skill_name": "greet", "case_name": "fresh", "runner": "fake", "arm": "candidate"}
        ],
        changed=ChangedSelection(
            ref="main",
            commit="0123456789abcdef",
            how="given",
            changed_skills=(ChangedSkill("greet", ("SKILL.md changed",)),),
            unchanged_skills=("audit", "billing"),
        ),
    )


def test_the_run_says_what_it_spent_and_what_it_did_not_and_why() -> None:
    savings = Savings.of(record())
    assert savings.as_dict() == {
        "runs_made": 1,
        "spent_usd": 0.5,  # the replayed run's recorded $0.25 was not paid again
        "stopped_early": 1,
        "stopped_early_by_skill": {"greet": 1},
        "unchanged_skills": ["audit", "billing"],
        "unchanged_since": "main (01234567)",
        "replayed": 1,
        "replayed_usd": 0.25,
        "spent_note": LISTED,  # the fresh run's source; the replayed one's is not new spend
        "note": "replayed_usd is their recorded cost, paid when they were recorded and not again",
    }
    lines = summary_lines(record(), PASSED)
    assert f"Spent: 1 run(s) made, $0.5000 new spend ({LISTED})" in lines
    assert "  2 skill(s) not run: unchanged since main (01234567) (audit, billing)" in lines
    assert (
        "  1 outcome(s) replayed from cassettes: $0.2500, their recorded cost, paid when they "
        "were recorded and not again"
    ) in lines
    markdown = render_markdown(record(), PASSED)
    assert "### Spent and not spent" in markdown
    assert "- 1 run(s) not spent: stopped early" in markdown
    assert report_dict(record(), PASSED)["summary"]["not_spent"]["replayed"] == 1


def test_a_full_run_says_nothing_of_savings() -> None:
    plain = RunRecord(outcomes=[outcome("fresh", cost=0.5)])
    assert Savings.of(plain).lines() == []
    assert not any(line.startswith("Spent:") for line in summary_lines(plain, PASSED))


@dataclasses.dataclass
class Reused(Outcome):
    """An outcome as outcome reuse will make it: a replay from an earlier run's record."""

    reused_from: str | None = None


def test_an_outcome_reused_by_content_counts_as_replayed_for_now() -> None:
    fresh = Reused(skill_name="greet", case_name="c", runner="fake", status="passed")
    assert not not_paid_again(fresh)
    assert not_paid_again(dataclasses.replace(fresh, reused_from="main, 2026-12-04"))


def test_a_thousand_skills_do_not_flood_the_console() -> None:
    from pytest_skill_lens.gate.judging import judge_record
    from pytest_skill_lens.gate.record import GateSettings, RunSettings

    gate = GateSettings(min_pass_rate=0.0)
    outcomes = [
        Outcome(skill_name=f"s{i:04}", case_name="c", runner="fake", status="passed", order=i)
        for i in range(1000)
    ]
    stopped = [{"skill_name": f"s{i:04}", "case_name": "c"} for i in range(1000)]
    run = RunSettings(gate=gate, repeat=5, repeat_auto=True)
    record, gate_result = judge_record(
        RunRecord(outcomes=outcomes, stopped_early=stopped, run=run), gate
    )
    lines = summary_lines(record, gate_result)
    assert len(lines) < 60
    assert any("and 990 more skill(s)" in line for line in lines)
    assert any(
        "and 980 more question(s): see sequential in the JSON report" in line for line in lines
    )
    assert len(report_dict(record, gate_result)["sequential"]["questions"]) == 1000
