"""An item's outcome and JUnit properties on their way from an xdist worker.

pytest-xdist sends every report as plain data through execnet's serialiser. The outcome
travels once per item, packed into one JSON text (:func:`packed_outcome`: one object for
that pure-Python serialiser instead of dozens), with the report that carries it (the
call report, or a failed setup's), and without what
the controller can tell otherwise: the fields that hold their default; the node id,
the skill, case and runner names and the status where the report itself says them
(its node id, its location's label, its outcome); a score that holds trivially
(``no budget``: passed, 1.0, no checks) as its evaluator and detail; a score that is
exactly what its checks make (:func:`score_from_checks`) as its evaluator and checks.
The worker leaves a field out only where reading it back gives the same value, so an
unusual name travels whole. The controller rebuilds the outcome once, as the report
arrives. The case's ``user_properties`` (teardown report) are
``case_properties(outcome)``, all of which the controller already has from that
outcome: they are left out of the teardown report and rebuilt from it on arrival, so
``--junitxml`` reads exactly what it reads in a run without xdist.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, NamedTuple

from ..labels import names_in_label
from ..perform.outcome import Outcome, tool_calls_data
from ..report.junit_properties import case_properties
from ..score.check import CheckResult, Score, held_trivially, score_from_checks

_OUTCOME_FIELD = "skill_lens_outcome"
_OWN_PROPERTIES = "skill_lens_own_properties"  # how many trailing properties are ours


class ReportFacts(NamedTuple):
    """What a report says itself, so its outcome need not repeat it."""

    nodeid: str
    label: str  # its location's label: "<skill> :: <case> (<runner>[, ...])"
    word: str  # pytest's outcome of the report: passed, failed, skipped

    @classmethod
    def of_data(cls, data: dict[str, Any]) -> ReportFacts:
        """The facts of a report serialised as ``data``."""
        label = _label(data.get("location"))
        return cls(str(data.get("nodeid", "")), label, str(data.get("outcome", "")))

    @classmethod
    def of_report(cls, report: Any) -> ReportFacts:
        label = _label(getattr(report, "location", None))
        return cls(str(report.nodeid), label, str(getattr(report, "outcome", "")))


def _label(location: object) -> str:
    """The label of a report's ``(path, line, label)`` location; "" for anything else."""
    return str(location[2]) if isinstance(location, list | tuple) and len(location) == 3 else ""


def _defaults(cls: type) -> dict[str, object]:
    return {
        f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING
    }


_SCORE_DEFAULTS = _defaults(Score)
_REQUIRED = object()  # what no value of a field without a default equals


def _left_out_at(f: dataclasses.Field[Any]) -> object:
    """The value of an outcome's field that is not sent: its default, or the empty
    sequence (scores, tool calls, hooks). A field without a default is always sent,
    and so is the node id: the report's stands in for a missing one."""
    if f.name == "nodeid" or (
        f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ):
        return _REQUIRED
    if f.default is dataclasses.MISSING:
        return f.default_factory()  # type: ignore[operator]  # it has one: checked above
    return f.default


_LEFT_OUT_AT = tuple((f.name, _left_out_at(f)) for f in dataclasses.fields(Outcome))
_NAMES = ("skill_name", "case_name", "runner")  # what a case item's label names


_TRIVIAL = ("evaluator", "passed", "score", "detail")  # the keys of a trivially held score


def compact_outcome(outcome: Outcome, report: ReportFacts) -> dict[str, Any]:
    """The outcome as plain data for ``report``, leaving out what the controller can
    tell from the report (:func:`outcome_from_wire` puts it back)."""
    data: dict[str, Any] = {}
    for name, left_out_at in _LEFT_OUT_AT:
        value = getattr(outcome, name)
        # By type too: 0 must not stand in for a False default, nor 0 for 0.0.
        if type(value) is not type(left_out_at) or value != left_out_at:
            data[name] = value
    if data.get("nodeid") == report.nodeid:
        del data["nodeid"]
    if names_in_label(report.label) == (outcome.skill_name, outcome.case_name, outcome.runner):
        for name in _NAMES:
            del data[name]
    if outcome.status == report.word:
        del data["status"]
    if "scores" in data:
        data["scores"] = [_compact_score(score) for score in outcome.scores]
    if "tool_calls" in data:
        data["tool_calls"] = tool_calls_data(outcome.tool_calls)
    if "hooks" in data:
        data["hooks"] = list(outcome.hooks)
    return data


