"""What the reports and the spend ceiling make of replayed outcomes (pure functions)."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.gate.spend import spend_ceiling, spend_of, unpriced_note
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_read import ReportError, read_report
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.report.junit_properties import case_properties
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.replay_lines import CassetteAccount, ReplayShare, replay_word
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


def recorded(
    case: str, action: str, directory: str = "/s/evals/cassettes/greet", **more: Any
) -> Outcome:
    return outcome(
        case_name=case, cassette=f"{directory}/{case}.json", cassette_action=action, **more
    )


def test_a_recording_run_counts_its_files_says_where_and_why_each_was_not_written() -> None:
    record = RunRecord(
        outcomes=[
            recorded("a", "written"),
            recorded("b", "kept", "/t/cassettes/other"),
            recorded("c", "not_written", status="errored", cassette_note="c: the case errored"),
            recorded("d", "not_written", cassette_note="d: its file 'big' is too large"),
        ]
    )

    lines = summary_lines(record, GateResult(False, 1, ("x",)))

    assert (
        "Cassettes: 1 written, 1 kept, 2 not written (1 errored, 1 could not be kept) in "
        "2 directories: /s/evals/cassettes/greet, /t/cassettes/other"
    ) in lines
    assert "Cassette not written: c: the case errored" in lines
    assert "Cassette not written: d: its file 'big' is too large" in lines
    markdown = render_markdown(record, GateResult(False, 1, ("x",)))
    assert "Cassettes: 1 written, 1 kept, 2 not written" in markdown
    said = json.loads(render_json(record, GateResult(False, 1, ("x",))))["summary"]["cassettes"]
    assert said == {
        "written": 1,
        "kept": 1,
        "not_written": 2,
        "directories": ["/s/evals/cassettes/greet", "/t/cassettes/other"],
        "not_written_cassettes": [
            {
                "cassette": "/s/evals/cassettes/greet/c.json",
                "status": "errored",
                "why": "c: the case errored",
            },
            {
                "cassette": "/s/evals/cassettes/greet/d.json",
                "status": "passed",
                "why": "d: its file 'big' is too large",
            },
        ],
    }


def test_many_unwritten_files_are_listed_in_the_json_and_counted_on_the_console() -> None:
    record = RunRecord(
        outcomes=[
            recorded(f"c{n}", "not_written", status="errored", cassette_note=f"c{n}: errored")
            for n in range(25)
        ]
    )
    lines = summary_lines(record, GateResult(False, 1, ("x",)))
    assert sum(line.startswith("Cassette not written: ") for line in lines) == 10
    assert "...and 15 more not written (the JSON report lists every one)" in lines
    said = json.loads(render_json(record, GateResult(False, 1, ("x",))))["summary"]["cassettes"]
    assert len(said["not_written_cassettes"]) == 25


def test_replaying_only_gives_no_account() -> None:
    record = RunRecord(outcomes=[outcome(**REPLAYED)])
    assert not any(
        line.startswith("Cassettes:") for line in summary_lines(record, GateResult(True, 0))
    )
    assert json.loads(render_json(record, GateResult(True, 0)))["summary"]["cassettes"] is None


def test_a_merge_reads_what_each_recording_did_and_counts_it_again() -> None:
    shards = [
        RunRecord(outcomes=[recorded("a", "written"), recorded("b", "kept")]),
        RunRecord(outcomes=[recorded("c", "not_written", status="errored", cassette_note="c")]),
    ]
    read = [read_report(render_json(s, GateResult(True, 0))).outcomes for s in shards]
    merged = RunRecord(outcomes=[o for outcomes in read for o in outcomes])

    assert [o.cassette_action for o in merged.outcomes] == ["written", "kept", "not_written"]
    account = CassetteAccount.of(merged)
    assert account is not None
    assert (account.written, account.kept, len(account.unwritten)) == (1, 1, 1)


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda r: r["outcomes"][0].update(cassette_action="lost"), "outcomes[0].cassette_action"),
        (lambda r: r["summary"]["cassettes"].update(kept=-1), "summary.cassettes.kept"),
        (
            lambda r: r["summary"]["cassettes"].update(directories=[1]),
            "summary.cassettes.directories",
        ),
    ],
)
def test_the_strict_reader_refuses_a_recording_account_it_cannot_trust(
    edit: Any, said: str
) -> None:
    data = json.loads(
        render_json(RunRecord(outcomes=[recorded("a", "written")]), GateResult(True, 0))
    )
    edit(data)
    with pytest.raises(ReportError) as refused:
        read_report(json.dumps(data))
    assert refused.value.message.startswith(said), refused.value.message
