"""The comparison in the terminal: the delta, its intervals, each case, and the advice.

pytest already prints every item (a baseline one under its own letter), so this block
says what pytest cannot: how the arms compare, how sure that comparison is, and which
cases did not count and why.
"""

from __future__ import annotations

from ..formatting import signed_percent
from ..gate.delta import ArmStats, CaseStats, Delta, DeltaFigures
from ..gate.intervals import Interval
from ..gate.record import RunRecord
from ..labels import case_label

ADVICE = "Low-signal and high-variance flags are advice: they never change the exit code."


def delta_lines(record: RunRecord) -> list[str]:
    """Nothing for a single-arm run; a block for a run with a baseline asked for."""
    if not record.baseline_kind:
        return []
    delta = record.delta
    if delta is None:
        return [
            "No baseline arm ran, so there is no delta.",
            *(f"  - {note.text}" for note in record.baseline_notes),
        ]
    lines = [f"Delta vs baseline ({delta.baseline_kind}): {_counted(delta)}"]
    lines += [f"  {source_line(source)}" for source in record.baseline_sources]
    if delta.per_runner:
        for runner in delta.runners:
            lines.append(f"  runner {runner.runner}:")
            lines += [f"  {line}" for line in figure_lines(runner)]
    else:
        lines += figure_lines(delta)
    lines.append("  Per case:")
    for case in delta.cases:
        lines.append(f"    {case_line(case)}")
        cause = baseline_cause(record, case)
        if cause is not None:  # a baseline never fails, so pytest prints no failure text
            lines.append(f"      baseline: {cause}")
    low_signal = [case for case in delta.cases if case.low_signal]
    if low_signal:
        lines.append("  Low-signal checks (held in every repetition of both arms):")
        lines += [
            f"    - {case_label(c.skill_name, c.case_name, c.runner)}: {', '.join(c.low_signal)}"
            for c in low_signal
        ]
    if delta.high_variance:
        lines.append("  High-variance cases (some repetitions passed, some failed):")
        lines += [
            f"    - {case_label(c.skill_name, c.case_name, c.runner, c.arm)}: "
            f"{c.pass_rate:.0%}, stddev {c.stddev:.2f}"
            for c in delta.high_variance
        ]
    if delta.notes:
        lines += ["  Baseline notes:", *(f"    - {note.text}" for note in delta.notes)]
    return [*lines, f"  {ADVICE}"]


def figure_lines(figures: DeltaFigures) -> list[str]:
    """The pass rates with their intervals, the delta's confidence, and the mean costs."""
    if not figures.comparable_cases:
        return ["  no case had a comparable baseline"]
    assert figures.pass_rate_candidate is not None and figures.pass_rate_baseline is not None
    assert figures.pass_rate_delta is not None
    interval = figures.pass_rate_delta_interval
    lines = [
        f"  pass rate  baseline {figures.pass_rate_baseline:.0%} -> candidate "
        f"{figures.pass_rate_candidate:.0%}  delta {signed_percent(figures.pass_rate_delta)}"
        f"   (higher is better)",
        f"  95% intervals: baseline {_span(figures.pass_rate_baseline_interval)}, candidate "
        f"{_span(figures.pass_rate_candidate_interval)}, delta {_span(interval, signed=True)}",
        f"  confidence in the delta: {figures.confidence}"
        + (f" ({interval.method}, {interval.n} case(s))" if interval else ""),
    ]
    parts = []
    if figures.tokens_delta is not None:
        parts.append(f"tokens {figures.tokens_delta:+.0f}")
    if figures.cost_usd_delta is not None:
        parts.append(f"cost {signed_usd(figures.cost_usd_delta)}")
    if figures.latency_ms_delta is not None:
        parts.append(f"latency {figures.latency_ms_delta:+.0f}ms")
    if parts:
        lines.append(f"  per run    {' | '.join(parts)}   (negative is better)")
    return lines


def case_line(case: CaseStats) -> str:
    """``{skill} :: {case} ({runner})  candidate p/n  baseline p/n  ±d`` or why it is left out."""
    name = case_label(case.skill_name, case.case_name, case.runner)
    head = f"{name}  candidate {arm_tally(case.candidate)}"
    if case.baseline is None:
        return f"{head}  baseline not run"
    tail = f"{head}  baseline {arm_tally(case.baseline)}"
    if not case.comparable:
        return f"{tail}  (excluded: {case.exclusion_reason})"
    assert case.candidate.pass_rate is not None and case.baseline.pass_rate is not None
    return f"{tail}  {signed_percent(case.candidate.pass_rate - case.baseline.pass_rate)}"


def baseline_cause(record: RunRecord, case: CaseStats) -> str | None:
    """Why the case's first non-passing baseline repetition did not pass, in one short line."""
    key = (case.skill_name, case.case_name, case.runner)
    for outcome in record.outcomes:
        if outcome.arm != "baseline" or outcome.status == "passed":
            continue
        if (outcome.skill_name, outcome.case_name, outcome.runner) != key:
            continue
        if outcome.error:
            return _short(f"errored: {outcome.error}")
        failed = [(s, c) for s in outcome.scores for c in s.checks if not c.passed]
        if failed:
            score, check = failed[0]
            return _short(f"failed {score.evaluator} {check.id}: {check.evidence}")
        return "failed"
    return None


def _short(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def arm_tally(stats: ArmStats) -> str:
    """``passed/scored``, with pass@k and pass^k at the largest k when there were repeats."""
    if not stats.runs:
        return "not run"
    if not stats.scored:
        return f"0/0 (all {stats.errored} errored)"
    text = f"{stats.passed}/{stats.scored}"
    if stats.errored:
        text += f" (+{stats.errored} errored)"
    if stats.k_estimates and 0 < stats.passed < stats.scored:  # all or none: 100% or 0%
        last = stats.k_estimates[-1]
        text += f" [pass@{last.k} {last.pass_at_k:.0%}, pass^{last.k} {last.pass_hat_k:.0%}]"
    return text


def source_line(source: dict[str, str]) -> str:
    """``baseline of greet: commit 1a2b3c4d, skills/greet/SKILL.md, version 0.9``."""
    version = f", version {source['version']}" if source.get("version") else ""
    return (
        f"baseline of {source['skill_name']}: commit {source['commit'][:8]}, "
        f"{source['path']}{version}"
    )


def signed_usd(value: float) -> str:
    return f"{'-' if value < 0 else '+'}${abs(value):.4f}"


def _counted(delta: Delta) -> str:
    total = len(delta.cases)
    return f"{delta.comparable_cases} of {total} case(s) comparable"


def _span(interval: Interval | None, *, signed: bool = False) -> str:
    if interval is None:
        return "none"
    if signed:
        return f"[{signed_percent(interval.low)}, {signed_percent(interval.high)}]"
    return f"[{interval.low:.0%}, {interval.high:.0%}]"
