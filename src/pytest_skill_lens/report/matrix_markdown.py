"""The portability matrix in the Markdown report: runners, pairs, divergent cases, the grid.

Worded by the terminal's helpers (:mod:`.matrix_lines`) so the two never disagree; every
name goes through the caller's ``inline`` escape. None for a run of one runner.
"""

from __future__ import annotations

from collections.abc import Callable

from ..formatting import signed_percent
from ..gate.matrix import Matrix, PairDifference, RunnerRate
from ..gate.record import RunRecord
from .matrix_lines import (
    DIVERGENT,
    NOT_COMPARABLE,
    TITLE,
    case_name,
    cell_text,
    divergent_text,
    span,
    unscored_text,
    without_verdict,
)

Escape = Callable[[str], str]


def matrix_block(record: RunRecord, inline: Escape) -> str | None:
    matrix = record.matrix
    if matrix is None:
        return None
    blocks = [f"### {TITLE}", _runners(matrix, inline), _pairs(matrix, inline)]
    if matrix.divergent:
        bullets = "\n".join(f"- {inline(divergent_text(row))}" for row in matrix.divergent)
        blocks.append(f"**{DIVERGENT} ({len(matrix.divergent)}):**\n\n{bullets}")
    if matrix.not_comparable:
        bullets = "\n".join(f"- {inline(unscored_text(row))}" for row in matrix.not_comparable)
        blocks.append(_details(f"{NOT_COMPARABLE} ({len(matrix.not_comparable)})", bullets))
    blocks.append(_details(f"Cases ({len(matrix.cases)})", _grid(matrix, inline)))
    return "\n\n".join(blocks)


def _runners(matrix: Matrix, inline: Escape) -> str:
    lines = [
        "| Runner | Cases | Pass rate [95% interval] | Confidence | No verdict |",
        "|---|---|---|---|---|",
    ]
    lines += [_runner_row(rate, inline) for rate in matrix.runners]
    return "\n".join(lines)


def _runner_row(rate: RunnerRate, inline: Escape) -> str:
    shown = "—" if rate.pass_rate is None else f"{rate.pass_rate:.0%} {span(rate.interval)}"
    missing = without_verdict(rate) or "—"
    return f"| {inline(rate.runner)} | {rate.cases} | {shown} | {rate.confidence} | {missing} |"


def _pairs(matrix: Matrix, inline: Escape) -> str:
    lines = [
        "| Runners | Paired cases | Pass rates | Difference [95% interval] | Confidence "
        "| Passed only under each |",
        "|---|---|---|---|---|---|",
    ]
    lines += [_pair_row(pair, inline) for pair in matrix.pairs]
    if matrix.pairing == "against the first":
        lines.append(f"\nEach runner against {inline(matrix.runners[0].runner)}, the first named.")
    return "\n".join(lines)


def _pair_row(pair: PairDifference, inline: Escape) -> str:
    names = f"{inline(pair.first)} − {inline(pair.second)}"
    if pair.difference is None:
        return f"| {names} | 0 | — | no case with a verdict under both | none | — |"
    assert pair.pass_rate_first is not None and pair.pass_rate_second is not None
    return (
        f"| {names} | {pair.cases} | {pair.pass_rate_first:.0%} vs {pair.pass_rate_second:.0%} "
        f"| **{signed_percent(pair.difference)}** {span(pair.interval, signed=True)} "
        f"| {pair.confidence} | {pair.first_only} / {pair.second_only} |"
    )


def _grid(matrix: Matrix, inline: Escape) -> str:
    names = [rate.runner for rate in matrix.runners]
    lines = [
        "| Case | " + " | ".join(inline(name) for name in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    lines += [
        f"| {inline(case_name(row))} | "
        + " | ".join(inline(cell_text(cell)) for cell in row.cells)
        + " |"
        for row in matrix.cases
    ]
    return "\n".join(lines)


def _details(title: str, body: str) -> str:
    return f"<details><summary>{title}</summary>\n\n{body}\n\n</details>"
