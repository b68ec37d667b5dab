"""Copilot CLI's JSONL trace (``--output-format json``), read into a :class:`~..result.RunResult`.

One JSON object per line, each with a ``type`` and its ``data``: ``session.skills_loaded``
(the skills it found), ``user.message``, ``assistant.message`` (the model's text and its
``toolRequests``), ``tool.execution_complete`` (whether a call, the ``skill`` tool's
included, succeeded), ``skill.invoked`` (a slash invocation's load), ``session.error``
(the product's own failure) and, last, a ``result`` event: ``exitCode`` and
``usage.premiumRequests``. The trace carries no token counts (verified against 1.0.102);
they come from the ``--usage-output-file`` JSON written at exit, or from a
``session.shutdown`` event where a version still writes one, both ``modelMetrics``.

The reader is pure and total, as the Claude Code one is: garbage lines, a cut line,
wrong types anywhere are survived, and a figure is kept only when it is a measurement.
Copilot bills per premium request, never in dollars, so the cost is always a note.
A case's skill that Copilot did not list (``session.skills_loaded``) or whose ``skill``
tool call failed errors the run with the product's words, never a verdict on the skill.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...wellformed import MAX_COUNT
from ..result import RunResult, ToolCall
from .copilot import PRESET, PRODUCT
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

assert PRESET.bridge is not None
MCP_PREFIX = PRESET.bridge.prefix  # how Copilot spells a tool of the bridge's server
SKILL_TOOL = "skill"

__all__ = ["PRODUCT", "Ending", "Expect", "read_trace"]


@dataclass
class _Read:
    events: list[dict[str, Any]] = field(default_factory=list)
    skills: list[str] | None = None  # the skills Copilot listed, when it said
    result: dict[str, Any] | None = None
    shutdown: dict[str, Any] | None = None
    error: str | None = None  # the last session.error's message
    calls: list[ToolCall] = field(default_factory=list)
    call_ids: set[str] = field(default_factory=set)
    skill_calls: dict[str, str] = field(default_factory=dict)  # toolCallId -> skill asked for
    launched: set[str] = field(default_factory=set)  # skills whose text reached the model
    refused: dict[str, str] = field(default_factory=dict)  # skill -> what its tool said
    output: str = ""
    model: str = ""


def read_trace(data: bytes, usage: bytes | None, ending: Ending, expect: Expect) -> RunResult:
    """The run ``data`` (the captured stdout) and ``usage`` (the usage file, if any) describe."""
    read = _read(data, declared_names(MCP_PREFIX, expect.tools))
    figures = _figures(read, usage, ending)
    error = _error(read, ending) or _refused(read, expect)
    if error is not None:
        return RunResult(model=read.model, transcript=read.events, error=error, **figures)
    loaded, why_not = _loaded(read, expect)
    return RunResult(
        output=read.output,
        tool_calls=read.calls,
        model=read.model,
        transcript=read.events,
        skill_triggered=_triggered(read, expect),
        # The skill tool's requests in order; a slash invocation's skill.invoked after them.
        skills_triggered=triggered_skills(expect, [*read.skill_calls.values(), *read.launched]),
        skill_loaded=loaded,
        load_note=why_not,
        **figures,
    )


# -- reading the lines -----------------------------------------------------------------


def _read(data: bytes, mapped: Mapping[str, str]) -> _Read:
    read = _Read()
    for event in json_events(data):
        read.events.append(event)
        kind, body = event.get("type"), event.get("data")
        body = body if isinstance(body, dict) else {}
        if kind == "session.skills_loaded":
            read.skills = _skill_names(body.get("skills"))
        elif kind == "assistant.message":
            _assistant(read, body, mapped)
        elif kind == "tool.execution_complete":
            _completed(read, body)
        elif kind == "skill.invoked" and text_of(body, "name"):
            read.launched.add(text_of(body, "name"))
        elif kind == "session.error":
            read.error = text_of(body, "message") or text_of(body, "errorType") or "no message"
        elif kind == "session.shutdown":
            read.shutdown = body
        elif kind == "result":
            read.result = event  # the last one counts: it closes the run
    return read


def _completed(read: _Read, body: Mapping[str, Any]) -> None:
    asked = read.skill_calls.get(text_of(body, "toolCallId"))
    if asked is None:
        return
    if body.get("success") is True:
        read.launched.add(asked)
        return
    error = body.get("error")
    read.refused[asked] = text_of(error, "message") if isinstance(error, dict) else ""


def _skill_names(skills: Any) -> list[str]:
    listed = skills if isinstance(skills, list) else []
    return [
        s["name"]
        for s in listed
        if isinstance(s, dict) and isinstance(s.get("name"), str) and s.get("enabled") is not False
    ]


def _assistant(read: _Read, body: Mapping[str, Any], mapped: Mapping[str, str]) -> None:
    model, content = body.get("model"), body.get("content")
    if isinstance(model, str) and model:
        read.model = model
    if isinstance(content, str) and content.strip():
        read.output = content  # the answer is the last message that says something
    requests = body.get("toolRequests")
    for request in requests if isinstance(requests, list) else []:
        if not isinstance(request, dict) or not isinstance(request.get("name"), str):
            continue
        name, call_id = request["name"], text_of(request, "toolCallId")
        if call_id:
            if call_id in read.call_ids:
                continue
            read.call_ids.add(call_id)
        arguments = call_arguments(request.get("arguments"))
        # What the model requested, whether or not it ran; a bridge tool by its declared name.
        read.calls.append(ToolCall(mapped.get(name, name), arguments))
        asked = arguments.get("skill")
        if name == SKILL_TOOL and isinstance(asked, str) and call_id:
            read.skill_calls[call_id] = asked.strip().removeprefix("/")


# -- the skill -------------------------------------------------------------------------


def _asked_for(read: _Read, skill: str) -> bool:
    """Whether the model requested the ``skill`` tool for ``skill``, or a slash invocation
    loaded it (Copilot emits ``skill.invoked`` only for the latter)."""
    return skill in read.skill_calls.values() or skill in read.launched


def _triggered(read: _Read, expect: Expect) -> bool | None:
    """``mode: offered``: whether the model asked for the skill; ``None`` for a loaded case."""
    if expect.mode != "offered":
        return None
    return expect.skill is not None and _asked_for(read, expect.skill)


def _loaded(read: _Read, expect: Expect) -> tuple[bool | None, str | None]:
    """Whether the trace shows the skill's text reached the model, and why not.

    Copilot loads a skill's text only through its ``skill`` tool (a successful call
    for it) or a slash invocation that emits ``skill.invoked``. In ``-p`` mode it
    does not expand ``/<name>`` (verified against 1.0.102: the text reaches the
    model as typed), so a loaded case loads only if the model then calls the tool
    itself. ``None``: the arm has no skill.
    """
    return loaded_by_call(
        expect,
        read.launched,
        lambda skill: (
            f"the skill never loaded: {PRODUCT} does not expand /{skill} in -p mode (the task "
            f"reached the model as typed), and the model did not load it with its skill tool"
        ),
    )


def _refused(read: _Read, expect: Expect) -> str | None:
    """The error for a run that never loaded the case's skill because Copilot did not
    list it (its ``session.skills_loaded`` left it out: a SKILL.md it did not accept,
    such as a description over 1,024 characters) or its ``skill`` tool failed for it (a
    skill the model may not invoke); ``None`` otherwise. Unlisted, an offered case could
    only be a negative control that passes for nothing."""
    skill = expect.skill
    if skill is None or skill in read.launched:
        return None
    tool = (
        f"its {SKILL_TOOL} tool said {said(read.refused[skill])}" if skill in read.refused else ""
    )
    if read.skills is not None and skill not in read.skills:
        listed = ", ".join(read.skills) or "none"
        return load_failed(
            PRODUCT,
            skill,
            f"it did not list it among the skills it found (it listed: {said(listed)})"
            + (f", and {tool}" if tool else ""),
        )
    return load_failed(PRODUCT, skill, tool) if tool else None


# -- figures and errors ----------------------------------------------------------------


def _count(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
        return value
    # Copilot's JSON numbers come from JavaScript: a whole count may be written 3.0.
    if isinstance(value, float) and value.is_integer() and 0 <= value <= MAX_COUNT:
        return int(value)
    return None


def _model_metrics(metrics: Any) -> tuple[int, int] | None:
    """(input, output) summed over ``modelMetrics``; ``None`` unless every model's is a count.

    Copilot's ``inputTokens`` already counts the cache reads and writes (verified
    against 1.0.102: 10 + 100 input, 10 read and 20 written report 140), so they are
    not added again. No model at all is a measured 0: the product's own final
    accounting says no call was billed (a refused request, say).
    """
    if not isinstance(metrics, dict):
        return None
    total_in = total_out = 0
    for metric in metrics.values():
        usage = metric.get("usage") if isinstance(metric, dict) else None
        if not isinstance(usage, dict):
            return None
        spent_in, spent_out = _count(usage.get("inputTokens")), _count(usage.get("outputTokens"))
        if spent_in is None or spent_out is None:
            return None
        total_in, total_out = total_in + spent_in, total_out + spent_out
    return (total_in, total_out) if max(total_in, total_out) <= MAX_COUNT else None


def _usage_file(usage: bytes | None) -> tuple[int, int] | None:
    if not usage:
        return None
    try:
        parsed = json.loads(usage)
    except (ValueError, RecursionError):
        return None
    return _model_metrics(parsed.get("modelMetrics")) if isinstance(parsed, dict) else None


def _how_it_ended(ending: Ending) -> str:
    if ending.cut:
        return f"the {PRODUCT} trace was cut at max_output_bytes"
    if ending.exit_code is None:
        return f"{PRODUCT} timed out"
    return f"the {PRODUCT} trace ended (no result event, exit code {ending.exit_code})"


def _premium_requests(read: _Read) -> int | None:
    usage = read.result.get("usage") if read.result is not None else None
    found = _count(usage.get("premiumRequests")) if isinstance(usage, dict) else None
    if found is None and read.shutdown is not None:
        found = _count(read.shutdown.get("totalPremiumRequests"))
    return found


def _figures(read: _Read, usage: bytes | None, ending: Ending) -> dict[str, Any]:
    """Tokens from the usage file (else the trace's shutdown event), else a note; the cost
    always a note: Copilot's unit is a premium request, which has no dollar price here."""
    tokens = _usage_file(usage)
    if tokens is None and read.shutdown is not None:
        tokens = _model_metrics(read.shutdown.get("modelMetrics"))
    figures: dict[str, Any] = {}
    if tokens is not None:
        figures["input_tokens"], figures["output_tokens"] = tokens
    elif read.result is None:
        figures["usage_note"] = f"{_how_it_ended(ending)} before reporting token usage"
    else:
        figures["usage_note"] = (
            f"{PRODUCT} reported no token usage (its trace carries none, and its "
            "--usage-output-file held no readable modelMetrics)"
        )
    requests = _premium_requests(read)
    billed = f"{PRODUCT} bills per premium request, not in dollars"
    if requests is not None:
        figures["cost_note"] = f"{billed}: this run used {requests} premium request(s)"
    elif read.result is None:
        figures["cost_note"] = (
            f"{billed}, and {_how_it_ended(ending)} before reporting the count: the "
            "premium-request count was never reported, so the spend is unknown"
        )
    else:
        figures["cost_note"] = f"{billed}, and its result event reported no premium-request count"
    return figures


def _error(read: _Read, ending: Ending) -> str | None:
    """Why the run is errored, or ``None``: cut, timed out, the product's own error
    (which wins over the exit code), no result event, a non-zero exit."""
    stopped = ending.stopped(PRODUCT)
    if stopped is not None:
        return stopped
    own = read.error or _shutdown_error(read.shutdown)
    if own is not None:
        return f"{PRODUCT} reported an error: {own[:1000]}"
    if read.result is None:
        return (
            f"the {PRODUCT} trace ended with no result event (exit code {ending.exit_code})"
            + ending.stderr_said()
        )
    reported = read.result.get("exitCode")
    if ending.exit_code != 0 or (_count(reported) or 0) != 0:
        code = ending.exit_code if ending.exit_code != 0 else reported
        return f"{PRODUCT} exited with code {code}" + ending.stderr_said()
    return None


def _shutdown_error(shutdown: Mapping[str, Any] | None) -> str | None:
    if shutdown is None or shutdown.get("shutdownType") != "error":
        return None
    return text_of(shutdown, "errorReason") or "the session shut down with an error"
