"""OpenCode's JSONL trace (``opencode run --format json``), read into a RunResult.

One JSON object per line, each with a ``type`` and a ``part`` (measured against 1.18.33):
for every model request a ``step_start``, then the model's ``text`` (``part.text``) and
``tool_use`` events (``part.tool``, ``part.callID``, ``part.state`` with ``status``
``completed`` or ``error``, ``input``, ``output`` or ``error``), then a ``step_finish``
(``part.reason``: ``tool-calls`` while the loop goes on, ``stop`` at the answer;
``part.tokens`` and ``part.cost`` for that step). A failure is an ``error`` event
(``error.name``, ``error.data.message``) and exit code 1. There is no closing event: a
run ended when its last step finished for a reason other than ``tool-calls``.

A skill loads through OpenCode's ``skill`` tool: a ``tool_use`` with ``tool == "skill"``
naming it, ``completed`` when its text reached the model; ``error`` for the case's skill
(gone when asked for, or never listed) errors the run with the tool's words. Tokens are
per step and summed; ``cost`` is only OpenCode's arithmetic over the price table in its
configuration, and skill-lens gives it none, so a cost of 0 is no measurement and is
never reported as one:
the tokens are priced at genai-prices' list price of the model OpenCode was told
(``OPENCODE_MODEL``, else its default; :attr:`.trace.Expect.model`).

The reader is pure and total, as the other product readers are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...wellformed import MAX_COUNT
from ..models.price_source import NOT_PRICED
from ..models.pricing import ResponseUsage, total_spend
from ..result import RunResult, ToolCall
from .opencode import PRESET, PRODUCT
from .trace import (
    Ending,
    Expect,
    call_arguments,
    declared_names,
    json_events,
    load_failed,
    loaded_by_call,
    said,
    triggered_skills,
)

assert PRESET.bridge is not None
MCP_PREFIX = PRESET.bridge.prefix  # skill-lens_<name>: a bridge tool
SKILL_TOOL = "skill"
_TOKEN_KEYS = ("input", "output", "reasoning")

__all__ = ["PRODUCT", "Ending", "Expect", "read_trace"]


@dataclass
class _Read:
    events: list[dict[str, Any]] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    call_ids: set[str] = field(default_factory=set)
    asked: set[str] = field(default_factory=set)  # skills the model asked the skill tool for
    loaded: set[str] = field(default_factory=set)  # skills whose text reached the model
    failed: dict[str, str] = field(default_factory=dict)  # skill -> the tool's error
    step_text: list[str] = field(default_factory=list)  # the current step's text
    output: str = ""
    last_reason: str | None = None  # the last step_finish's reason
    steps: int = 0
    # (input, output, cache read, cache written); None once one is unreadable
    tokens: tuple[int, int, int, int] | None = (0, 0, 0, 0)
    cost: float | None = 0.0
    error: str | None = None


def read_trace(data: bytes, ending: Ending, expect: Expect) -> RunResult:
    """The run ``data`` (the captured stdout) describes, as every runner reports one."""
    read = _read(data, declared_names(MCP_PREFIX, expect.tools))
    figures = _figures(read, ending, expect.model)
    error = _error(read, ending, expect)
    if error is not None:
        return RunResult(model=expect.model, transcript=read.events, error=error, **figures)
    loaded, why_not = _loaded(read, expect)
    return RunResult(
        output=read.output,
        tool_calls=read.calls,
        model=expect.model,
        transcript=read.events,
        skill_triggered=_triggered(read, expect),
        # read.asked keeps no order: the skills come in the order they were offered.
        skills_triggered=triggered_skills(expect, _offered_order(read.asked, expect)),
        skill_loaded=loaded,
        load_note=why_not,
        **figures,
    )


# -- reading the lines -----------------------------------------------------------------


def _read(data: bytes, mapped: Mapping[str, str]) -> _Read:
    read = _Read()
    for event in json_events(data):
        read.events.append(event)
        kind, part = event.get("type"), event.get("part")
        part = part if isinstance(part, dict) else {}
        if kind == "step_start":
            read.step_text = []
        elif kind == "text" and isinstance(part.get("text"), str):
            read.step_text.append(part["text"])
        elif kind == "tool_use":
            _tool(read, part, mapped)
        elif kind == "step_finish":
            _finished(read, part)
        elif kind == "error":
            read.error = _error_text(event.get("error"))
    return read


def _tool(read: _Read, part: Mapping[str, Any], mapped: Mapping[str, str]) -> None:
    name, call_id = part.get("tool"), part.get("callID")
    if not isinstance(name, str):
        return
    if isinstance(call_id, str):
        if call_id in read.call_ids:
            return
        read.call_ids.add(call_id)
    state = part.get("state")
    state = state if isinstance(state, dict) else {}
    arguments = call_arguments(state.get("input"))
    # What the model requested, whether or not it ran; a bridge tool by its declared name.
    read.calls.append(ToolCall(mapped.get(name, name), arguments))
    asked = arguments.get("name")
    if name != SKILL_TOOL or not isinstance(asked, str):
        return
    read.asked.add(asked)
    if state.get("status") == "completed":
        read.loaded.add(asked)
    elif state.get("status") == "error":
        words = state.get("error")
        read.failed[asked] = words if isinstance(words, str) else ""


def _finished(read: _Read, part: Mapping[str, Any]) -> None:
    read.steps += 1
    reason = part.get("reason")
    read.last_reason = reason if isinstance(reason, str) else ""
    if read.step_text:
        read.output = "".join(read.step_text)  # the answer is the last step that said something
    read.tokens = _add_tokens(read.tokens, part.get("tokens"))
    read.cost = _add_cost(read.cost, part.get("cost"))


def _add_cost(total: float | None, cost: Any) -> float | None:
    """``total`` plus one step's cost; ``None`` once any step's is not a number."""
    if total is None or isinstance(cost, bool) or not isinstance(cost, int | float):
        return None
    value = float(cost)
    return total + value if math.isfinite(value) and value >= 0 else None


def _count(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
        return value
    return None


def _add_tokens(
    total: tuple[int, int, int, int] | None, tokens: Any
) -> tuple[int, int, int, int] | None:
    """``total`` plus one step's (input incl. the cache read and written, output incl.
    reasoning, the cache read, the cache written); ``None`` once any step's counts are
    not a measurement."""
    if total is None or not isinstance(tokens, dict):
        return None
    counts = [_count(tokens.get(key)) for key in _TOKEN_KEYS]
    cache = tokens.get("cache", {})
    cache = cache if isinstance(cache, dict) else {}
    cached = [_count(cache.get(key, 0)) for key in ("read", "write")]
    if None in counts or None in cached:
        return None
    spent_in, spent_out, reasoning = (c or 0 for c in counts)
    read, written = (c or 0 for c in cached)
    added = (
        total[0] + spent_in + read + written,
        total[1] + spent_out + reasoning,
        total[2] + read,
        total[3] + written,
    )
    return added if max(added) <= MAX_COUNT else None


def _error_text(error: Any) -> str:
    if not isinstance(error, dict):
        return "no message"
    name, data = error.get("name"), error.get("data")
    message = data.get("message") if isinstance(data, dict) else None
    said = message if isinstance(message, str) and message.strip() else "no message"
    return f"({name}) {said}" if isinstance(name, str) and name else said


# -- the skill -------------------------------------------------------------------------


def _offered_order(asked: set[str], expect: Expect) -> list[str]:
    return [name for name in (expect.skill, *expect.neighbours) if name in asked]


def _triggered(read: _Read, expect: Expect) -> bool | None:
    """``mode: offered``: whether the model asked for the skill; ``None`` for a loaded case."""
    if expect.mode != "offered":
        return None
    return expect.skill is not None and expect.skill in read.asked


def _loaded(read: _Read, expect: Expect) -> tuple[bool | None, str | None]:
    """Whether the trace shows the skill's text reached the model (its ``skill`` tool
    completed for it), and why not. ``None``: the arm has no skill."""
    return loaded_by_call(
        expect,
        read.loaded,
        lambda skill: (
            f"the skill never loaded: {PRODUCT} run does not expand /{skill} (the task reached "
            "the model as typed), and the model did not load it with its skill tool"
        ),
    )


# -- figures and errors ----------------------------------------------------------------


def _how_it_ended(ending: Ending) -> str:
    if ending.cut:
        return f"the {PRODUCT} trace was cut at max_output_bytes"
    if ending.exit_code is None:
        return f"{PRODUCT} timed out"
    return f"the {PRODUCT} trace ended (exit code {ending.exit_code})"


def _figures(read: _Read, ending: Ending, model: str) -> dict[str, Any]:
    """Tokens summed over the steps, else a note; the cost OpenCode's own when it priced
    them (a price table a wrapper gave it), else the told ``model``'s list price."""
    figures: dict[str, Any] = {}
    complete = not ending.cut and ending.exit_code is not None
    if read.tokens is None:
        figures["usage_note"] = f"a {PRODUCT} step_finish event carried no readable token counts"
    elif read.steps == 0:
        figures["usage_note"] = f"{_how_it_ended(ending)} before any step reported token usage"
    else:
        figures["input_tokens"], figures["output_tokens"] = read.tokens[:2]
        if not complete:
            figures["usage_note"] = (
                f"{_how_it_ended(ending)}: the tokens are those of the steps that finished"
            )
    if read.cost is not None and read.cost > 0:
        figures["cost_usd"] = read.cost
        figures["price_source"] = (
            f"reported by {PRODUCT}: the sum of its step_finish costs, its own arithmetic "
            "over the price table in its configuration, not a measured bill"
        )
        return figures
    return {**figures, **_list_priced(read, model)}


