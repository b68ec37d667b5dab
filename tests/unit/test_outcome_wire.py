"""An outcome and its JUnit properties, as an xdist worker sends them to the controller."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.plugin.outcome_wire import (
    compact_outcome,
    leave_out_own_properties,
    outcome_from_wire,
    restore_properties,
)
from pytest_skill_lens.report.junit_properties import case_properties
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score

PLAIN = Outcome(skill_name="s", case_name="c", runner="fake", status="passed")
BUSY = Outcome(
    skill_name="s",
    case_name="c",
    runner="fake",
    status="failed",
    arm="baseline",
    repeat_index=2,
    scores=[
        Score(evaluator="budget", passed=True, score=1.0, detail="no budget"),
        Score(
            evaluator="assertion",
            passed=False,
            score=0.0,
            detail="0/1 checks held",
            checks=(CheckResult(id="contains[0]", passed=False, evidence="not found"),),
            cost_usd=0.0,
        ),
    ],
    tokens=0,  # a default, kept as the default
    latency_ms=0,  # an int where the default is 0.0: must come back as the int
    skill_triggered=False,
    tool_calls=[ToolCall(name="read_file", arguments={"path": "a"})],
    nodeid="skills/s/SKILL.md::c[fake]",
)


def test_a_compact_outcome_reads_back_as_the_same_outcome() -> None:
    for outcome in (PLAIN, BUSY):
        assert (
            outcome_from_wire(compact_outcome(outcome, outcome.nodeid), outcome.nodeid) == outcome
        )
    data = compact_outcome(BUSY, BUSY.nodeid)
    assert data["latency_ms"] == 0 and type(data["latency_ms"]) is int
    assert data["skill_triggered"] is False
    # Defaults are not sent at all, nor the report's own node id.
    assert set(compact_outcome(PLAIN, "")) == {"skill_name", "case_name", "runner", "status"}
    assert "nodeid" not in data
    assert len(str(compact_outcome(PLAIN, ""))) < len(str(PLAIN.to_dict())) / 4


def test_a_trivially_held_score_travels_as_its_evaluator_and_detail() -> None:
    data = compact_outcome(BUSY, BUSY.nodeid)
    assert data["scores"][0] == ["budget", "no budget"]
    assert isinstance(data["scores"][1], dict)  # a score with checks travels whole
    # A passed score that is not trivial (a cost, a score below 1) travels whole too.
    for score in (
        Score(evaluator="judge", passed=True, score=1.0, detail="ok", cost_usd=0.01),
        Score(evaluator="judge", passed=True, score=0.9, detail="ok"),
        Score(evaluator="x", passed=True, score=1.0, detail="ok", errored=True),
    ):
        outcome = Outcome(
            skill_name="s", case_name="c", runner="r", status="passed", scores=[score]
        )
        sent = compact_outcome(outcome, "")
        assert isinstance(sent["scores"][0], dict)
        assert outcome_from_wire(sent, "") == outcome


def test_an_outcome_of_another_node_keeps_its_node_id() -> None:
    sent = compact_outcome(BUSY, "elsewhere::x")
    assert sent["nodeid"] == BUSY.nodeid
    assert outcome_from_wire(sent, "elsewhere::x") == BUSY


def _teardown(properties: list[Any]) -> dict[str, Any]:
    return {"nodeid": BUSY.nodeid, "when": "teardown", "user_properties": properties}


def test_the_cases_own_properties_are_rebuilt_on_the_controller() -> None:
    foreign = ("ticket", "T-1")  # a property another plugin added first
    data = _teardown([foreign, *case_properties(BUSY)])
    leave_out_own_properties(data, BUSY)
    assert data["user_properties"] == [foreign]
    received: dict[str, Outcome] = {}
    restore_properties(
        {"nodeid": BUSY.nodeid, "skill_lens_outcome": compact_outcome(BUSY, BUSY.nodeid)},
        arrived := SimpleNamespace(user_properties=[]),
        received,
    )
    assert arrived.skill_lens_outcome == BUSY  # rebuilt once, onto the report
    report = SimpleNamespace(user_properties=list(data["user_properties"]))
    restore_properties(data, report, received)
    assert report.user_properties == [foreign, *case_properties(BUSY)]
    assert received == {}


def test_properties_that_are_not_exactly_the_cases_are_sent_as_they_are() -> None:
    changed = [*case_properties(BUSY)[:-1], ("latency_ms", 99)]
    data = _teardown(list(changed))
    leave_out_own_properties(data, BUSY)
    assert data["user_properties"] == changed
    report = SimpleNamespace(user_properties=list(changed))
    restore_properties(data, report, {BUSY.nodeid: BUSY})
    assert report.user_properties == changed  # nothing added twice
