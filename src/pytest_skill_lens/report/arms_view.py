"""Several baseline arms side by side, in every report.

Each arm's own delta block is the one a run of that arm alone prints (the record seen
through :func:`arm_records`: that arm's delta, notes and outcomes), then one table with a
row per skill and runner and a column per arm: the candidate's pass rate, and against
each arm the pass-rate delta (candidate - arm) with its 95% interval and the arm's own
rate. Rows weigh each comparable case once (its rate over its repetitions), as the
intervals do; the ``all`` row is each arm's delta as the gate reads it. A run of one arm
shows none of this: its reports are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..formatting import signed_percent
from ..gate.arm_rows import ALL, ArmCell, ArmRow
from ..gate.record import RunRecord
from .delta_json import delta_dict, interval_dict
from .delta_lines import delta_lines
from .json_fields import COUNT, RATE, SIGNED_RATE, Fields, check_interval

Escape = Callable[[str], str]
TITLE = "Baseline arms side by side (candidate - arm, pass-rate delta [95% interval]):"


def several(record: RunRecord) -> bool:
    """Several baseline arms were asked for: the side-by-side reports apply."""
    return len(record.baseline_kinds) > 1


def arm_records(record: RunRecord) -> list[RunRecord]:
    """The record as each arm alone would have it, in the order asked."""
    views = []
    by_kind = {delta.baseline_kind: delta for delta in record.deltas}
    for kind in record.baseline_kinds:
        outcomes = [o for o in record.outcomes if o.arm == "candidate" or o.baseline_kind == kind]
        notes = [note for note in record.baseline_notes if note.arm == kind]
        views.append(
            replace(
                record,
                outcomes=outcomes,
                baseline_kind=kind,
                baseline_notes=notes,
                delta=by_kind.get(kind),
                baseline_sources=record.baseline_sources if kind == "previous" else [],
            )
        )
    return views


def cell_text(cell: ArmCell) -> str:
    """``+50% [-19%, +100%] (50%)``: the delta, its interval, the arm's own rate."""
    if cell.pass_rate_delta is None or cell.pass_rate_baseline is None:
        return "no comparable case"
    text = signed_percent(cell.pass_rate_delta)
    if cell.interval is not None:
        text += f" [{signed_percent(cell.interval.low)}, {signed_percent(cell.interval.high)}]"
    return f"{text} ({cell.pass_rate_baseline:.0%})"


def rate_text(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _subject(row: ArmRow) -> str:
    return ALL if row.skill_name == ALL else f"{row.skill_name} / {row.runner}"


def gate_line(record: RunRecord) -> str | None:
    gate = record.run.gate if record.run is not None else None
    if gate is None or gate.min_delta is None:
        return None
    kinds = ", ".join(record.baseline_kinds)
    return (
        f"The gate holds min_delta {signed_percent(gate.min_delta)} against each baseline arm "
        f"({kinds}): every arm must clear it."
    )


def none_ran(view: RunRecord) -> list[str]:
    """An arm that never ran (its baseline could not be had): which, and why."""
    head = f"No {view.baseline_kind} baseline arm ran, so there is no delta against it."
    return [head, *(f"  - {note.text}" for note in view.baseline_notes)]


def arms_lines(record: RunRecord) -> list[str]:
    """Each arm's delta block (as a run of that arm alone prints it), then the table."""
    lines: list[str] = []
    for view in arm_records(record):
        lines += [*([""] if lines else []), *(delta_lines(view) if view.delta else none_ran(view))]
    kinds = record.baseline_kinds
    table = [["skill / runner", "candidate", *(f"vs {kind}" for kind in kinds)]]
    for row in record.arm_rows:
        by_kind = {cell.baseline_kind: cell_text(cell) for cell in row.cells}
        table.append(
            [
                _subject(row),
                rate_text(row.pass_rate_candidate),
                *(by_kind.get(k, "no baseline ran") for k in kinds),
            ]
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    lines += ["", TITLE]
    lines += [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in table
    ]
    said = gate_line(record)
    return [*lines, *([f"  {said}"] if said else [])]


def arms_dict(record: RunRecord) -> dict[str, Any] | None:
    """The JSON ``arms`` block: null for a run of one arm (or none)."""
    if not several(record):
        return None
    return {
        "kinds": list(record.baseline_kinds),
        "deltas": [delta_dict(delta) for delta in record.deltas],
        "rows": [
            {
                "skill_name": row.skill_name,
                "runner": row.runner,
                "pass_rate_candidate": row.pass_rate_candidate,
                "by_arm": [
                    {
                        "baseline_kind": cell.baseline_kind,
                        "comparable_cases": cell.comparable_cases,
                        "pass_rate_baseline": cell.pass_rate_baseline,
                        "pass_rate_delta": cell.pass_rate_delta,
                        "pass_rate_delta_interval": interval_dict(cell.interval),
                    }
                    for cell in row.cells
                ],
            }
            for row in record.arm_rows
        ],
    }


def check_arms(top: Fields, check_delta: Callable[[Fields], None]) -> None:
    """A :class:`ReportError` naming the first impossible value of ``arms``."""
    if top.data.get("arms") is None:
        return
    arms = top.child("arms")
    arms.names("kinds")
    for delta in arms.objects("deltas"):
        check_delta(delta)
    for row in arms.objects("rows"):
        row.text("skill_name")
        row.text("runner")
        row.optional_figure("pass_rate_candidate", RATE)
        for cell in row.objects("by_arm"):
            cell.text("baseline_kind")
            cell.count("comparable_cases", COUNT)
            cell.optional_figure("pass_rate_baseline", RATE)
            cell.optional_figure("pass_rate_delta", SIGNED_RATE)
            check_interval(cell.optional_child("pass_rate_delta_interval"), SIGNED_RATE)
