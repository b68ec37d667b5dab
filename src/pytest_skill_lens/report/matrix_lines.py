"""The portability matrix in the terminal: each runner's rate, the pairs, and the cases that differ.

Only a run of two runners or more has a matrix (``record.matrix``); a run of one prints
nothing here. The grid itself is printed for a suite of up to :data:`SHOWN` cases;
a larger one has it in the JSON, Markdown and HTML reports, and the lists of cases that
diverge or cannot be compared are cut at :data:`SHOWN` each, saying how many more.
"""

from __future__ import annotations

from ..formatting import signed_percent
from ..gate.intervals import Interval
from ..gate.matrix import CaseRow, Cell, PairDifference, RunnerRate, Verdict
from ..gate.record import RunRecord

SHOWN = 20
TITLE = "Portability across runners (candidate arm)"
DIVERGENT = "Pass in one runner, fail in another"
NOT_COMPARABLE = "Not comparable, no verdict under some runner"
# What a cell without a verdict says, and why it is left out of every figure.
WORDS: dict[Verdict, str] = {
    "passed": "passed",
    "failed": "failed",
    "mixed": "mixed",
    "errored": "errored",
    "not_evaluated": "not evaluated",
    "not_run": "not run",
    "not_selected": "not selected",
}


def matrix_lines(record: RunRecord) -> list[str]:
    matrix = record.matrix
    if matrix is None:
        return []
    lines = [f"{TITLE}: {len(matrix.runners)} runner(s), {len(matrix.cases)} case(s)"]
    lines += [f"  {runner_line(rate)}" for rate in matrix.runners]
    if matrix.pairing == "against the first":
        lines.append(f"  each runner against {matrix.runners[0].runner}, the first named:")
    lines += [f"  {pair_line(pair)}" for pair in matrix.pairs]
    if len(matrix.cases) <= SHOWN:
        lines.append("  Per case:")
        lines += [f"    {case_name(row)}  {row_cells(row)}" for row in matrix.cases]
    else:
        lines.append(
            f"  Per case: {len(matrix.cases)} cases, in the JSON, Markdown and HTML reports"
        )
    lines += _listed(DIVERGENT, [divergent_text(row) for row in matrix.divergent])
    lines += _listed(NOT_COMPARABLE, [unscored_text(row) for row in matrix.not_comparable])
    return lines


def runner_line(rate: RunnerRate) -> str:
    """``runner a: pass rate 67% over 3 case(s), 95% interval [21%, 94%], confidence low``."""
    if rate.pass_rate is None:
        head = f"runner {rate.runner}: no case with a verdict"
    else:
        head = (
            f"runner {rate.runner}: pass rate {rate.pass_rate:.0%} over {rate.cases} case(s), "
            f"95% interval {span(rate.interval)}, confidence {rate.confidence}"
        )
    missing = without_verdict(rate)
    return f"{head}; no verdict: {missing}" if missing else head


def without_verdict(rate: RunnerRate) -> str:
    """``1 errored, 2 not evaluated``: the cells left out of the rate, by why."""
    parts = [
        (rate.errored, "errored"),
        (rate.not_evaluated, "not evaluated"),
        (rate.not_run, "not run"),
        (rate.not_selected, "not selected"),
    ]
    return ", ".join(f"{count} {word}" for count, word in parts if count)


def pair_line(pair: PairDifference) -> str:
    """``a - b: 100% vs 50% over 2 paired case(s), difference +50% [-9%, +91%] ...``."""
    name = f"{pair.first} - {pair.second}"
    if pair.difference is None:
        return f"{name}: no case with a verdict under both"
    assert pair.pass_rate_first is not None and pair.pass_rate_second is not None
    interval = pair.interval
    method = f" ({interval.method})" if interval is not None else ""
    return (
        f"{name}: {pair.pass_rate_first:.0%} vs {pair.pass_rate_second:.0%} over {pair.cases} "
        f"paired case(s), difference {signed_percent(pair.difference)} "
        f"{span(interval, signed=True)}{method}, confidence {pair.confidence}; "
        f"passed only under {pair.first}: {pair.first_only}, only under {pair.second}: "
        f"{pair.second_only}"
    )


def case_name(row: CaseRow) -> str:
    return f"{row.skill_name} :: {row.case_name}"


def row_cells(row: CaseRow) -> str:
    return " | ".join(f"{cell.runner} {cell_text(cell)}" for cell in row.cells)


def cell_text(cell: Cell) -> str:
    """``passed 3/3``, ``mixed 1/3 (+1 errored)``, ``errored (2)``, ``not selected``."""
    word = WORDS[cell.verdict]
    if cell.verdict == "not_run" or cell.verdict == "not_selected":
        return word
    if cell.judged:
        extra = [
            f"+{n} {what}"
            for n, what in ((cell.errored, "errored"), (cell.not_evaluated, "not evaluated"))
            if n
        ]
        return f"{word} {cell.passed}/{cell.judged}" + (f" ({', '.join(extra)})" if extra else "")
    return f"{word} ({cell.errored + cell.not_evaluated})"


def divergent_text(row: CaseRow) -> str:
    return (
        f"{case_name(row)}: passed under {', '.join(row.passed_in)}; "
        f"failed under {', '.join(row.failed_in)}"
    )


def unscored_text(row: CaseRow) -> str:
    cells = ", ".join(f"{cell.runner} {WORDS[cell.verdict]}" for cell in row.unscored)
    return f"{case_name(row)}: {cells}"


def span(interval: Interval | None, *, signed: bool = False) -> str:
    if interval is None:
        return "none"
    if signed:
        return f"[{signed_percent(interval.low)}, {signed_percent(interval.high)}]"
    return f"[{interval.low:.0%}, {interval.high:.0%}]"


def _listed(title: str, texts: list[str]) -> list[str]:
    if not texts:
        return []
    lines = [f"  {title} ({len(texts)}):", *(f"    - {text}" for text in texts[:SHOWN])]
    if len(texts) > SHOWN:
        lines.append(f"    ... and {len(texts) - SHOWN} more (every one is in the JSON report)")
    return lines
