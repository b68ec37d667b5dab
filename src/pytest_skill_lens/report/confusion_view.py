"""Triggering among neighbours in the reports: the matrix, precision, recall and the pairs.

One wording for the terminal and Markdown (:func:`rate_line`, :func:`pair_line`), and the
JSON's ``triggering`` block (null when no offered run checked ``skill_triggered``) with its
strict reading (:func:`check_triggering`): a merge computes it again from the outcomes,
but ``html`` draws it as written. The grid is printed for up to :data:`SHOWN` labels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..gate.confusion import ConfusedPair, Confusion, SkillRates
from ..gate.intervals import Interval
from .delta_json import interval_dict
from .json_fields import COUNT, RATE, Fields, check_interval

SHOWN = 12  # labels of a grid printed in the terminal and Markdown
TITLE = "Triggering among neighbours (candidate arm)"
WRITTEN_FOR = "written for"
COLUMNS = "the skill the agent took (its own when called)"
ALSO_NOUN = "called beside the skill taken"
ALSO_HEAD = f"{ALSO_NOUN[0].upper()}{ALSO_NOUN[1:]} (each a false positive of the skill called):"

Escape = Callable[[str], str]


def _percent(interval: Interval | None, hits: int, of: int) -> str:
    if interval is None:
        return "none counted"
    span = f"[{interval.low:.0%}, {interval.high:.0%}]"
    return f"{interval.estimate:.0%} ({hits}/{of}, 95% interval {span})"


def rate_line(rate: SkillRates) -> str:
    """``refunds: precision 67% (2/3, ...), recall 50% (2/4, ...)``."""
    precision = _percent(rate.precision, rate.hits, rate.taken + rate.also)
    if rate.also:
        precision = f"{precision[:-1]}; {ALSO_NOUN} in {rate.also})"
    recall = _percent(rate.recall, rate.hits, rate.written)
    return f"{rate.skill}: precision {precision}, recall {recall}"


def also_lines(matrix: Confusion) -> list[str]:
    """``shipping in 2 run(s) written for refunds``: each skill called beside the one taken."""
    return [
        f"{called} in {runs} run(s) written for {written_for}"
        for (written_for, called), runs in sorted(matrix.also.items())
    ]


def pair_line(pair: ConfusedPair) -> str:
    """``refunds <-> shipping: 2 run(s); shipping took 1 written for refunds, ...``."""
    return (
        f"{pair.first} <-> {pair.second}: {pair.count} run(s); {pair.second} took "
        f"{pair.first_taken_by_second} written for {pair.first}, {pair.first} took "
        f"{pair.second_taken_by_first} written for {pair.second}"
    )


def head_line(matrix: Confusion) -> str:
    return f"{TITLE}: {matrix.runs} run(s) over {len(matrix.labels) - 1} skill(s)"


def confusion_lines(matrix: Confusion | None) -> list[str]:
    if matrix is None:
        return []
    lines = [head_line(matrix)]
    lines += [f"  {rate_line(rate)}" for rate in matrix.rates]
    if matrix.pairs:
        lines.append("  Descriptions that take each other's cases:")
        lines += [f"    {pair_line(pair)}" for pair in matrix.pairs]
    if matrix.also:
        lines.append(f"  {ALSO_HEAD}")
        lines += [f"    {line}" for line in also_lines(matrix)]
    if len(matrix.labels) <= SHOWN:
        lines.append(f"  Rows: {WRITTEN_FOR}; columns: {COLUMNS}")
        width = max(len(label) for label in matrix.labels)
        lines.append("    " + " " * width + "  " + "  ".join(matrix.labels))
        for row in matrix.labels:
            cells = "  ".join(str(matrix.count(row, col)).rjust(len(col)) for col in matrix.labels)
            lines.append(f"    {row.ljust(width)}  {cells}")
    return lines


def confusion_block(matrix: Confusion | None, inline: Escape) -> str | None:
    if matrix is None:
        return None
    blocks = [f"### {TITLE}", inline(head_line(matrix))]
    blocks.append("\n".join(f"- {inline(rate_line(rate))}" for rate in matrix.rates))
    if matrix.pairs:
        bullets = "\n".join(f"- {inline(pair_line(pair))}" for pair in matrix.pairs)
        blocks.append(f"**Descriptions that take each other's cases:**\n\n{bullets}")
    if matrix.also:
        bullets = "\n".join(f"- {inline(line)}" for line in also_lines(matrix))
        blocks.append(f"**{inline(ALSO_HEAD)}**\n\n{bullets}")
    if len(matrix.labels) <= SHOWN:
        header = "| " + WRITTEN_FOR + " \\ took | " + " | ".join(inline(x) for x in matrix.labels)
        rule = "|---|" + "---:|" * len(matrix.labels)
        rows = [
            f"| {inline(row)} | "
            + " | ".join(str(matrix.count(row, col)) for col in matrix.labels)
            + " |"
            for row in matrix.labels
        ]
        blocks.append("\n".join([header + " |", rule, *rows]))
    return "\n\n".join(blocks)


def confusion_dict(matrix: Confusion | None) -> dict[str, Any] | None:
    if matrix is None:
        return None
    return {
        "arm": "candidate",
        "labels": list(matrix.labels),
        "cells": [
            {"written_for": row, "took": col, "runs": matrix.count(row, col)}
            for row in matrix.labels
            for col in matrix.labels
            if matrix.count(row, col)
        ],
        "skills": [
            {
                "skill_name": rate.skill,
                "taken": rate.taken,
                "written": rate.written,
                "hits": rate.hits,
                "also": rate.also,
                "precision": interval_dict(rate.precision),
                "recall": interval_dict(rate.recall),
            }
            for rate in matrix.rates
        ],
        "also": [
            {"written_for": written_for, "called": called, "runs": runs}
            for (written_for, called), runs in sorted(matrix.also.items())
        ],
        "pairs": [
            {
                "first": pair.first,
                "second": pair.second,
                "first_taken_by_second": pair.first_taken_by_second,
                "second_taken_by_first": pair.second_taken_by_first,
                "runs": pair.count,
            }
            for pair in matrix.pairs
        ],
    }


def check_triggering(top: Fields) -> None:
    """A :class:`ReportError` naming the first impossible value of ``triggering``."""
    block = top.optional_child("triggering")
    if block is None:
        return
    block.names("labels")
    for cell in block.objects("cells"):
        cell.text("written_for")
        cell.text("took")
        cell.count("runs", COUNT)
    for skill in block.objects("skills"):
        skill.text("skill_name")
        for key in ("taken", "written", "hits", "also"):
            skill.count(key, COUNT)
        for key in ("precision", "recall"):
            check_interval(skill.optional_child(key), RATE)
    for also in block.objects("also"):
        also.text("written_for")
        also.text("called")
        also.count("runs", COUNT)
    for pair in block.objects("pairs"):
        pair.text("first")
        pair.text("second")
        for key in ("first_taken_by_second", "second_taken_by_first", "runs"):
            pair.count(key, COUNT)
