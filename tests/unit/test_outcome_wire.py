"""An outcome and its JUnit properties, as an xdist worker sends them to the controller."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.plugin.outcome_wire import (
    ReportFacts,
    compact_outcome,
    leave_out_own_properties,
    outcome_from_wire,
    packed_outcome,
    restore_properties,
    wire_data,
)
from pytest_skill_lens.report.junit_properties import case_properties
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score, score_from_checks

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
            detail="0/1 checks held; failed: contains[0]",
            checks=(CheckResult(id="contains[0]", passed=False, evidence="not found"),),
            cost_usd=0.0,
        ),
    ],
    tokens=0,  # a default, kept as the default
    latency_ms=0,  # an int where the default is 0.0: must come back as the int
    skill_triggered=False,
    tool_calls=(ToolCall(name="read_file", arguments={"path": "a"}),),
    nodeid="skills/s/SKILL.md::c[fake]",
)


# What a report carries that its outcome need not repeat: node id, label, outcome.
PLAIN_REPORT = ReportFacts("", "s :: c (fake)", "passed")
BUSY_REPORT = ReportFacts(BUSY.nodeid, "s :: c (fake, baseline, run 3/3)", "passed")
NOWHERE = ReportFacts("", "", "")


def test_a_compact_outcome_reads_back_as_the_same_outcome() -> None:
    for outcome, report in ((PLAIN, NOWHERE), (BUSY, BUSY_REPORT), (BUSY, NOWHERE)):
        assert outcome_from_wire(compact_outcome(outcome, report), report) == outcome
    data = compact_outcome(BUSY, BUSY_REPORT)
    assert data["latency_ms"] == 0 and type(data["latency_ms"]) is int
    assert data["skill_triggered"] is False
    # Defaults are not sent at all, nor the report's own node id.
    assert set(compact_outcome(PLAIN, NOWHERE)) == {"skill_name", "case_name", "runner", "status"}
    assert "nodeid" not in data
    assert len(str(compact_outcome(PLAIN, NOWHERE))) < len(str(dataclasses.asdict(PLAIN))) / 4


def test_what_the_report_says_itself_is_not_repeated() -> None:
    report = ReportFacts("", "s :: c (fake)", "passed")
    assert compact_outcome(PLAIN, report) == {}
    assert outcome_from_wire({}, report) == PLAIN
    # The failed verdict of a baseline whose report passed travels; its names do not.
    data = compact_outcome(BUSY, BUSY_REPORT)
    assert data["status"] == "failed"
    assert not {"skill_name", "case_name", "runner"} & set(data)


def test_names_the_label_does_not_give_back_exactly_travel() -> None:
    for skill, case, runner in (
        ("a :: b", "c", "fake"),  # the label's separator inside a name
        ("s", "case (draft)", "fake"),
        ("s", "c", "cli:my, tool"),
    ):
        outcome = Outcome(skill_name=skill, case_name=case, runner=runner, status="passed")
        report = ReportFacts("", f"{skill} :: {case} ({runner})", "passed")
        data = compact_outcome(outcome, report)
        assert outcome_from_wire(data, report) == outcome
    # A label that names another case (another plugin's location) is no source.
    other = ReportFacts("", "t :: d (fake)", "passed")
    assert compact_outcome(PLAIN, other)["skill_name"] == "s"
    assert outcome_from_wire(compact_outcome(PLAIN, other), other) == PLAIN


def test_a_score_travels_as_its_checks_when_they_make_it() -> None:
    data = compact_outcome(BUSY, BUSY_REPORT)
    assert data["scores"][0] == "budget"  # trivially held as usual: the evaluator alone
    assert data["scores"][1] == ["assertion", [["contains[0]", False, "not found"]]]
    checks = BUSY.scores[1].checks
    for score in (
        # Scores with checks that their checks alone do not make travel whole,
        Score(evaluator="judge", passed=True, score=0.8, detail="ok", checks=checks),
        Score(evaluator="assertion", passed=False, score=0.0, detail="0/1 held", checks=checks),
        Score("assertion", False, 0.0, "0/1 checks held; failed: contains[0]", checks, True),
        # and so does a passed score that is not trivial (a cost, a score below 1).
        Score(evaluator="judge", passed=True, score=1.0, detail="ok", cost_usd=0.01),
        Score(evaluator="judge", passed=True, score=0.9, detail="ok"),
        Score(evaluator="x", passed=True, score=1.0, detail="ok", errored=True),
    ):
        outcome = Outcome(
            skill_name="s", case_name="c", runner="r", status="passed", scores=[score]
        )
        sent = compact_outcome(outcome, NOWHERE)
        assert isinstance(sent["scores"][0], dict)
        assert outcome_from_wire(sent, NOWHERE) == outcome


def test_a_check_not_evaluated_says_so_on_the_wire() -> None:
    checks = (CheckResult("regex[0]", False, "not evaluated: out of time", evaluated=False),)
    outcome = Outcome(
        "s", "c", "r", "failed", scores=[score_from_checks("assertion", [*checks], "")]
    )
    sent = compact_outcome(outcome, NOWHERE)
    assert sent["scores"] == [
        ["assertion", [["regex[0]", False, "not evaluated: out of time", False]]]
    ]
    assert outcome_from_wire(json.loads(json.dumps(sent)), NOWHERE) == outcome


def test_a_trivially_held_score_with_another_detail_keeps_it() -> None:
    for detail, sent in (
        ("no budget", "budget"),
        ("no budget limits", ["budget", "no budget limits"]),
    ):
        outcome = dataclasses.replace(PLAIN, scores=[Score("budget", True, 1.0, detail)])
        data = compact_outcome(outcome, PLAIN_REPORT)
        assert data["scores"] == [sent]
        assert outcome_from_wire(data, PLAIN_REPORT) == outcome
    # Not held (or not trivially so): the whole score travels, whatever its detail.
    for score in (
        Score("budget", False, 0.0, "no budget"),
        Score("budget", True, 0.5, "no budget"),
    ):
        outcome = dataclasses.replace(PLAIN, scores=[score])
        data = compact_outcome(outcome, PLAIN_REPORT)
        assert isinstance(data["scores"][0], dict)
        assert outcome_from_wire(data, PLAIN_REPORT) == outcome


def test_an_outcome_of_another_node_keeps_its_node_id() -> None:
    elsewhere = BUSY_REPORT._replace(nodeid="elsewhere::x")
    sent = compact_outcome(BUSY, elsewhere)
    assert sent["nodeid"] == BUSY.nodeid
    assert outcome_from_wire(sent, elsewhere) == BUSY


def test_a_worker_packs_the_compact_outcome_into_one_json_text() -> None:
    packed = packed_outcome(BUSY, BUSY_REPORT)
    assert isinstance(packed, str)  # one object for execnet's serialiser, not dozens
    assert json.loads(packed) == compact_outcome(BUSY, BUSY_REPORT)
    assert wire_data(packed) == wire_data(compact_outcome(BUSY, BUSY_REPORT))
    assert wire_data(None) is None and wire_data(["not", "an", "outcome"]) is None
    received: dict[str, Outcome] = {}
    data = {"nodeid": BUSY.nodeid, "location": ["p", 0, BUSY_REPORT.label], "outcome": "passed"}
    arrived = SimpleNamespace()
    restore_properties({**data, "skill_lens_outcome": packed}, arrived, received)
    assert arrived.skill_lens_outcome == BUSY
    assert received == {BUSY.nodeid: BUSY}


def _teardown(properties: list[Any]) -> dict[str, Any]:
    return {"nodeid": BUSY.nodeid, "when": "teardown", "user_properties": properties}


def test_the_cases_own_properties_are_rebuilt_on_the_controller() -> None:
    foreign = ("ticket", "T-1")  # a property another plugin added first
    data = _teardown([foreign, *case_properties(BUSY)])
    leave_out_own_properties(data, BUSY)
    assert data["user_properties"] == [foreign]
    received: dict[str, Outcome] = {}
    restore_properties(
        {"nodeid": BUSY.nodeid, "skill_lens_outcome": compact_outcome(BUSY, NOWHERE)},
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


_TEXT = st.text(max_size=12)
_FIGURE = st.one_of(st.integers(0, 5), st.floats(0, 5, allow_nan=False))  # int or float
_CHECKS = st.lists(
    st.builds(CheckResult, id=_TEXT, passed=st.booleans(), evidence=_TEXT, evaluated=st.booleans()),
    max_size=3,
).map(tuple)
_SCORES = st.one_of(
    st.builds(
        lambda name, checks: score_from_checks(name, list(checks), "no " + name),
        st.sampled_from(["assertion", "trajectory", "budget"]),
        _CHECKS,
    ),
    st.builds(
        Score,
        evaluator=_TEXT,
        passed=st.booleans(),
        score=_FIGURE,
        detail=_TEXT,
        checks=_CHECKS,
        errored=st.booleans(),
        cost_usd=_FIGURE,
    ),
)
_OUTCOMES = st.builds(
    Outcome,
    skill_name=_TEXT,
    case_name=_TEXT,
    runner=st.sampled_from(["fake", "cli:x, y", ""]),
    status=st.sampled_from(["passed", "failed", "errored"]),
    arm=st.sampled_from(["candidate", "baseline"]),
    repeat_index=st.integers(0, 3),
    scores=st.lists(_SCORES, max_size=3),
    output=_TEXT,
    error=st.none() | _TEXT,
    tokens=st.integers(0, 3),
    latency_ms=_FIGURE,
    cost_usd=_FIGURE,
    skill_triggered=st.none() | st.booleans(),
    skill_triggered_by_session=st.none() | st.lists(st.none() | st.booleans(), max_size=2),
    tool_calls=st.lists(
        st.builds(ToolCall, name=_TEXT, arguments=st.dictionaries(_TEXT, _TEXT, max_size=2)),
        max_size=2,
    ).map(tuple),
    hooks=st.lists(st.dictionaries(_TEXT, _TEXT, max_size=2), max_size=2).map(tuple),
    nodeid=_TEXT,
    replayed=st.booleans(),
)


def _typed(value: Outcome | Score) -> list[tuple[str, type, Any]]:
    # == alone reads 0 as 0.0 and False as 0: the wire must keep each value's type.
    values = [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
    return [(name, type(v), v) for name, v in values]


@given(_OUTCOMES, st.booleans(), st.booleans(), st.booleans())
def test_every_outcome_reads_back_exactly_whatever_its_report_says(
    outcome: Outcome, same_node: bool, same_label: bool, same_word: bool
) -> None:
    report = ReportFacts(
        outcome.nodeid if same_node else outcome.nodeid + "x",
        f"{outcome.skill_name} :: {outcome.case_name} ({outcome.runner})" if same_label else "",
        outcome.status if same_word else "skipped",
    )
    sent = compact_outcome(outcome, report)
    back = outcome_from_wire(json.loads(json.dumps(sent)), report)
    assert _typed(back) == _typed(outcome)
    assert [_typed(s) for s in back.scores] == [_typed(s) for s in outcome.scores]
