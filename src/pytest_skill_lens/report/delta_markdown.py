"""The comparison in the Markdown report: a delta table, the cases, and the advice.

Built from the same lines as the terminal (:mod:`.delta_lines`) wherever the words
are the same, so the two never disagree; names are escaped by the caller's helpers.
"""

from __future__ import annotations

from collections.abc import Callable

from ..formatting import signed_percent
from ..gate.delta import Delta, DeltaFigures
from ..gate.record import RunRecord
from ..labels import case_label
from .delta_lines import ADVICE, arm_tally, signed_usd, source_line
from .terminal import format_latency

Escape = Callable[[str], str]


def delta_block(record: RunRecord, inline: Escape) -> str | None:
    """The delta heading and table, then collapsible case lists; None without a baseline."""
    if not record.baseline_kind:
        return None
    return "\n\n".join(_blocks(record, inline))


def _blocks(record: RunRecord, inline: Escape) -> list[str]:
    delta = record.delta
    if delta is None:
        notes = [f"- {inline(note.text)}" for note in record.baseline_notes]
        return ["### No baseline arm ran", *(["\n".join(notes)] if notes else [])]
    blocks = [f"### Delta vs baseline ({inline(delta.baseline_kind)})", _table(delta)]
    if record.baseline_sources:
        blocks.append("\n".join(f"- {inline(source_line(s))}" for s in record.baseline_sources))
    blocks.append(_details(f"Cases ({len(delta.cases)})", _cases(delta, inline)))
    low_signal = [c for c in delta.cases if c.low_signal]
    if low_signal:
        bullets = [
            f"- {inline(case_label(c.skill_name, c.case_name, c.runner))}: "
            f"{inline(', '.join(c.low_signal))}"
            for c in low_signal
        ]
        blocks.append(_details(f"Low-signal checks ({len(delta.low_signal)})", "\n".join(bullets)))
    if delta.high_variance:
        bullets = [
            f"- {inline(case_label(c.skill_name, c.case_name, c.runner, c.arm))}: "
            f"{c.pass_rate:.0%}, stddev {c.stddev:.2f}"
            for c in delta.high_variance
        ]
        title = f"High-variance cases ({len(delta.high_variance)})"
        blocks.append(_details(title, "\n".join(bullets)))
    if delta.notes:
        blocks.append("\n".join(f"- {inline(note.text)}" for note in delta.notes))
    blocks.append(f"<sub>{ADVICE}</sub>")
    return blocks


def _table(delta: Delta) -> str:
    rows: list[tuple[str, DeltaFigures]] = [("all", delta)]
    if delta.per_runner:  # the gate reads each runner's own delta then
        rows = [(r.runner, r) for r in delta.runners]
    lines = [
        "| Runner | Cases | Baseline | Candidate | Delta [95% interval] | Confidence "
        "| Tokens | Cost | Latency |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_row(name, figures) for name, figures in rows]
    return "\n".join(lines)


def _row(name: str, f: DeltaFigures) -> str:
    if not f.comparable_cases:
        return f"| {name} | 0 | — | — | no comparable case | none | — | — | — |"
    assert f.pass_rate_baseline is not None and f.pass_rate_candidate is not None
    assert f.pass_rate_delta is not None
    interval = f.pass_rate_delta_interval
    span = f" [{signed_percent(interval.low)}, {signed_percent(interval.high)}]" if interval else ""
    tokens = f"{f.tokens_delta:+.0f}" if f.tokens_delta is not None else "—"
    cost = signed_usd(f.cost_usd_delta) if f.cost_usd_delta is not None else "—"
    latency = "—"
    if f.latency_ms_delta is not None:
        sign = "-" if f.latency_ms_delta < 0 else "+"
        latency = sign + format_latency(abs(f.latency_ms_delta))
    return (
        f"| {name} | {f.comparable_cases} | {f.pass_rate_baseline:.0%} | "
        f"{f.pass_rate_candidate:.0%} | **{signed_percent(f.pass_rate_delta)}**{span} | "
        f"{f.confidence} | {tokens} | {cost} | {latency} |"
    )


def _cases(delta: Delta, inline: Escape) -> str:
    lines = ["| Case | Runner | Candidate | Baseline | Delta |", "|---|---|---|---|---|"]
    for case in delta.cases:
        baseline = arm_tally(case.baseline) if case.baseline is not None else "not run"
        if case.comparable:
            assert case.candidate.pass_rate is not None and case.baseline is not None
            assert case.baseline.pass_rate is not None
            change = signed_percent(case.candidate.pass_rate - case.baseline.pass_rate)
        else:
            change = f"excluded: {case.exclusion_reason}"
        lines.append(
            f"| {inline(f'{case.skill_name} :: {case.case_name}')} | {inline(case.runner)} | "
            f"{inline(arm_tally(case.candidate))} | {inline(baseline)} | {inline(change)} |"
        )
    return "\n".join(lines)


def _details(title: str, body: str) -> str:
    return f"<details><summary>{title}</summary>\n\n{body}\n\n</details>"
