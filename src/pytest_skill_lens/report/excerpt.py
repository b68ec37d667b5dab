"""The failure excerpt: what a non-passing outcome shows, computed one way for every report.

The console, JUnit (through the pytest failure text) and Markdown all render an
:class:`Excerpt`, so they can never disagree about what was cut or why a case
failed. Reporters show it only for non-passing candidate outcomes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..matching import json_head
from ..perform.outcome import Outcome
from ..run.result import ToolCall

OUTPUT_LIMIT = 500
CALL_LIMIT = 20
ARGUMENT_LIMIT = 80
HOOK_LIMIT = 10
STREAM_LIMIT = 200
FULL_OUTPUT_FLAG = "--skill-lens-full-output"
ELLIPSIS = "…"

# Control characters other than tab and newline can move the cursor or recolour a
# terminal; model output is untrusted, so they are shown escaped.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Finding:
    """One line of "why": an evaluator's detail, or a failed check (depth 1)."""

    text: str
    depth: int = 0


@dataclass(frozen=True)
class Excerpt:
    error: str | None  # the run's own error; shown before anything else
    findings: tuple[Finding, ...]
    output: str  # cut and newline-normalised; "" when there was nothing to show
    output_more: int  # characters cut from the raw output
    tool_calls: tuple[str, ...]
    calls_more: int
    failed_hooks: tuple[str, ...]
    hooks_more: int

    @property
    def cut_note(self) -> str | None:
        if not self.output_more:
            return None
        return f"… ({self.output_more:,} more characters; {FULL_OUTPUT_FLAG} prints them)"

    @property
    def calls_note(self) -> str | None:
        return f"… +{self.calls_more} more calls" if self.calls_more else None

    @property
    def hooks_note(self) -> str | None:
        return f"… +{self.hooks_more} more failed hooks" if self.hooks_more else None


def build_excerpt(outcome: Outcome, *, full_output: bool = False) -> Excerpt:
    output, more = cut_output(outcome.output, full_output)
    calls = outcome.tool_calls[:CALL_LIMIT]
    failed = [h for h in outcome.hooks if h.get("outcome") != "success"]
    shown_hooks = failed[:HOOK_LIMIT]
    return Excerpt(
        error=outcome.error or None,
        findings=tuple(findings(outcome)),
        output=output,
        output_more=more,
        tool_calls=tuple(render_call(c) for c in calls),
        calls_more=len(outcome.tool_calls) - len(calls),
        failed_hooks=tuple(render_hook(h, full_output) for h in shown_hooks),
        hooks_more=len(failed) - len(shown_hooks),
    )


def findings(outcome: Outcome) -> list[Finding]:
    """The failing evaluators, each followed by its failed checks.

    For an errored outcome the evaluators that errored come first. When there is
    nothing to show and no run error either, one line says so.
    """
    errored = outcome.status == "errored"
    failing = [s for s in outcome.scores if not s.passed or s.errored]
    failing.sort(key=lambda s: not (errored and s.errored))  # stable: keeps score order
    found: list[Finding] = []
    for score in failing:
        found.append(Finding(f"{score.evaluator}: {score.detail}"))
        found += [
            Finding(f"{c.id}: {c.evidence or 'no evidence given'}", depth=1)
            for c in score.checks
            if not c.passed
        ]
    if not found and not outcome.error and outcome.status != "passed":
        text = "no detail was reported" if errored else "no failing evaluator reported a detail"
        found.append(Finding(text))
    return found


def cut_output(raw: str, full_output: bool) -> tuple[str, int]:
    """The output to show and how many raw characters were cut.

    The count is taken on the raw text, before newlines are normalised, so it
    matches what the JSON report holds.
    """
    more = 0 if full_output else max(0, len(raw) - OUTPUT_LIMIT)
    shown = raw if full_output else raw[:OUTPUT_LIMIT]
    return shown.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n"), more


def render_call(call: ToolCall) -> str:
    """``name(arg=<json>, ...)`` in the order the agent sent the arguments."""
    args = ", ".join(f"{key}={_json_cut(value)}" for key, value in call.arguments.items())
    return f"{call.name}({args})"


def _json_cut(value: Any) -> str:
    # Bounded: an argument can be a value that is small in memory and endless as text.
    text, whole = json_head(value, ARGUMENT_LIMIT, sort_keys=False)
    return text if whole else text + ELLIPSIS


def render_hook(hook: Mapping[str, Any], full_output: bool) -> str:
    """``{name} {outcome}[ (exit code N)]: stderr="..." stdout="..."``."""
    code = hook.get("exit_code")
    head = f"{hook.get('name', '?')} {hook.get('outcome', '?')}"
    if code is not None:
        head += f" (exit code {code})"
    streams = " ".join(
        f"{name}={_stream(str(hook.get(name) or ''), full_output)}" for name in ("stderr", "stdout")
    )
    return f"{head}: {streams}"


def _stream(text: str, full_output: bool) -> str:
    if full_output or len(text) <= STREAM_LIMIT:
        return json.dumps(text, ensure_ascii=False)
    more = len(text) - STREAM_LIMIT
    return f"{json.dumps(text[:STREAM_LIMIT], ensure_ascii=False)} … ({more:,} more characters)"


def printable(text: str) -> str:
    """``text`` with terminal control characters shown as escapes."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def failure_lines(outcome: Outcome, full_output: bool) -> list[str]:
    """The plain-text failure report of one outcome (pytest's failure text, hence JUnit's)."""
    lines = excerpt_lines(build_excerpt(outcome, full_output=full_output))
    if outcome.skill_loaded is False:
        why = outcome.load_note or "the trace shows the skill never reached the model"
        lines.insert(0, f"skill never loaded: {why}")
    return lines


def excerpt_lines(excerpt: Excerpt, indent: str = "  ") -> list[str]:
    """The excerpt as plain lines; a multi-line value continues one indent deeper."""
    lines = [f"error: {excerpt.error}"] if excerpt.error else []
    lines += [indent * f.depth + f.text for f in excerpt.findings]
    lines.append(f"output: {excerpt.output or '(empty)'}")
    _block(lines, None, [excerpt.cut_note], indent)
    _block(lines, "tool calls:", [*excerpt.tool_calls, excerpt.calls_note], indent)
    _block(lines, "failed hooks:", [*excerpt.failed_hooks, excerpt.hooks_note], indent)
    return [printable(part) for line in lines for part in _continued(line, indent)]


def _block(lines: list[str], title: str | None, items: Sequence[str | None], indent: str) -> None:
    present = [item for item in items if item]
    if present and title:
        lines.append(title)
    lines += [indent + item for item in present]


def _continued(line: str, indent: str) -> list[str]:
    first, *rest = line.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lead = " " * (len(first) - len(first.lstrip(" "))) + indent
    return [first, *(lead + part if part else "" for part in rest)]
