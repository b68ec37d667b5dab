"""The gate's interval decisions, raw and after Holm's correction, in every report.

One wording for the terminal and the Markdown report, and the JSON block, so the three
never disagree. A family is shown whenever its criterion asks for a confidence level
(``min_delta_confidence``, ``per_skill_min_confidence``): under ``multiplicity = "none"``
only the raw decisions are listed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..formatting import signed_percent
from ..gate.multiplicity import WHAT, Decision, Multiplicity
from ..gate.record import RunRecord

Escape = Callable[[str], str]


def title(family: Multiplicity) -> str:
    k = len(family.decisions)
    how = (
        "Holm's step-down correction"
        if family.method == "holm"
        else 'no correction (multiplicity = "none")'
    )
    return (
        f"Interval decisions of {family.criterion} at {family.level * 100:g}% confidence: "
        f"{k} decision(s), one-sided error {family.alpha:.4f} each, {how}"
    )


def figure(family: Multiplicity, value: float) -> str:
    """A delta signed, a pass rate as it is."""
    if family.criterion == "per_skill_min_confidence":
        return f"{value:.0%}"
    return signed_percent(value)


def decision_text(decision: Decision, family: Multiplicity) -> str:
    """One decision: its figure, bar, p-value and both verdicts (the adjusted under Holm)."""
    raw = "shown" if decision.raw_holds else "not shown"
    text = (
        f"{family.subject_text(decision)} {figure(family, decision.estimate)} against "
        f"{figure(family, decision.bar)}: p = {decision.p_value:.4f}, raw {raw}"
    )
    if family.method == "none":
        return text
    adjusted = "shown" if decision.adjusted_holds else "not shown"
    return (
        f"{text}; Holm-adjusted p = {decision.adjusted_p_value:.4f} "
        f"(Holm level {decision.adjusted_level * 100:.4g}%), {adjusted}"
    )


def multiplicity_lines(record: RunRecord) -> list[str]:
    lines: list[str] = []
    for family in record.multiplicity:
        lines += [*([""] if lines else []), title(family)]
        lines += [f"  {decision_text(d, family)}" for d in family.decisions]
        if family.changed:
            lines.append(
                f"  {len(family.changed)} decision(s) shown alone are not shown after the "
                "correction: the gate reads the adjusted ones."
            )
    return lines


def multiplicity_block(record: RunRecord, inline: Escape) -> str | None:
    blocks = []
    for family in record.multiplicity:
        holm = family.method == "holm"
        rows = [
            "| decision | estimate | bar | p | raw | Holm-adjusted p | adjusted |",
            "|---|---|---|---|---|---|---|",
        ]
        for d in family.decisions:
            rows.append(
                f"| {inline(family.subject_text(d))} | {figure(family, d.estimate)} "
                f"| {figure(family, d.bar)} | {d.p_value:.4f} | {_shown(d.raw_holds)} "
                f"| {f'{d.adjusted_p_value:.4f}' if holm else '—'} "
                f"| {_shown(d.adjusted_holds) if holm else '—'} |"
            )
        blocks.append(f"### {inline(title(family))}\n\n" + "\n".join(rows))
    return "\n\n".join(blocks) or None


def multiplicity_list(families: tuple[Multiplicity, ...]) -> list[dict[str, Any]]:
    return [
        {
            "criterion": family.criterion,
            "method": family.method,
            "level": family.level,
            "alpha": family.alpha,
            "decisions": [
                {
                    "what": WHAT[family.criterion],
                    **_subject(family, d),
                    "estimate": d.estimate,
                    "bar": d.bar,
                    "p_value": d.p_value,
                    "raw_holds": d.raw_holds,
                    "adjusted_p_value": d.adjusted_p_value,
                    "adjusted_holds": d.adjusted_holds,
                    "adjusted_level": d.adjusted_level,
                }
                for d in family.decisions
            ],
        }
        for family in families
    ]


def _subject(family: Multiplicity, decision: Decision) -> dict[str, str | None]:
    """``skill`` for a skill's rate; ``runner`` for a delta (null: the one pooled delta),
    and its baseline ``arm`` when several ran side by side (absent for one)."""
    if family.criterion == "per_skill_min_confidence":
        return {"skill": decision.subject, "runner": None}
    arm = {"arm": decision.arm} if decision.arm else {}
    return {"skill": None, "runner": decision.subject or None, **arm}


def _shown(holds: bool) -> str:
    return "shown" if holds else "**not shown**"
