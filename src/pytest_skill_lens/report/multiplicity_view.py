"""The gate's interval decisions, raw and after Holm's correction, in every report.

One wording for the terminal and the Markdown report, and the JSON block, so the three
never disagree. Shown whenever the delta gate asks for a confidence level: under
``multiplicity = "none"`` the adjusted column equals the raw one and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..gate.delta import signed_percent
from ..gate.multiplicity import Decision, Multiplicity
from ..gate.record import RunRecord

Escape = Callable[[str], str]


def title(multiplicity: Multiplicity) -> str:
    k = len(multiplicity.decisions)
    how = (
        "Holm's step-down correction"
        if multiplicity.method == "holm"
        else 'no correction (multiplicity = "none")'
    )
    return (
        f"Interval decisions at {multiplicity.level * 100:g}% confidence: {k} decision(s), "
        f"one-sided error {multiplicity.alpha:.4f} each, {how}"
    )


def decision_text(decision: Decision, multiplicity: Multiplicity) -> str:
    """One decision: its figure, bar, p-value and both verdicts (the adjusted under Holm)."""
    what = f"delta under runner '{decision.runner}'" if decision.runner else "delta"
    raw = "shown" if decision.raw_holds else "not shown"
    text = (
        f"{what} {signed_percent(decision.estimate)} against {signed_percent(decision.bar)}: "
        f"p = {decision.p_value:.4f}, raw {raw}"
    )
    if multiplicity.method == "none":
        return text
    adjusted = "shown" if decision.adjusted_holds else "not shown"
    return (
        f"{text}; Holm-adjusted p = {decision.adjusted_p_value:.4f} "
        f"(Holm level {decision.adjusted_level * 100:.4g}%), {adjusted}"
    )


def multiplicity_lines(record: RunRecord) -> list[str]:
    multiplicity = record.multiplicity
    if multiplicity is None:
        return []
    lines = [title(multiplicity)]
    lines += [f"  {decision_text(d, multiplicity)}" for d in multiplicity.decisions]
    if multiplicity.changed:
        lines.append(
            f"  {len(multiplicity.changed)} decision(s) shown alone are not shown after the "
            "correction: the gate reads the adjusted ones."
        )
    return lines


def multiplicity_block(record: RunRecord, inline: Escape) -> str | None:
    multiplicity = record.multiplicity
    if multiplicity is None:
        return None
    rows = [
        "| decision | estimate | bar | p | raw | Holm-adjusted p | adjusted |",
        "|---|---|---|---|---|---|---|",
    ]
    for d in multiplicity.decisions:
        what = f"runner {inline(d.runner)}" if d.runner else "delta"
        holm = multiplicity.method == "holm"
        rows.append(
            f"| {what} | {signed_percent(d.estimate)} | {signed_percent(d.bar)} "
            f"| {d.p_value:.4f} | {_shown(d.raw_holds)} "
            f"| {f'{d.adjusted_p_value:.4f}' if holm else '—'} "
            f"| {_shown(d.adjusted_holds) if holm else '—'} |"
        )
    return f"### {inline(title(multiplicity))}\n\n" + "\n".join(rows)


def multiplicity_dict(multiplicity: Multiplicity | None) -> dict[str, Any] | None:
    if multiplicity is None:
        return None
    return {
        "method": multiplicity.method,
        "level": multiplicity.level,
        "alpha": multiplicity.alpha,
        "decisions": [
            {
                "what": "pass_rate_delta",
                "runner": d.runner or None,
                "estimate": d.estimate,
                "bar": d.bar,
                "p_value": d.p_value,
                "raw_holds": d.raw_holds,
                "adjusted_p_value": d.adjusted_p_value,
                "adjusted_holds": d.adjusted_holds,
                "adjusted_level": d.adjusted_level,
            }
            for d in multiplicity.decisions
        ],
    }


def _shown(holds: bool) -> str:
    return "shown" if holds else "**not shown**"
