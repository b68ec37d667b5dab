"""The portability matrix in the JSON report (``portability``), and its strict reading back.

``portability`` is null for a run of one runner. A merge never reads it (it is a
function of the outcomes, computed again by ``gate/judging.py`` over every shard's), but
``html`` draws it as written, so :func:`check_matrix` holds every value to its kind.
"""

from __future__ import annotations

from typing import Any, get_args

from ..gate.intervals import Confidence
from ..gate.matrix import UNSCORED, Cell, Matrix, PairDifference, Pairing, RunnerRate, Verdict
from .delta_json import interval_dict
from .json_fields import RATE, SIGNED_RATE, Fields, ReportError, check_interval

_CELL_COUNTS = ("passed", "failed", "not_evaluated", "errored", "not_run")


def matrix_dict(matrix: Matrix | None) -> dict[str, Any] | None:
    if matrix is None:
        return None
    return {
        "arm": "candidate",
        "runners": [_runner(rate) for rate in matrix.runners],
        "pairing": matrix.pairing,
        "pairs": [_pair(pair) for pair in matrix.pairs],
        "cases": [
            {
                "skill_name": row.skill_name,
                "case_name": row.case_name,
                "divergent": row.divergent,
                "comparable": not row.unscored,
                "cells": [_cell(cell) for cell in row.cells],
            }
            for row in matrix.cases
        ],
        "divergent": [
            {
                "skill_name": row.skill_name,
                "case_name": row.case_name,
                "passed_in": list(row.passed_in),
                "failed_in": list(row.failed_in),
            }
            for row in matrix.divergent
        ],
        "not_comparable": [
            {
                "skill_name": row.skill_name,
                "case_name": row.case_name,
                "cells": [{"runner": c.runner, "verdict": c.verdict} for c in row.unscored],
            }
            for row in matrix.not_comparable
        ],
    }


def _runner(rate: RunnerRate) -> dict[str, Any]:
    return {
        "runner": rate.runner,
        "cases": rate.cases,
        "passed": rate.passed,
        "judged": rate.judged,
        "pass_rate": rate.pass_rate,
        "interval": interval_dict(rate.interval),
        "confidence": rate.confidence,
        "without_verdict": {key: getattr(rate, key) for key in UNSCORED},
    }


def _pair(pair: PairDifference) -> dict[str, Any]:
    return {
        "first": pair.first,
        "second": pair.second,
        "cases": pair.cases,
        "pass_rate_first": pair.pass_rate_first,
        "pass_rate_second": pair.pass_rate_second,
        "difference": pair.difference,
        "interval": interval_dict(pair.interval),
        "confidence": pair.confidence,
        "first_only": pair.first_only,
        "second_only": pair.second_only,
    }


def _cell(cell: Cell) -> dict[str, Any]:
    return {
        "runner": cell.runner,
        "verdict": cell.verdict,
        **{key: getattr(cell, key) for key in _CELL_COUNTS},
        "pass_rate": cell.pass_rate,
    }


def check_matrix(top: Fields) -> None:
    """A :class:`ReportError` naming the first impossible value of ``portability``."""
    if "portability" not in top.data:
        raise ReportError('the report has no "portability" key (null when one runner ran)')
    matrix = top.optional_child("portability")
    if matrix is None:
        return
    matrix.word("arm", ("candidate",))  # the matrix reads the candidate arm only
    runners = [rate.text("runner") for rate in _runners(matrix)]
    if len(runners) < 2 or len(set(runners)) != len(runners):
        raise ReportError(f"{matrix.at('runners')}: expected two runners or more, each once")
    matrix.word("pairing", get_args(Pairing))
    for pair in matrix.objects("pairs"):
        for key in ("first", "second"):
            if pair.text(key) not in runners:
                raise ReportError(f"{pair.at(key)}: not a runner of the matrix")
        for key in ("cases", "first_only", "second_only"):
            pair.count(key)
        for key in ("pass_rate_first", "pass_rate_second"):
            pair.optional_figure(key, RATE)
        pair.optional_figure("difference", SIGNED_RATE)
        check_interval(pair.optional_child("interval"))
        pair.word("confidence", get_args(Confidence))
    for case in matrix.objects("cases"):
        _names(case)
        case.flag("divergent")
        case.flag("comparable")
        cells = case.objects("cells")
        if [cell.text("runner") for cell in cells] != runners:
            raise ReportError(f"{case.at('cells')}: expected one cell per runner, in order")
        for cell in cells:
            cell.word("verdict", get_args(Verdict))
            for key in _CELL_COUNTS:
                cell.count(key)
            cell.optional_figure("pass_rate", RATE)
    for entry in matrix.objects("divergent"):
        _names(entry)
        for key in ("passed_in", "failed_in"):
            if not set(entry.names(key)) <= set(runners):
                raise ReportError(f"{entry.at(key)}: names a runner the matrix does not have")
    for entry in matrix.objects("not_comparable"):
        _names(entry)
        for cell in entry.objects("cells"):
            if cell.text("runner") not in runners:
                raise ReportError(f"{cell.at('runner')}: not a runner of the matrix")
            cell.word("verdict", get_args(Verdict))


def _runners(matrix: Fields) -> list[Fields]:
    rates = matrix.objects("runners")
    for rate in rates:
        for key in ("cases", "passed", "judged"):
            rate.count(key)
        rate.optional_figure("pass_rate", RATE)
        check_interval(rate.optional_child("interval"))
        rate.word("confidence", get_args(Confidence))
        missing = rate.child("without_verdict")
        for key in UNSCORED:
            missing.count(key)
    return rates


def _names(entry: Fields) -> None:
    entry.text("skill_name")
    entry.text("case_name")
