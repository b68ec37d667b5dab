"""Gemini CLI's ``stream-json`` trace, read into a :class:`~..result.RunResult`.

One JSON object per line (verified against 0.61.0): ``init`` (the model it was told),
``message`` events (the user's prompt; the model's text as ``delta`` pieces to be
joined), ``tool_use`` (``tool_name``, ``tool_id``, ``parameters``), ``tool_result``
(``tool_id``, ``status`` ``success`` or ``error``, ``output``), ``error`` (a warning,
or of severity ``error`` the reason a run failed) and, last, ``result``:
``status``, an ``error`` when it failed, and ``stats`` with the run's tokens summed and
per model (``models``, keyed by the name each response reported). There is no cost:
the tokens are priced here from genai-prices' list price for each model that answered.
An ``activate_skill`` that failed for the case's skill (gone when asked for, or never
listed: a SKILL.md Gemini CLI did not accept) errors the run with the tool's words.

The reader is pure and total, as the other products' are: garbage lines, a cut line,
wrong types anywhere are survived, and a figure is kept only when it is a measurement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...wellformed import MAX_COUNT
from ..models.pricing import ResponseUsage, total_spend
from ..result import RunResult, ToolCall
from .gemini_cli import MCP_PREFIX, PRODUCT, SKILL_TOOL
from .trace import (
    Ending,
    Expect,
    call_arguments,
    declared_names,
    json_events,
    load_failed,
    loaded_by_call,
    said,
    text_of,
    triggered_skills,
)

PROVIDER = "google"  # genai-prices' provider of every model Gemini CLI calls

__all__ = ["PRODUCT", "read_trace"]


@dataclass
class _Read:
    events: list[dict[str, Any]] = field(default_factory=list)
    model: str = ""  # the model it was told (init)
    result: dict[str, Any] | None = None
    calls: list[ToolCall] = field(default_factory=list)
    skill_calls: dict[str, str] = field(default_factory=dict)  # tool_id -> skill asked for
    launched: set[str] = field(default_factory=set)  # skills activate_skill loaded
    refused: dict[str, str] = field(default_factory=dict)  # skill -> the product's words
    turns: list[str] = field(default_factory=lambda: [""])  # the model's text between calls
    failed: str | None = None  # the last ``error`` event of severity error: its message


def read_trace(data: bytes, ending: Ending, expect: Expect, *, endpoint: str = "") -> RunResult:
    """The run ``data`` (the captured stdout) describes; ``endpoint`` is the base URL the
    product was pointed at (``""``: Google's own), for what the price source says."""
    read = _read(data, declared_names(MCP_PREFIX, expect.tools))
    figures = _figures(read, ending, endpoint)
    error = _error(read, ending) or _refused(read, expect)
    if error is not None:
        return RunResult(model=read.model, transcript=read.events, error=error, **figures)
    loaded, why_not = _loaded(read, expect)
    answer = next((turn for turn in reversed(read.turns) if turn.strip()), "")
    return RunResult(
        output=answer,
        tool_calls=read.calls,
        model=read.model,
        transcript=read.events,
        skill_triggered=_triggered(read, expect),
        skills_triggered=triggered_skills(expect, read.skill_calls.values()),
        skill_loaded=loaded,
        load_note=why_not,
        **figures,
    )


# -- reading the lines -----------------------------------------------------------------


def _read(data: bytes, mapped: Mapping[str, str]) -> _Read:
    read = _Read()
    seen: set[str] = set()
    for event in json_events(data):
        read.events.append(event)
        kind = event.get("type")
        if kind == "init" and not read.model:
            read.model = text_of(event, "model")
        elif kind == "message" and event.get("role") == "assistant":
            read.turns[-1] += text_of(event, "content")  # streamed in pieces: joined
        elif kind == "tool_use":
            _tool_use(read, event, mapped, seen)
        elif kind == "tool_result":
            _tool_result(read, event)
        elif kind == "error" and event.get("severity") == "error":
            # A stream the model broke (a safety block, no answer) or a turn limit: the
            # product says so here, and its result event then carries no message.
            read.failed = text_of(event, "message") or "no message"
        elif kind == "result":
            read.result = event  # the last one counts: it closes the run
    return read


def _tool_use(
    read: _Read, event: Mapping[str, Any], mapped: Mapping[str, str], seen: set[str]
) -> None:
    name, call_id = event.get("tool_name"), text_of(event, "tool_id")
    if not isinstance(name, str):
        return
    if call_id:
        if call_id in seen:
            return
        seen.add(call_id)
    arguments = call_arguments(event.get("parameters"))
    # What the model requested, whether or not it ran; a bridge tool by its declared name.
    read.calls.append(ToolCall(mapped.get(name, name), arguments))
    read.turns.append("")  # the answer is what the model says after its last call
    asked = arguments.get("name")
    if name == SKILL_TOOL and isinstance(asked, str) and call_id:
        read.skill_calls[call_id] = asked.strip()


def _tool_result(read: _Read, event: Mapping[str, Any]) -> None:
    asked = read.skill_calls.get(text_of(event, "tool_id"))
    if asked is None:
        return
    if event.get("status") == "success":
        read.launched.add(asked)
        return
    error = event.get("error")
    words = text_of(error, "message") if isinstance(error, dict) else ""
    read.refused[asked] = words or text_of(event, "output")


# -- the skill -------------------------------------------------------------------------


def _triggered(read: _Read, expect: Expect) -> bool | None:
    """``mode: offered``: whether the model asked to activate the skill; ``None`` if loaded."""
    if expect.mode != "offered":
        return None
    return expect.skill is not None and expect.skill in read.skill_calls.values()


def _loaded(read: _Read, expect: Expect) -> tuple[bool | None, str | None]:
    """Whether ``activate_skill`` put the skill's text in front of the model, and why not.

    Gemini CLI loads a skill's text only through that tool: in ``-p`` mode it does not
    expand ``/<name>`` (verified against 0.61.0: the text reaches the model as typed).
    ``None``: the arm has no skill.
    """
    return loaded_by_call(
        expect,
        read.launched,
        lambda skill: (
            f"the skill never loaded: the model did not call {SKILL_TOOL} for {skill!r} "
            f"({PRODUCT} does not expand /{skill} in -p mode)"
        ),
    )


def _refused(read: _Read, expect: Expect) -> str | None:
    """The error for a run whose ``activate_skill`` failed for the case's skill and never
    loaded it: the skill was gone when asked for (``Directory does not exist``), or not
    listed at all (a SKILL.md Gemini CLI did not accept: the name is not in the tool's
    enum). ``None`` otherwise."""
    skill = expect.skill
    if skill is None or skill in read.launched or skill not in read.refused:
        return None
    return load_failed(PRODUCT, skill, f"its {SKILL_TOOL} tool said {said(read.refused[skill])}")


# -- figures and errors ----------------------------------------------------------------


def _count(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
        return value
    return None


def _usages(stats: Any) -> list[ResponseUsage] | None:
    """Each model's tokens from ``stats.models``; ``None`` unless every one is a count.

    ``input_tokens`` counts the cached ones (``cached``); ``output_tokens`` leaves the
    model's thoughts out, which are billed as output, so the output is what the total
    holds beyond the input. A model with no tokens (the router's side call when its
    answer carried no usage) spent nothing and is left out.
    """
    models = stats.get("models") if isinstance(stats, dict) else None
    if not isinstance(models, dict):
        return None
    found = []
    for name, usage in models.items():
        if not isinstance(usage, dict):
            return None
        spent_in, spent_out = _count(usage.get("input_tokens")), _count(usage.get("output_tokens"))
        cached, total = _count(usage.get("cached", 0)), _count(usage.get("total_tokens"))
        if spent_in is None or spent_out is None or cached is None or cached > spent_in:
            return None
        if total is not None and total >= spent_in + spent_out:
            spent_out = total - spent_in  # thoughts included
        if spent_in or spent_out:
            found.append(ResponseUsage(name, spent_in, spent_out, cached))
    return found


def _how_it_ended(ending: Ending) -> str:
    if ending.cut:
        return f"the {PRODUCT} trace was cut at max_output_bytes"
    if ending.exit_code is None:
        return f"{PRODUCT} timed out"
    return f"the {PRODUCT} trace ended (no result event, exit code {ending.exit_code})"


def _figures(read: _Read, ending: Ending, endpoint: str) -> dict[str, Any]:
    """Tokens from the result event's stats, priced at each model's list price; a note
    when the trace never reported them or a price is not known."""
    if read.result is None:
        ended = _how_it_ended(ending)
        return {
            "cost_note": f"{ended} before reporting token usage; the spend is unknown",
            "usage_note": f"{ended} before reporting token usage",
        }
    usages = _usages(read.result.get("stats"))
    if usages is None:
        return {
            "usage_note": f"{PRODUCT}'s result event reported no token usage per model",
            "cost_note": f"{PRODUCT} reported no token usage to price; the spend is unknown",
        }
    figures: dict[str, Any] = {
        "input_tokens": sum(usage.input_tokens for usage in usages),
        "output_tokens": sum(usage.output_tokens for usage in usages),
    }
    if max(figures.values()) > MAX_COUNT:
        return {"usage_note": f"{PRODUCT}'s token counts are out of range"}
    if not usages:
        return figures  # the product says no model spent a token
    spend = total_spend(f"{PROVIDER}:{read.model}", usages, "", endpoint)
    figures["cost_usd"], figures["price_source"] = spend.cost_usd, spend.price_source
    if spend.cost_note is not None:
        figures["cost_note"] = f"{PRODUCT} reports no cost, and {spend.cost_note}"
    return figures


def _error(read: _Read, ending: Ending) -> str | None:
    """Why the run is errored, or ``None``: cut, timed out, the product's own error
    (which wins over the exit code), no result event, a non-zero exit."""
    stopped = ending.stopped(PRODUCT)
    if stopped is not None:
        return stopped
    if read.result is None:
        return (
            f"the {PRODUCT} trace ended with no result event (exit code {ending.exit_code})"
            + ending.stderr_said()
        )
    if read.result.get("status") != "success" or read.failed is not None:
        error = read.result.get("error")
        kind = text_of(error, "type") if isinstance(error, dict) else ""
        words = text_of(error, "message") if isinstance(error, dict) else ""
        status = text_of(read.result, "status") or "no status"
        said = words or read.failed or "no message"
        return (
            f"{PRODUCT} reported an error ({kind or status}): {said[:1000]}"
            f" (exit code {ending.exit_code})"
        )
    if ending.exit_code != 0:
        return f"{PRODUCT} exited with code {ending.exit_code}" + ending.stderr_said()
    return None
