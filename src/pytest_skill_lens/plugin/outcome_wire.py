"""An item's outcome and JUnit properties on their way from an xdist worker.

pytest-xdist sends every report as JSON. The outcome travels once per item, with
the report that carries it (the call report, or a failed setup's), and without the
fields that hold their default or repeat the report's node id; a score that holds
trivially (``no budget``: passed, 1.0, no checks) travels as its evaluator and detail.
The controller rebuilds the outcome once, as the report arrives. The case's
``user_properties`` (teardown report) are ``case_properties(outcome)``, all of which the
controller already has from that outcome: they are left out of the teardown report and
rebuilt from it on arrival, so ``--junitxml`` reads exactly what it reads in a run
without xdist.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..perform.outcome import Outcome
from ..report.junit_properties import case_properties
from ..score.check import Score

_OUTCOME_FIELD = "skill_lens_outcome"
_OWN_PROPERTIES = "skill_lens_own_properties"  # how many trailing properties are ours


def _defaults(cls: type) -> dict[str, object]:
    return {
        f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING
    }


_DEFAULTS = _defaults(Outcome)
_SCORE_DEFAULTS = _defaults(Score)
_EMPTY_LISTS = frozenset(f.name for f in dataclasses.fields(Outcome) if f.default_factory is list)


_TRIVIAL = ("evaluator", "passed", "score", "detail")  # the keys of a trivially held score


def compact_outcome(outcome: Outcome, nodeid: str) -> dict[str, Any]:
    """The outcome as plain data for the report of ``nodeid``, leaving out what the
    controller knows (:func:`outcome_from_wire` puts it back)."""
    data = outcome.to_dict()
    _drop_defaults(data, _DEFAULTS)
    if data.get("nodeid") == nodeid:
        del data["nodeid"]
    for name in _EMPTY_LISTS:
        if data[name] == []:
            del data[name]
    if "scores" in data:
        data["scores"] = [_compact_score(score) for score in data["scores"]]
    return data


def _compact_score(score: dict[str, Any]) -> dict[str, Any] | list[str]:
    _drop_defaults(score, _SCORE_DEFAULTS)
    if score["checks"] == []:  # Score.from_dict reads a missing list as ()
        del score["checks"]
    if tuple(score) == _TRIVIAL and score["passed"] is True and score["score"] == 1.0:
        return [score["evaluator"], score["detail"]]
    return score


def outcome_from_wire(data: dict[str, Any], nodeid: str) -> Outcome:
    """The outcome :func:`compact_outcome` sent with the report of ``nodeid``."""
    values = {"nodeid": nodeid, **data}
    if "scores" in data:
        values["scores"] = [_score_from_wire(score) for score in data["scores"]]
    return Outcome.from_dict(values)


def _score_from_wire(score: Any) -> Any:
    if isinstance(score, list):
        evaluator, detail = score
        return {"evaluator": evaluator, "passed": True, "score": 1.0, "detail": detail}
    return score


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
    outcome = data.get(_OUTCOME_FIELD)
    if isinstance(outcome, dict):
        # Rebuilt once, here: every hook after this reads the object.
        received[nodeid] = report.skill_lens_outcome = outcome_from_wire(outcome, nodeid)
        return
    count = data.get(_OWN_PROPERTIES)
    if data.get("when") == "teardown" and isinstance(count, int):
        known = received.pop(nodeid, None)
        if known is not None:
            report.user_properties = [*report.user_properties, *case_properties(known)]
