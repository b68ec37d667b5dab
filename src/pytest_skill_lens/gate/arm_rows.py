"""Several baseline arms side by side: the table every report shows, computed once.

A row per skill and runner, in the cases' order, with a cell per arm: the arm's own pass
rate and the pass-rate delta (candidate - arm) with its Newcombe interval, each
comparable case weighing once (its rate over its repetitions, as the intervals do); then,
with several rows, an ``all`` row that is each arm's delta as the gate reads it. Kept on
the record (``RunRecord.arm_rows``) by the gate's judging.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .delta import Delta
from .intervals import Interval, paired_delta_interval

ALL = "all"  # the last row: each arm's whole delta


@dataclass(frozen=True)
class ArmCell:
    """One arm's figures in one row (None throughout when no case was comparable)."""

    baseline_kind: str
    comparable_cases: int
    pass_rate_baseline: float | None
    pass_rate_delta: float | None
    interval: Interval | None


@dataclass(frozen=True)
class ArmRow:
    skill_name: str  # "all" on the last row
    runner: str
    pass_rate_candidate: float | None
    cells: tuple[ArmCell, ...]


def arm_rows(deltas: Sequence[Delta]) -> list[ArmRow]:
    """A row per skill and runner in the cases' order, then ``all`` (several rows only)."""
    keys = list(dict.fromkeys((c.skill_name, c.runner) for d in deltas for c in d.cases))
    rows = [_row(skill, runner, deltas) for skill, runner in keys]
    if len(rows) > 1:
        rows.append(
            ArmRow(
                ALL,
                "",
                deltas[0].pass_rate_candidate if deltas else None,
                tuple(
                    ArmCell(
                        d.baseline_kind,
                        d.comparable_cases,
                        d.pass_rate_baseline,
                        d.pass_rate_delta,
                        d.pass_rate_delta_interval,
                    )
                    for d in deltas
                ),
            )
        )
    return rows


def _row(skill: str, runner: str, deltas: Sequence[Delta]) -> ArmRow:
    cells = []
    candidate: list[float] = []
    for delta in deltas:
        mine = [c for c in delta.cases if (c.skill_name, c.runner) == (skill, runner)]
        if not candidate:
            candidate = [c.candidate.pass_rate for c in mine if c.candidate.pass_rate is not None]
        pairs = [
            (c.candidate.pass_rate, c.baseline.pass_rate)
            for c in mine
            if c.comparable and c.baseline is not None
            if c.candidate.pass_rate is not None and c.baseline.pass_rate is not None
        ]
        cells.append(
            ArmCell(
                delta.baseline_kind,
                len(pairs),
                _mean([b for _, b in pairs]),
                _mean([a - b for a, b in pairs]),
                paired_delta_interval(tuple(pairs)),
            )
        )
    return ArmRow(skill, runner, _mean(candidate), tuple(cells))


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None
