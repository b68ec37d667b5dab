"""The Markdown report (GitHub-flavoured), sized for a pull-request comment or job summary.

Names, details and model output are untrusted: inline text is escaped with its
newlines collapsed, anything longer is fenced with a fence it cannot close, and the
finished text goes through :func:`~.printable.printable` (no lone surrogate, terminal
escape or bidi override survives; see there).

A session that ended without a gate (``record.aborted``) gets the same report under
an "aborted" heading with the reason, never a verdict it did not reach.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..formatting import usd
from ..gate.record import GateResult, RunRecord
from ..perform.outcome import Outcome
from ..run.models.price_source import NOT_PRICED
from .arms_markdown import arms_block
from .arms_view import several
from .confusion_view import confusion_block
from .delta_markdown import delta_block
from .excerpt import Excerpt, build_excerpt
from .json_report import Totals
from .matrix_markdown import matrix_block
from .multiplicity_view import multiplicity_block
from .printable import printable
from .product_lines import product_lines
from .replay_lines import CassetteAccount, ReplayShare, replay_word
from .reuse_lines import ReuseShare, origin_words
from .savings import savings_block
from .terminal import (
    COST_NOTE,
    JUDGE_NOTE,
    format_latency,
    item_label,
    not_loaded_lines,
    repeat_count,
    script_lines,
    skip_lines,
)
from .wiring import FakeShare

if TYPE_CHECKING:  # annotations only
    from ..gate.figures import RunFigures

TRUNCATED_NOTE = "_Truncated — see the JSON report artifact._"
ABORTED_HEADING = "## skill-lens — ❌ run aborted, no gate was computed"
ABORTED_TITLE = "### Run aborted"
GATE_FAILED_TITLE = "### Gate failed"

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#&])")
_LINE_START = re.compile(r"^(\d+)([.)])|^([-+=])")
_NEWLINES = re.compile(r"\s*[\r\n]+\s*")


def render_markdown(
    record: RunRecord,
    gate: GateResult,
    *,
    max_chars: int | None = None,
    full_output: bool = False,
) -> str:
    """The report, at most ``max_chars`` characters long when that is given.

    ``full_output`` (or ``record.full_output``) lifts the 500-character output cap.
    When the text is too long: optional blocks are dropped from the end (so the
    totals table goes last), then gate reasons are elided from the end, and only
    then is the shortest variant cut hard.
    """
    if max_chars is not None and max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    counts = record.figures
    if record.aborted is not None:
        head = [ABORTED_HEADING]
        if record.outcomes:  # what ran before the stop, so it is not lost
            head.append(summary_line(counts))
    else:
        head = [verdict_heading(gate), summary_line(counts)]
    if record.changed is not None:  # in the head: what was (not) evaluated is never dropped
        head.append(f"> {inline(record.changed.line())}")
    if wiring := FakeShare.of(record).sentence():  # in the head, so never dropped to fit
        head.append(f"> ⚠️ {inline(wiring)}")
    if replayed := ReplayShare.of(record).line(len(record.outcomes)):  # in the head too
        head.append(f"> ⏪ {inline(replayed)}")
    head.extend(f"> ♻️ {inline(line)}" for line in ReuseShare.of(record).lines(len(record.outcomes)))
    if account := CassetteAccount.of(record):  # what a recording run wrote, and where
        head.append(f"> ⏺️ {inline(account.lines()[0])}")
    blocks = [
        block
        for block in (
            totals_block(record),
            savings_block(record, inline),
            per_skill_block(record),
            arms_block(record, inline) if several(record) else delta_block(record, inline),
            multiplicity_block(record, inline),
            matrix_block(record, inline),
            confusion_block(record.figures.triggering, inline),
            failures_block(record, full_output or record.full_output),
            not_run_block(record),
            skipped_block(record),
            "\n\n".join(f"<sub>{inline(line)}</sub>" for line in product_lines(record)),
            scripts_block(record),  # last, so the first dropped to fit
        )
        if block
    ]
    reasons = list(gate.reasons) if not gate.passed else []
    title = ABORTED_TITLE if record.aborted is not None else GATE_FAILED_TITLE
    # One character in, at most one out: the fitted length still holds.
    return printable(fit(head, reasons, blocks, max_chars, title=title))


def fit(
    head: list[str],
    reasons: list[str],
    blocks: list[str],
    max_chars: int | None,
    *,
    title: str = GATE_FAILED_TITLE,
) -> str:
    """The first variant that fits, from most to least complete.

    The order puts what a reviewer needs first (verdict, then why) last in line
    for removal.
    """
    full = _join([*head, *_gate_section(reasons, title=title), *blocks])
    if max_chars is None or len(full) <= max_chars:
        return full
    for keep in range(len(blocks) - 1, -1, -1):
        gate_part = _gate_section(reasons, title=title)
        text = _join([*head, *gate_part, *blocks[:keep], TRUNCATED_NOTE])
        if len(text) <= max_chars:
            return text
    text = _join([*head, TRUNCATED_NOTE])
    for shown in range(len(reasons) - 1, -1, -1):
        gate_part = _gate_section(reasons[:shown], hidden=len(reasons) - shown, title=title)
        text = _join([*head, *gate_part, TRUNCATED_NOTE])
        if len(text) <= max_chars:
            return text
    return text[:max_chars]


def verdict_heading(gate: GateResult) -> str:
    return "## skill-lens — ✅ gate passed" if gate.passed else "## skill-lens — ❌ gate failed"


def summary_line(counts: RunFigures) -> str:
    not_run = f" · {counts.not_run} not run" if counts.not_run else ""
    return (
        f"**{counts.passed}/{counts.total} passed** · {counts.failed} failed"
        f" · {counts.errored} errored{not_run} · "
        + (f"pass rate {counts.pass_rate:.0%}" if counts.total else "no case ran: no pass rate")
    )


def _gate_section(
    reasons: Sequence[str], hidden: int = 0, *, title: str = GATE_FAILED_TITLE
) -> list[str]:
    if not reasons and not hidden:
        return []
    bullets = [f"- {inline(r)}" for r in reasons]
    if hidden:
        bullets.append(f"- _+{hidden} more reason(s) — see the JSON report._")
    return [title, "\n".join(bullets)]


def totals_block(record: RunRecord) -> str | None:
    """Only what was spent or measured; nothing at all for a fake-only run.

    Every cell is our own text, but for where a cost came from (a URL, a runner's words),
    which is escaped.
    """
    t = Totals.of(record)
    rows: list[tuple[str, str]] = []
    if t.tokens:
        rows.append(("Tokens", f"{t.tokens:,}"))
    if t.cost_usd or t.cost_unpriced:
        rows.append(("Cost", f"${t.cost_usd:.4f}" if t.cost_usd else "not priced"))
    if t.cost_unpriced:
        rows.append(("Cost note", f"some costs not priced; {COST_NOTE}"))
    rows += [("Cost source", inline(s)) for s in t.price_sources if s != NOT_PRICED]
    if t.judge_cost_usd or t.judge_unpriced:
        rows.append(
            ("Judge overhead", f"${t.judge_cost_usd:.4f}" if t.judge_cost_usd else "not priced")
        )
    if t.judge_unpriced:
        rows.append(("Judge overhead note", f"some judge costs not priced; {JUDGE_NOTE}"))
    rows += [("Judge cost source", inline(s)) for s in t.judge_price_sources if s != NOT_PRICED]
    if (ceiling := record.spend_ceiling) is not None:
        rows.append(
            ("Spend ceiling", f"{usd(ceiling.max_spend_usd)} (${ceiling.spent_usd:.4f} recorded)")
        )
    if t.latency_ms:
        rows.append(("Latency", format_latency(t.latency_ms)))
    if t.baseline_errored:
        rows.append(("Baseline errored", str(t.baseline_errored)))
    if not rows:
        return None
    return "\n".join(["| Metric | Value |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


def per_skill_block(record: RunRecord) -> str | None:
    candidates = record.candidates
    if not candidates:
        return None
    lines = [
        "### Per skill",
        "",
        "| Skill | Pass rate | Passed | Failed | Errored |",
        "|---|---|---|---|---|",
    ]
    for skill, rate in record.figures.pass_rate_by_skill.items():
        mine = [o.status for o in candidates if o.skill_name == skill]
        counts = " | ".join(str(mine.count(s)) for s in ("passed", "failed", "errored"))
        lines.append(f"| {inline(skill)} | {rate:.0%} | {counts} |")
    return "\n".join(lines)


def failures_block(record: RunRecord, full_output: bool) -> str | None:
    shown = [o for o in record.candidates if o.status != "passed"]
    if not shown:
        return None
    failed = sum(o.status == "failed" for o in shown)
    errored = len(shown) - failed
    if failed and errored:
        title = f"Failures and errors ({failed} failed, {errored} errored)"
    else:
        title = f"Failures ({failed})" if failed else f"Errors ({errored})"
    repeats = repeat_count(record)
    entries = [failure_entry(o, build_excerpt(o, full_output=full_output), repeats) for o in shown]
    return _details(title, "\n\n".join(entries))


def failure_entry(outcome: Outcome, excerpt: Excerpt, repeats: int) -> str:
    case = outcome.case_name
    if repeats > 1:
        case += f" [run {outcome.repeat_index + 1}/{repeats}]"
    replayed = replay_word(outcome)
    recorded = f", recorded {outcome.recorded_at}" if replayed and outcome.recorded_at else ""
    if outcome.reused_from is not None:
        recorded = f", recorded {origin_words(outcome.reused_from)}"
    parts = [
        f"**{code(outcome.skill_name)} :: {code(case)}** ({inline(outcome.runner)})"
        f" — {outcome.status}" + (f" ({replayed}{recorded})" if replayed else "")
    ]
    if excerpt.findings:
        parts.append("\n".join(f"{'  ' * f.depth}- {inline(f.text)}" for f in excerpt.findings))
    if excerpt.error:
        parts += ["Error:", fence(excerpt.error)]
    if outcome.skill_loaded is False:
        why = outcome.load_note or "read from the trace"
        parts.append(f"The skill never reached the model in this run: {inline(why)}.")
    if outcome.skill_triggered_by_session is not None:
        parts.append(
            f"Skill triggered by session: {by_session(outcome.skill_triggered_by_session)}"
        )
    parts += ["Output:", fence(excerpt.output)] if excerpt.output else ["Output: (empty)"]
    if excerpt.cut_note:
        parts.append(inline(excerpt.cut_note))
    if excerpt.tool_calls:
        parts += [
            "Tool calls:",
            fence("\n".join(_present(*excerpt.tool_calls, excerpt.calls_note))),
        ]
    if excerpt.failed_hooks:
        parts += [
            "Failed hooks:",
            fence("\n".join(_present(*excerpt.failed_hooks, excerpt.hooks_note))),
        ]
    return "\n\n".join(parts)


def by_session(answers: Sequence[bool | None]) -> str:
    """Each session's own trigger answer: ``1 yes, 2 no`` (``not reported`` when None)."""
    words = {True: "yes", False: "no", None: "not reported"}
    return ", ".join(f"{n} {words[seen]}" for n, seen in enumerate(answers, 1))


def not_run_block(record: RunRecord) -> str | None:
    if not record.not_run:
        return None
    repeats = repeat_count(record)
    bullets = []
    for item in record.not_run:
        reason = item.get("reason")
        why = f" — {inline(reason)}" if isinstance(reason, str) and reason else ""
        bullets.append(f"- {inline(item_label(item, repeats))}{why}")
    return _details(f"Not run ({len(record.not_run)})", "\n".join(bullets))


def skipped_block(record: RunRecord) -> str | None:
    lines = [*not_loaded_lines(record), *skip_lines(record)]
    return "\n\n".join(f"<sub>{inline(line)}</sub>" for line in lines) or None


def scripts_block(record: RunRecord) -> str | None:
    """``scripts: on, sandbox: ...``, as the console says it."""
    lines = script_lines(record)
    return "\n\n".join(f"<sub>{inline(line)}</sub>" for line in lines) or None


def inline(text: str) -> str:
    """Untrusted text made safe for one line of Markdown: escaped, newlines collapsed."""
    text = _SPECIAL.sub(r"\\\1", _NEWLINES.sub(" ", text))
    # A leading "-", "+" or "1." would start a list (or a heading underline).
    return _LINE_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", text)


def code(text: str) -> str:
    """A code span that no backtick inside ``text`` can close."""
    text = _NEWLINES.sub(" ", text)
    if not text:
        return "` `"
    ticks = "`" * (_longest_run(text, "`") + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" or (text[0] == text[-1] == " ") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fence(text: str) -> str:
    """A fenced block longer than any backtick run inside, so the text cannot end it."""
    ticks = "`" * max(3, _longest_run(text, "`") + 1)
    return f"{ticks}text\n{text}\n{ticks}"


def _longest_run(text: str, char: str) -> int:
    return max((len(run) for run in re.findall(f"{re.escape(char)}+", text)), default=0)


def _details(title: str, body: str) -> str:
    return f"<details><summary>{title}</summary>\n\n{body}\n\n</details>"


def _present(*items: str | None) -> list[str]:
    return [item for item in items if item]


def _join(parts: Sequence[str]) -> str:
    return "\n\n".join(parts) + "\n"
