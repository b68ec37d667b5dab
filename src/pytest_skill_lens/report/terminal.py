"""Lines for the ``skill-lens`` section of pytest's terminal summary.

pytest already prints one line per item and the failure text of each, so this
section only adds what pytest cannot know: skipped and deselected skills, items
that never ran, the candidate-only counts, spend, and the gate's verdict. Every
line is passed through :func:`~.printable.one_line`: a name or reason cannot move
the cursor, recolour the terminal or print a line of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..formatting import usd
from ..gate.record import GateResult, RunRecord
from ..labels import case_label
from ..run.models.price_source import NOT_PRICED
from .arms_view import arms_lines, several
from .confusion_view import confusion_lines
from .delta_lines import delta_lines
from .json_report import Totals, repeat_index
from .matrix_lines import matrix_lines
from .multiplicity_view import multiplicity_lines
from .printable import one_line
from .product_lines import product_lines, unsandboxed_note
from .replay_lines import ReplayShare, cassette_lines
from .reuse_lines import ReuseShare
from .savings import Savings
from .sequential_view import sequential_lines
from .wiring import WHAT_HOLDS, FakeShare

if TYPE_CHECKING:  # annotations only
    from ..gate.figures import RunFigures

NOT_RUN_SHOWN = 20  # a -x run can leave hundreds; the count is in the gate reason
COST_NOTE = "see per-case cost_note in the JSON report"
JUDGE_NOTE = "see scores[].cost_note in the JSON report"


def summary_lines(record: RunRecord, gate: GateResult) -> list[str]:
    if record.aborted is not None:
        return [one_line(line) for line in aborted_lines(record, gate)]
    groups = [
        [*product_lines(record), *script_lines(record)],  # what applied, first
        record.changed.lines() if record.changed is not None else [],
        skip_lines(record),
        not_loaded_lines(record),
        not_run_lines(record),
        [
            counts_line(record.figures),
            *([totals] if (totals := totals_line(record)) else []),
            *source_lines(Totals.of(record)),
            *arm_spend_lines(record),
            *replay_lines(record),
        ],
        [*Savings.of(record).lines(), *sequential_lines(record.sequential)],
        arms_lines(record) if several(record) else delta_lines(record),
        multiplicity_lines(record),
        matrix_lines(record),
        confusion_lines(record.figures.triggering),
        kept_lines(record),
        gate_lines(gate, FakeShare.of(record), unsandboxed_note(record), nothing_said(record)),
    ]
    lines: list[str] = []
    for group in groups:
        if group:
            lines += [*([""] if lines else []), *group]
    return [one_line(line) for line in lines]


def aborted_lines(record: RunRecord, gate: GateResult) -> list[str]:
    """A session that ended without a gate: that it is no pass.

    The reason is pytest's own last words above (the collection error, the
    KeyboardInterrupt, the Exit message), so it is not printed twice; the report
    files carry it as ``aborted_reason``.
    """
    code = gate.exit_code
    return [f"Run aborted: no gate was computed, so this run is not a pass (exit code {code})."]


def script_lines(record: RunRecord) -> list[str]:
    """``scripts: on, sandbox: <backend>`` (why none, and the hardening note): what applied.

    With scripts off, a line per skill whose scripts therefore never ran, so a
    green run does not read as if they had been exercised.
    """
    scripts = record.scripts
    if scripts is None:
        return [_idle_script_line(note) for note in record.script_notes]
    line = f"scripts: on, sandbox: {scripts.get('sandbox') or 'none'}"
    if scripts.get("sandbox") in (None, "none") and scripts.get("detail"):
        line += f" ({scripts['detail']})"
    if scripts.get("hardening"):
        line += f"; {scripts['hardening']}"
    if scripts.get("overridden_by_fixture"):
        others = ", ".join(scripts["overridden_by_fixture"])
        line += f"; a skill_lens_sandbox fixture ran some cases under: {others}"
    return [line]


def _idle_script_line(note: dict[str, object]) -> str:
    count = note["script_count"]
    noun = "script" if count == 1 else "scripts"
    hint = "(allow_scripts = true in skill-lens.toml or --skill-lens-allow-scripts)"
    if note.get("product_note"):  # a product's own shell tool runs them regardless
        return (
            f"skill {note['skill_name']} bundles {count} {noun}; skill-lens's run_script "
            f"is off {hint}; {note['product_note']}"
        )
    return f"skill {note['skill_name']} bundles {count} {noun}; execution is off {hint}"


def skip_lines(record: RunRecord) -> list[str]:
    lines = []
    if record.skipped_skills:
        lines.append(f"Skipped (no eval cases): {', '.join(record.skipped_skills)}")
    if filtered := record.filtered_skills:
        lines.append(f"Deselected (no case selected by -k/-m): {', '.join(filtered)}")
    return lines


def not_loaded_lines(record: RunRecord) -> list[str]:
    """Loaded candidate runs whose trace shows the skill never reached the model, per runner.

    Such a pass is evidence about the model, not the skill, so it is said where the
    counts are read.
    """
    by_runner: dict[str, list[str]] = {}
    why: dict[str, str] = {}
    for outcome in record.candidates:
        if outcome.ran_without_skill:
            by_runner.setdefault(outcome.runner, []).append(outcome.status)
            if outcome.load_note:
                why.setdefault(outcome.runner, outcome.load_note)
    return [
        f"Skill never loaded: {len(statuses)} candidate run(s) under {runner} "
        f"({statuses.count('passed')} passed) ran without the skill reaching the model; "
        "they say nothing about the skill"
        + (f" (first reason: {why[runner]})" if runner in why else "")
        for runner, statuses in by_runner.items()
    ]


def not_run_lines(record: RunRecord) -> list[str]:
    if not record.not_run:
        return []
    repeats = repeat_count(record)
    shown = record.not_run[:NOT_RUN_SHOWN]
    lines = ["Not run:", *(f"  {item_label(item, repeats)}" for item in shown)]
    if len(record.not_run) > len(shown):
        lines.append(f"  … +{len(record.not_run) - len(shown)} more")
    return lines


def kept_lines(record: RunRecord) -> list[str]:
    """Every workspace kept for inspection, however keeping was turned on."""
    kept = [o for o in record.outcomes if o.workspace]
    if not kept:
        return []
    repeats = repeat_count(record)
    identity = ("skill_name", "case_name", "runner", "arm", "repeat_index")
    return [
        "Kept workspaces:",
        *(
            f"  {item_label({key: getattr(o, key) for key in identity}, repeats)}: {o.workspace}"
            for o in kept
        ),
    ]


def counts_line(counts: RunFigures) -> str:
    not_run = f", {counts.not_run} not run" if counts.not_run else ""
    # With no case run a rate of 0% would read as every case failing.
    rate = f"pass rate {counts.pass_rate:.0%}" if counts.total else "no case ran: no pass rate"
    return (
        f"{counts.passed} passed, {counts.failed} failed, {counts.errored} errored{not_run}"
        f" — {rate}"
    )


def totals_line(record: RunRecord) -> str | None:
    """Only the figures that were spent or measured; None when there are none (a fake run)."""
    totals = Totals.of(record)
    parts = []
    if totals.tokens:
        parts.append(f"Total tokens: {totals.tokens:,}")
    if cost := priced("Total cost", totals.cost_usd, totals.cost_unpriced, COST_NOTE):
        parts.append(cost)
    if judge := priced("Judge overhead", totals.judge_cost_usd, totals.judge_unpriced, JUDGE_NOTE):
        parts.append(judge)
    if (ceiling := record.spend_ceiling) is not None:
        parts.append(
            f"Spend ceiling: {usd(ceiling.max_spend_usd)} (${ceiling.spent_usd:.4f} recorded)"
        )
    if totals.latency_ms:
        parts.append(f"Total latency: {format_latency(totals.latency_ms)}")
    return " | ".join(parts) or None


def source_lines(totals: Totals) -> list[str]:
    """Where each cost figure came from, under the figures (``not priced`` says itself)."""
    return [
        *(f"Cost source: {source}" for source in totals.price_sources if source != NOT_PRICED),
        *(
            f"Judge cost source: {source}"
            for source in totals.judge_price_sources
            if source != NOT_PRICED
        ),
    ]


def replay_lines(record: RunRecord) -> list[str]:
    """How many outcomes came from cassettes, how old the oldest is; what a recording
    wrote, kept and did not write, where, and why."""
    line = ReplayShare.of(record).line(len(record.outcomes))
    reuse = ReuseShare.of(record).lines(len(record.outcomes))
    return [*([line] if line else []), *reuse, *cassette_lines(record)]


def arm_spend_lines(record: RunRecord) -> list[str]:
    """Each arm's spend apart, when a baseline ran: its cost is the comparison's price."""
    if not record.baseline_kind or not any(o.arm == "baseline" for o in record.outcomes):
        return []
    parts = []
    for arm in ("candidate", "baseline"):
        totals = Totals.of(record, arm)
        if not (totals.tokens or totals.cost_usd or totals.cost_unpriced or totals.judge_cost_usd):
            continue
        cost = priced("cost", totals.cost_usd, totals.cost_unpriced, COST_NOTE) or "cost: $0.0000"
        text = f"{arm}: {totals.tokens:,} tokens, {cost}"
        if judge := priced("judge", totals.judge_cost_usd, totals.judge_unpriced, JUDGE_NOTE):
            text += f", {judge}"
        parts.append(text)
    return [f"By arm: {' | '.join(parts)}"] if parts else []


def priced(label: str, usd: float, unpriced: bool, note: str) -> str | None:
    """A cost figure that never shows an unpriced 0 as if it were free."""
    if unpriced and not usd:
        return f"{label}: not priced ({note})"
    if unpriced:
        return f"{label}: ${usd:.4f}, some costs not priced ({note})"
    return f"{label}: ${usd:.4f}" if usd else None


def nothing_said(record: RunRecord) -> str | None:
    """A green run of --skill-lens-changed that evaluated nothing says so on its verdict."""
    changed = record.changed
    return changed.nothing_said if changed is not None and changed.nothing_to_evaluate else None


def gate_lines(
    gate: GateResult,
    share: FakeShare | None = None,
    unsandboxed: str | None = None,
    nothing: str | None = None,
) -> list[str]:
    """The verdict, how much of what it judged runner fake produced, and products that ran
    with no sandbox (on the line itself, where a reader of a green run looks); a run that
    evaluated nothing says that there too."""
    note = share.note() if share is not None else None
    said = "; ".join(part for part in (nothing if gate.passed else None, note, unsandboxed) if part)
    if gate.passed:
        lines = ["Gate passed" + (f" — {said}" if said else "")]
    else:
        lines = ["Gate FAILED:", *(f"  - {reason}" for reason in gate.reasons)]
        lines += [f"{part[0].upper()}{part[1:]}" for part in (note, unsandboxed) if part]
    return [*lines, f"  {WHAT_HOLDS}"] if note else lines


def format_latency(ms: float) -> str:
    return f"{ms / 1000:.2f}s" if ms >= 1000 else f"{ms:.0f}ms"


def repeat_count(record: RunRecord) -> int:
    """How many repetitions the session planned, read off the highest repeat index seen."""
    indexes = [o.repeat_index for o in record.outcomes]
    indexes += [i for item in record.not_run if (i := repeat_index(item)) is not None]
    return max(indexes, default=0) + 1


def item_label(item: Mapping[str, object], repeats: int) -> str:
    """``{skill} :: {case} ({runner}[, baseline][, run i/N])``, or the node id if that is all."""
    if "case_name" not in item:
        return str(item.get("nodeid") or item.get("skill_name") or "?")
    extras = [str(item.get("runner", "?"))]
    if item.get("arm") == "baseline":
        extras.append("baseline")
    index = repeat_index(item)
    if repeats > 1 and index is not None:
        extras.append(f"run {index + 1}/{repeats}")
    return case_label(str(item.get("skill_name", "?")), str(item["case_name"]), *extras)
