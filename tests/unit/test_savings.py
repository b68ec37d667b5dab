"""What a run spent and did not spend, and why, as every report says it (report/savings.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from pytest_skill_lens.gate.changed_skills import ChangedSelection, ChangedSkill
from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_read import ReportError, read_report
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
        "reused": 0,  # none came from the reuse store
        "reused_usd": 0.0,
        "reused_from": None,
        "reused_commits": [],
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


ORIGIN = {
    "commit": "1a2b3c4d5e6f7a8b9c0d",
    "recorded_at": "2026-12-05T03:40:12Z",
    "item": {"skill": "greet", "case": "kept", "runner": "fake", "arm": "candidate", "repeat": 0},
    "entry": "ab" * 32,
}


def with_reused() -> RunRecord:
    reused = dataclasses.replace(
        outcome("kept", cost=0.125, replayed=True), arm="baseline", reused_from=ORIGIN
    )
    base = record()
    assert base.changed is not None  # a report reads back a full commit id only
    changed = dataclasses.replace(base.changed, commit="0123456789abcdef" * 2 + "01234567")
    return dataclasses.replace(base, outcomes=[*base.outcomes, reused], changed=changed)


def test_outcomes_reused_from_the_store_are_counted_apart_from_cassette_replays() -> None:
    savings = Savings.of(with_reused()).as_dict()
    assert savings["runs_made"] == 1
    assert (savings["replayed"], savings["replayed_usd"]) == (1, 0.25)  # cassettes only
    assert savings["reused"] == 1
    assert savings["reused_usd"] == 0.125
    assert savings["reused_from"] == "at commit 1a2b3c4d on 2026-12-05 03:40:12 UTC"
    assert savings["reused_commits"] == ["1a2b3c4d5e6f7a8b9c0d"]
    assert savings["note"] == (
        "replayed_usd and reused_usd are their recorded cost, paid when they were recorded "
        "and not again"
    )
    said = (
        "  1 outcome(s) reused from the store (recorded at commit 1a2b3c4d on 2026-12-05 "
        "03:40:12 UTC): $0.1250, their recorded cost, not paid again"
    )
    lines = summary_lines(with_reused(), PASSED)
    assert said in lines
    assert "  1 outcome(s) replayed from cassettes: $0.2500" in "\n".join(lines)
    assert f"- {said.strip()}" in render_markdown(with_reused(), PASSED)
    assert not_paid_again(with_reused().outcomes[-1])


def test_reused_outcomes_of_several_commits_name_the_oldest() -> None:
    later = {**ORIGIN, "commit": "ffff0000", "recorded_at": "2026-12-06T00:00:00Z"}
    base = with_reused()
    extra = dataclasses.replace(base.outcomes[-1], case_name="other", reused_from=later)
    savings = Savings.of(dataclasses.replace(base, outcomes=[*base.outcomes, extra]))
    assert savings.as_dict()["reused_from"] == (
        "at commit 1a2b3c4d on 2026-12-05 03:40:12 UTC (the oldest of 2 commits)"
    )


def test_a_report_with_reused_outcomes_reads_back_and_a_forged_count_is_refused() -> None:
    data = report_dict(dataclasses.replace(with_reused(), stopped_early=[]), PASSED)
    back = read_report(json.dumps(data))
    assert Savings.of(back).as_dict() == data["summary"]["not_spent"]
    for key, value in (("reused", -1), ("reused_usd", "free"), ("reused_commits", [3])):
        forged = json.loads(json.dumps(data))
        forged["summary"]["not_spent"][key] = value
        with pytest.raises(ReportError):
            read_report(json.dumps(forged))


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
