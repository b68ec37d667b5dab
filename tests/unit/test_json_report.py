from __future__ import annotations

import json
from typing import Any

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score

GATE = GateResult(False, 1, ("1 case errored",))


def outcome(
    status: Status = "passed", skill: str = "greet", arm: Arm = "candidate", **fields: Any
) -> Outcome:
    return Outcome(skill_name=skill, case_name="c", runner="fake", status=status, arm=arm, **fields)


def load(record: RunRecord, gate: GateResult = GATE) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(render_json(record, gate))
    return data


def test_top_level_keys_in_order() -> None:
    assert list(load(RunRecord())) == [
        "summary",
        "skipped_skills",
        "tag_filtered_skills",
        "case_filtered_skills",
        "deselected_skills",
        "outcomes",
        "delta",
        "baseline_notes",
        "scripts",
        "script_notes",
        "products",
        "not_run",
        "spend_ceiling",
        "gate",
        "aborted",
        "aborted_reason",
        "baseline_sources",
        "skill_md_warnings",
        "portability",
        "multiplicity",
        "changed",
        "triggering",
        "stopped_early",
        "sequential",
        "arms",
        "run",
    ]


def test_empty_run_placeholders_and_gate() -> None:
    data = load(RunRecord(skipped_skills=["a"], deselected_skills=["b"]))
    assert data["skipped_skills"] == ["a"]
    assert data["deselected_skills"] == ["b"]
    assert data["tag_filtered_skills"] == data["case_filtered_skills"] == []
    assert data["delta"] is None and data["scripts"] is None and data["spend_ceiling"] is None
    assert data["baseline_notes"] == data["script_notes"] == data["products"] == []
    assert data["gate"] == {"passed": False, "exit_code": 1, "reasons": ["1 case errored"]}


def test_summary_counts_candidates_and_totals_both_arms() -> None:
    judge = Score("judge", True, 1.0, "ok", cost_usd=0.25)
    record = RunRecord(
        outcomes=[
            outcome(input_tokens=10, output_tokens=5, tokens=15, cost_usd=1.0, latency_ms=100.0),
            outcome("errored", retry_cost_usd=0.5, latency_ms=50.0, scores=[judge]),
            outcome("failed", skill="other"),
            outcome("errored", arm="baseline", tokens=100, cost_usd=2.0, latency_ms=1000.0),
            outcome("failed", arm="baseline", scores=[judge]),
        ],
        not_run=[{"skill_name": "greet", "case_name": "x", "runner": "fake"}, {"arm": "baseline"}],
    )
    assert load(record)["summary"] == {
        "total": 3,
        "passed": 1,
        "failed": 1,
        "errored": 1,
        "baseline_errored": 1,
        "pass_rate": 1 / 3,
        "pass_rate_by_skill": {"greet": 0.5, "other": 0.0},
        "total_tokens": 115,
        "total_cost_usd": 3.5,
        "total_latency_ms": 1150.0,
        "judge_cost_usd": 0.5,
        "not_run": 1,
        "skill_not_loaded": 0,
        # Each arm apart: 15 + 0 + 0 tokens and 1.0 + 0.5 (a retry) of cost, 0.25 of judging.
        "by_arm": {
            "candidate": {
                "tokens": 15,
                "cost_usd": 1.5,
                "cost_unpriced": False,
                "judge_cost_usd": 0.25,
                "latency_ms": 150.0,
            },
            "baseline": {
                "tokens": 100,
                "cost_usd": 2.0,
                "cost_unpriced": False,
                "judge_cost_usd": 0.25,
                "latency_ms": 1000.0,
            },
        },
        # The outcomes name runner fake but no model: not the fake runner's runs.
        "fake_outcomes": 0,
        "fake_note": None,
        "price_sources": [],  # no outcome said where a cost came from
        "judge_price_sources": [],
        "replay": None,  # no outcome had a cassette
        "unsandboxed_products": None,  # no product was named
        "cassettes": None,  # nothing was recorded
        "reuse": None,  # no reuse store
        "not_spent": {  # nothing was left out: every run was made and paid for
            "runs_made": 5,
            "spent_usd": 4.0,  # new spend of both arms, retries and judging included
            "stopped_early": 0,
            "stopped_early_by_skill": {},
            "unchanged_skills": [],
            "unchanged_since": None,
            "replayed": 0,
            "replayed_usd": 0.0,
            "spent_note": "no run said what it cost",
            "note": None,
            "reused": 0,
            "reused_usd": 0.0,
            "reused_from": None,
            "reused_commits": [],
        },
    }


