"""What the reports and the spend ceiling make of replayed outcomes (pure functions)."""

from __future__ import annotations

from datetime import date
from typing import Any

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.gate.spend import spend_ceiling, spend_of, unpriced_note
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_read import read_report
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.report.junit_properties import case_properties
from pytest_skill_lens.report.replay_lines import ReplayShare, replay_word
from pytest_skill_lens.report.terminal import summary_lines
from pytest_skill_lens.score.check import Score

JUDGED = Score("judge", True, 1.0, "ok", cost_usd=0.25)


def outcome(**fields: Any) -> Outcome:
    values: dict[str, Any] = {
        "skill_name": "greet",
        "case_name": "c",
        "runner": "pydantic-ai",
        "status": "passed",
        "cost_usd": 1.0,
        "retry_cost_usd": 0.5,
        "scores": [JUDGED],
    }
    return Outcome(**{**values, **fields})


REPLAYED = {
    "cassette": "/s/evals/cassettes/greet/c.json",
    "replayed": True,
    "replayed_calls": 2,
    "replayed_usd": 1.75,
    "recorded_at": "2026-01-20",
}


def test_a_replayed_outcome_is_no_new_spend_and_never_blinds_the_ceiling() -> None:
    fresh = outcome()
    replayed = outcome(**REPLAYED, cost_note="not priced")
    partly = outcome(cassette="x", replayed_calls=1, replayed_usd=1.5)  # the run, not the verdict

    assert spend_of(fresh) == 1.75
    assert spend_of(replayed) == 0.0
    assert spend_of(partly) == 0.25  # only the verdict was asked for anew
    assert unpriced_note(replayed) is None
    ceiling = spend_ceiling([fresh, replayed, partly], 10.0)
    assert ceiling is not None and ceiling.spent_usd == 2.0 and ceiling.unpriced is None


def test_the_summary_counts_replays_and_says_how_old_the_oldest_is() -> None:
    record = RunRecord(
        outcomes=[
            outcome(**REPLAYED),
            outcome(**{**REPLAYED, "recorded_at": "2026-01-30"}),
            outcome(cassette="x", replayed_calls=1, replayed_usd=1.5, recorded_at="2026-01-31"),
            outcome(cassette="y"),  # recorded in this session
        ]
    )
    share = ReplayShare.of(record)

    assert share.line(4, today=date(2026, 2, 1)) == (
        "Replayed: 2 of 4 outcome(s) (1 more partly) from cassettes, the oldest recorded "
        "2026-01-20 (12 days ago); their output, latency and spend are the recording's "
        "(none of it new spend), scored by the checks as they are now"
    )
    assert share.line(4, today=date(2026, 1, 20)) is not None
    assert "(today)" in (share.line(4, today=date(2026, 1, 20)) or "")
    assert share.as_dict(4) == {
        "replayed": 2,
        "partly_replayed": 1,
        "recorded": 1,
        "of": 4,
        "oldest_recorded_at": "2026-01-20",
        "replayed_usd": 1.75 + 1.75 + 1.5,
        "note": "replayed outcomes: their output, latency and spend are the recording's "
        "(none of it new spend), scored by the checks as they are now",
    }
    assert [replay_word(o) for o in record.outcomes] == [
        "replayed",
        "replayed",
        "partly replayed",
        None,
    ]
    assert ReplayShare.of(RunRecord(outcomes=[outcome()])).as_dict(1) is None


def test_the_console_summary_and_junit_say_replayed() -> None:
    record = RunRecord(outcomes=[outcome(**REPLAYED), outcome(cassette_note="disk full")])
    lines = summary_lines(record, GateResult(True, 0))
    assert any(line.startswith("Replayed: 1 of 2 outcome(s) from cassettes") for line in lines)
    assert "Cassette not written: disk full" in lines
    properties = dict(case_properties(outcome(**REPLAYED)))
    assert properties["replayed"] is True
    assert properties["cassette"] == REPLAYED["cassette"]
    assert properties["recorded_at"] == "2026-01-20"
    assert "replayed" not in dict(case_properties(outcome()))  # no cassette, no properties


def test_a_merge_reads_the_replay_fields_back() -> None:
    record = RunRecord(outcomes=[outcome(**REPLAYED), outcome()])

    (replayed, fresh) = read_report(render_json(record, GateResult(True, 0))).outcomes

    assert (replayed.replayed, replayed.replayed_usd, replayed.recorded_at) == (
        True,
        1.75,
        "2026-01-20",
    )
    assert replayed.cassette == REPLAYED["cassette"] and replayed.replayed_calls == 2
    assert (fresh.replayed, fresh.cassette) == (False, None)