def _compact_score(score: Score) -> dict[str, Any] | list[Any] | str:
    """``score`` in its shortest wire form."""
    checks = list(score.checks)
    if checks and score == score_from_checks(score.evaluator, checks, ""):
        return [score.evaluator, [_compact_check(c) for c in checks]]
    data = score.to_dict()
    _drop_defaults(data, _SCORE_DEFAULTS)
    if data["checks"] == []:  # Score.from_dict reads a missing list as ()
        del data["checks"]
    if tuple(data) == _TRIVIAL and data["passed"] is True and data["score"] == 1.0:
        if data["detail"] == _nothing_for(data["evaluator"]):
            return score.evaluator  # "no budget", as every case without one holds
        return [data["evaluator"], data["detail"]]
    return data


def _compact_check(check: CheckResult) -> list[Any]:
    """``[id, passed, evidence]``, and ``false`` after them for a check not evaluated."""
    if check.evaluated:
        return [check.id, check.passed, check.evidence]
    return [check.id, check.passed, check.evidence, False]


def _nothing_for(evaluator: str) -> str:
    """The usual detail of an evaluator with nothing to check (``no trajectory``)."""
    return f"no {evaluator}"


def packed_outcome(outcome: Outcome, report: ReportFacts) -> str:
    """:func:`compact_outcome` as one JSON text, as a worker sends it: execnet's
    serialiser is pure Python, a call per object, where json's is C."""
    return json.dumps(compact_outcome(outcome, report), separators=(",", ":"))


def wire_data(value: object) -> dict[str, Any] | None:
    """The compact outcome a serialised report carries, packed or as plain data."""
    if isinstance(value, str):
        value = json.loads(value)
    return value if isinstance(value, dict) else None


def outcome_from_wire(data: dict[str, Any], report: ReportFacts) -> Outcome:
    """The outcome :func:`compact_outcome` sent with ``report``."""
    values: dict[str, Any] = {"nodeid": report.nodeid, "status": report.word}
    named = names_in_label(report.label)
    if named is not None:
        values.update(zip(_NAMES, named, strict=True))
    values.update(data)
    scores = values.pop("scores", ())
    outcome = Outcome.from_dict(values)
    outcome.scores = [_score_from_wire(score) for score in scores]
    return outcome


def _score_from_wire(score: Any) -> Score:
    if isinstance(score, str):
        return held_trivially(score, _nothing_for(score))
    if isinstance(score, list):
        evaluator, detail = score
        if isinstance(detail, list):  # its checks
            checks = [CheckResult(*check) for check in detail]
            return score_from_checks(evaluator, checks, "")
        return held_trivially(evaluator, detail)
    return Score.from_dict(score)


def _drop_defaults(data: dict[str, Any], defaults: dict[str, object]) -> None:
    for name, default in defaults.items():
        value = data[name]
        # By type too: 0 must not stand in for a False default, nor 0 for 0.0.
        if type(value) is type(default) and value == default:
            del data[name]


def leave_out_own_properties(data: dict[str, Any], outcome: Outcome) -> None:
    """Leave the case's own properties out of its serialised teardown report.

    Only when they are its last properties exactly as the outcome gives them, so what
    another plugin or fixture added is sent as it is.
    """
    ours = [list(pair) for pair in case_properties(outcome)]
    properties = data.get("user_properties")
    if not isinstance(properties, list) or not ours or len(properties) < len(ours):
        return
    if [list(pair) for pair in properties[-len(ours) :]] == ours:
        data["user_properties"] = properties[: -len(ours)]
        data[_OWN_PROPERTIES] = len(ours)


def restore_properties(data: dict[str, Any], report: Any, received: dict[str, Outcome]) -> None:
    """On the controller: rebuild an arriving outcome onto its report, and give its
    teardown report back the properties its worker left out."""
    nodeid = data.get("nodeid")
    if not isinstance(nodeid, str):
        return
    outcome = wire_data(data.get(_OUTCOME_FIELD))
    if outcome is not None:
        # Rebuilt once, here: every hook after this reads the object.
        facts = ReportFacts.of_data(data)
        received[nodeid] = report.skill_lens_outcome = outcome_from_wire(outcome, facts)
        return
    count = data.get(_OWN_PROPERTIES)
    if data.get("when") == "teardown" and isinstance(count, int):
        known = received.pop(nodeid, None)
        if known is not None:
            report.user_properties = [*report.user_properties, *case_properties(known)]