def test_outcome_fields_in_order_with_additive_ones_last() -> None:
    check = CheckResult("contains[0]", False, "missing 'hi'")
    score = Score("assertions", False, 0.0, "0/1 checks held", (check,), cost_note=None)
    hook = {"stderr": "boom", "name": "Stop", "outcome": "error", "event": "Stop", "extra": 1}
    record = RunRecord(
        outcomes=[
            outcome(
                "failed",
                scores=[score],
                output="héllo",
                tokens=3,
                input_tokens=2,
                output_tokens=1,
                model="m",
                usage_note="estimated",
                hooks=(hook,),
                nodeid="skills/greet/SKILL.md::c[fake]",
                skill_triggered=True,
                tool_calls=(ToolCall("lookup", {"id": 1}),),
            )
        ]
    )
    text = render_json(record, GATE)
    assert "h\\u00e9llo" in text  # ASCII-escaped
    assert text.startswith('{\n  "summary": {\n    "total": 1,')  # indent=2
    [data] = json.loads(text)["outcomes"]
    assert data == {
        "skill_name": "greet",
        "case_name": "c",
        "runner": "fake",
        "status": "failed",
        "arm": "candidate",
        "repeat_index": 0,
        "scores": [
            {
                "evaluator": "assertions",
                "passed": False,
                "score": 0.0,
                "detail": "0/1 checks held",
                "checks": [{"id": "contains[0]", "passed": False, "evidence": "missing 'hi'"}],
                "errored": False,
                "cost_usd": 0.0,
                "cost_note": None,
                "price_source": None,
            }
        ],
        "output": "héllo",
        "error": None,
        "tokens": 3,
        "latency_ms": 0.0,
        "cost_usd": 0.0,
        "model": "m",
        "cost_note": None,
        "usage_note": "estimated",
        "stop_note": None,
        "retry_cost_usd": 0.0,
        "hooks": [
            {
                "name": "Stop",
                "event": "Stop",
                "outcome": "error",
                "exit_code": None,
                "stdout": None,
                "stderr": "boom",
                "extra": 1,
            }
        ],
        "workspace": None,
        "nodeid": "skills/greet/SKILL.md::c[fake]",
        "input_tokens": 2,
        "output_tokens": 1,
        "skill_triggered": True,
        "skill_triggered_by_session": None,
        "skill_loaded": None,
        "load_note": None,
        "tool_calls": [{"name": "lookup", "arguments": {"id": 1}}],
        "price_source": None,
        "cassette": None,
        "replayed": False,
        "replayed_calls": 0,
        "replayed_usd": 0.0,
        "recorded_at": None,
        "cassette_note": None,
        "cassette_action": None,
        "skills_triggered": None,
        "trigger_expected": None,
        "reused_from": None,
        "reuse_note": None,
        "baseline_kind": None,
    }
    # dict equality ignores order, so check the order on its own
    assert list(data) == [
        "skill_name", "case_name", "runner", "status", "arm", "repeat_index", "scores",
        "output", "error", "tokens", "latency_ms", "cost_usd", "model", "cost_note",
        "usage_note", "stop_note", "retry_cost_usd", "hooks", "workspace",
        "nodeid", "input_tokens", "output_tokens", "skill_triggered",
        "skill_triggered_by_session", "skill_loaded", "load_note", "tool_calls",
        "price_source", "cassette", "replayed", "replayed_calls", "replayed_usd", "recorded_at",
        "cassette_note", "cassette_action", "skills_triggered", "trigger_expected",
        "reused_from", "reuse_note", "baseline_kind",
    ]  # fmt: skip
    assert list(data["scores"][0]) == [
        "evaluator",
        "passed",
        "score",
        "detail",
        "checks",
        "errored",
        "cost_usd",
        "cost_note",
        "price_source",
    ]


def test_outcomes_keep_both_arms_in_recorded_order() -> None:
    record = RunRecord(outcomes=[outcome(arm="candidate"), outcome("failed", arm="baseline")])
    assert [(o["arm"], o["status"]) for o in load(record)["outcomes"]] == [
        ("candidate", "passed"),
        ("baseline", "failed"),
    ]


def test_not_run_entries_with_defaults_and_extras() -> None:
    record = RunRecord(
        not_run=[
            {"nodeid": "n", "skill_name": "greet", "case_name": "c", "runner": "fake"},
            # Recorded as text (RunRecord.not_run holds strings), reported as a number.
            {"skill_name": "greet", "arm": "baseline", "repeat_index": "2", "reason": "stopped"},
        ]
    )
    assert load(record)["not_run"] == [
        {
            "skill_name": "greet",
            "case_name": "c",
            "runner": "fake",
            "arm": "candidate",
            "repeat_index": 0,
            "nodeid": "n",
        },
        {
            "skill_name": "greet",
            "case_name": None,
            "runner": None,
            "arm": "baseline",
            "repeat_index": 2,
            "reason": "stopped",
        },
    ]
    assert list(load(record)["not_run"][0]) == [
        "skill_name",
        "case_name",
        "runner",
        "arm",
        "repeat_index",
        "nodeid",
    ]


def test_skill_not_loaded_counts_loaded_cases_that_ran_without_the_skill_only() -> None:
    record = RunRecord(
        outcomes=[
            outcome(skill_loaded=False),  # a loaded case the product never loaded
            outcome(skill_loaded=True),
            outcome(skill_loaded=False, arm="baseline"),
            # An offered negative control that left the skill alone: a measured verdict.
            outcome(skill_loaded=False, skill_triggered=False),
        ]
    )
    assert load(record)["summary"]["skill_not_loaded"] == 1
