"""auto:N's blocks of the JSON report: written, read back strictly, never believed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_skill_lens.gate.judging import judge_record
from pytest_skill_lens.gate.record import GateSettings, RunRecord, RunSettings
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_read import ReportError, read_report
from pytest_skill_lens.report.json_report import render_json

GATE = GateSettings(min_pass_rate=0.0, per_skill_min={"greet": 0.5})


def judged_report() -> dict[str, Any]:
    outcomes = [
        Outcome(
            skill_name="greet",
            case_name=case,
            runner="fake",
            status="failed",
            repeat_index=r,
            order=r * 10 + i,
            nodeid=f"greet::{case}-{r}",
        )
        for r in range(2)
        for i, case in enumerate("abcd")
    ]
    stopped = [
        {
            "skill_name": "greet",
            "case_name": case,
            "runner": "fake",
            "arm": "candidate",
            "repeat_index": 2,
            "nodeid": f"greet::{case}-2",
            "reason": "stopped early: decided fail after round 2 of 3 (betting test, alpha 0.05)",
        }
        for case in "abcd"
    ]
    run = RunSettings(gate=GATE, runners=("fake",), repeat=3, repeat_auto=True)
    record, gate = judge_record(RunRecord(outcomes=outcomes, stopped_early=stopped, run=run), GATE)
    data: dict[str, Any] = json.loads(render_json(record, gate))
    return data


def test_the_blocks_are_written_and_the_stopped_items_read_back() -> None:
    data = judged_report()
    (question, _share) = data["sequential"]["questions"]
    assert (question["verdict"], question["decided_at"]) == ("fail", 2)
    assert data["run"]["repeat_auto"] is True
    record = read_report(json.dumps(data))
    assert [e["case_name"] for e in record.stopped_early] == ["a", "b", "c", "d"]
    assert record.run is not None and record.run.repeat_auto and record.run.repeat == 3


def test_a_forged_decision_is_never_believed() -> None:
    data = judged_report()
    data["sequential"]["questions"][0]["verdict"] = "pass"  # a well-formed lie
    record = read_report(json.dumps(data))
    assert record.run is not None
    _, gate = judge_record(record, record.run.gate)  # what merge does: decide again
    assert gate.reasons[0].startswith("skill 'greet' pass rate is below the required 50%")


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (("stopped_early", 0, "repeat_index"), "x"),
        (("stopped_early", 0, "reason"), 5),
        (("sequential", "questions", 0, "verdict"), "maybe"),
        (("sequential", "questions", 0, "threshold"), 7.0),
        (("sequential", "questions", 0, "arm"), 5),
        (("summary", "not_spent", "stopped_early"), -1),
    ],
)
def test_an_impossible_value_is_refused(where: tuple[Any, ...], value: object) -> None:
    data = judged_report()
    *path, last = where
    node: Any = data
    for key in path:
        node = node[key]
    node[last] = value
    with pytest.raises(ReportError):
        read_report(json.dumps(data))
