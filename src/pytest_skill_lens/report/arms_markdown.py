"""Several baseline arms side by side in the Markdown report: each arm's delta block,
then the table of :mod:`.arms_view` (the same words as the terminal's)."""

from __future__ import annotations

from collections.abc import Callable

from ..gate.record import RunRecord
from .arms_view import TITLE, arm_records, cell_text, gate_line, none_ran, rate_text
from .delta_markdown import delta_block

Escape = Callable[[str], str]


def arms_block(record: RunRecord, inline: Escape) -> str:
    """Each arm's Markdown delta block, then the side-by-side table."""
    blocks = []
    for view in arm_records(record):
        if view.delta is None:
            head, *notes = none_ran(view)
            blocks.append("\n".join([f"### {inline(head)}", *(inline(n.strip()) for n in notes)]))
        elif block := delta_block(view, inline):
            blocks.append(block)
    kinds = record.baseline_kinds
    rows = [
        "| skill | runner | candidate | " + " | ".join(f"vs {inline(k)}" for k in kinds) + " |",
        "|---|---|---:|" + "---:|" * len(kinds),
    ]
    for row in record.arm_rows:
        by_kind = {cell.baseline_kind: cell_text(cell) for cell in row.cells}
        names = f"| {inline(row.skill_name)} | {inline(row.runner)} |"
        cells = [
            rate_text(row.pass_rate_candidate),
            *(by_kind.get(k, "no baseline ran") for k in kinds),
        ]
        rows.append(f"{names} {' | '.join(cells)} |")
    said = gate_line(record)
    table = "\n".join(rows) + (f"\n\n{said}" if said else "")
    return "\n\n".join([*blocks, f"### {inline(TITLE.rstrip(':'))}", table])