def _list_priced(read: _Read, model: str) -> dict[str, Any]:
    """The tokens at the list price of the model OpenCode was told, or why not."""
    own = (
        f"{PRODUCT} reports no cost of its own (it prices tokens only from a price table in "
        "its configuration, and skill-lens gives it none)"
    )
    if read.tokens is None or read.steps == 0 or not any(read.tokens[:2]):
        return {"price_source": NOT_PRICED, "cost_note": "not priced: no token usage to price"}
    if not model:
        why = "and skill-lens knows no model it was told (a [runners.opencode] command of "
        why += "your own configures it)"
        return {"price_source": NOT_PRICED, "cost_note": f"not priced: {own}, {why}"}
    spent_in, spent_out, cache_read, cache_written = read.tokens
    usage = ResponseUsage(model, spent_in, spent_out, cache_read, cache_written)
    spend = total_spend(f"{PRESET.priced_as}:{model}", [usage], "")
    if spend.cost_note is not None or spend.price_source in (None, NOT_PRICED):
        said = spend.cost_note or "no price is known"
        return {"price_source": NOT_PRICED, "cost_note": f"not priced: {own}, and {said}"}
    return {"cost_usd": spend.cost_usd, "price_source": spend.price_source}


def _error(read: _Read, ending: Ending, expect: Expect) -> str | None:
    """Why the run is errored, or ``None``: cut, timed out, the product's own error, the
    case's skill its skill tool failed to load, no finished answer, a non-zero exit."""
    stopped = ending.stopped(PRODUCT)
    if stopped is not None:
        return stopped
    if read.error is not None:
        return f"{PRODUCT} reported an error: {read.error[:1000]}"
    skill = expect.skill
    if skill is not None and skill in read.failed and skill not in read.loaded:
        # Listed and then unreadable, or never listed (a SKILL.md it did not accept: its
        # skill tool says "not found"): either way the model never had the skill.
        return load_failed(PRODUCT, skill, f"its {SKILL_TOOL} tool said {said(read.failed[skill])}")
    if read.last_reason is None or read.last_reason == "tool-calls":
        ended = "no step finished" if read.last_reason is None else "its last step asked for tools"
        return (
            f"the {PRODUCT} trace ended with no answer ({ended}; exit code {ending.exit_code})"
            + ending.stderr_said()
        )
    if ending.exit_code != 0:
        return f"{PRODUCT} exited with code {ending.exit_code}" + ending.stderr_said()
    return None
