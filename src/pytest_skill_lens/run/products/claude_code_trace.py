"""Claude Code's ``stream-json`` trace, read into a :class:`~..result.RunResult`.

One JSON object per line: a ``system``/``init`` event (the tools, the skills and
slash commands it found), ``assistant`` messages (the model's text and
``tool_use`` blocks), ``user`` messages (tool results, a loaded skill's text),
``system``/``hook_response`` events (with ``--include-hook-events``) and, last, a
``result`` event: the answer, ``is_error``, ``total_cost_usd`` and ``usage``.

The reader is pure (bytes and how the process ended in, a result out) and total:
garbage lines, a cut last line, a huge or deeply nested object, a wrong type in
any field are survived. A figure is kept only when it is a measurement; anything
else is a note naming how the trace ended, never a 0 that reads as free. A case's skill
its Skill tool refused, or a ``/<name>`` it answered itself without the model, errors
the run with the product's words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...wellformed import MAX_COUNT
from ..result import Hook, RunResult, ToolCall
from .claude_code import PRESET, PRODUCT
from .trace import (
    Ending,
    Expect,
    call_arguments,
    declared_names,
    json_events,
    load_failed,
    said,
    text_of,
    triggered_skills,
)

assert PRESET.bridge is not None
MCP_PREFIX = PRESET.bridge.prefix  # mcp__skill-lens__<name>: a bridge tool
SKILL_TOOL = "Skill"
_ERROR_TAGS = re.compile(r"</?tool_use_error>")


@dataclass
class _Read:
    events: list[dict[str, Any]] = field(default_factory=list)
    init: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    calls: list[ToolCall] = field(default_factory=list)
    call_ids: set[str] = field(default_factory=set)
    hooks: list[Hook] = field(default_factory=list)
    model: str = ""
    launched: set[str] = field(default_factory=set)  # skills the Skill tool loaded
    skill_calls: dict[str, str] = field(default_factory=dict)  # tool_use id -> skill asked for
    refused: dict[str, str] = field(default_factory=dict)  # skill -> the Skill tool's error


def read_trace(data: bytes, ending: Ending, expect: Expect) -> RunResult:
    """The run ``data`` (the captured stdout) describes, as every runner reports one."""
    read = _read(data, declared_names(MCP_PREFIX, expect.tools))
    figures = _figures(read.result, ending)
    error = _error(read.result, ending) or _refused(read, expect)
    model = read.model or text_of(read.init, "model")
    if error is not None:
        # An errored run keeps what it spent and its model; its hooks only when the
        # trace reached its result event (a cut trace reports none, as no calls).
        return RunResult(
            model=model,
            transcript=read.events,
            error=error,
            hooks=read.hooks if read.result is not None else [],
            **figures,
        )
    assert read.result is not None  # no result event is an error above
    answer = read.result.get("result")
    triggered = _triggered(read.calls, expect)
    return RunResult(
        output=answer if isinstance(answer, str) else "",
        tool_calls=read.calls,
        model=model,
        transcript=read.events,
        skill_triggered=triggered,
        skills_triggered=triggered_skills(expect, map(_asked, read.calls)),
        hooks=read.hooks,
        skill_loaded=_loaded(read, expect),
        **figures,
    )


# -- reading the lines -----------------------------------------------------------------


def _read(data: bytes, mapped: Mapping[str, str]) -> _Read:
    read = _Read()
    for event in json_events(data):
        read.events.append(event)
        kind, subtype = event.get("type"), event.get("subtype")
        if kind == "system" and subtype == "init" and read.init is None:
            read.init = event
        elif kind == "system" and subtype == "hook_response":
            hook = _hook(event)
            if hook is not None:
                read.hooks.append(hook)
        elif kind == "assistant":
            _assistant(read, event, mapped)
        elif kind == "user":
            _user(read, event)
        elif kind == "result":
            read.result = event  # the last one counts: it closes the run
    return read


def _assistant(read: _Read, event: Mapping[str, Any], mapped: Mapping[str, str]) -> None:
    message = event.get("message")
    if not isinstance(message, dict):
        return
    served = message.get("model")
    if isinstance(served, str) and served and not served.startswith("<"):
        read.model = served  # "<synthetic>" marks a message the product made up itself
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        name, block_id = block.get("name"), block.get("id")
        if not isinstance(name, str):
            continue
        if isinstance(block_id, str):
            if block_id in read.call_ids:
                continue  # a message streamed in parts repeats its blocks
            read.call_ids.add(block_id)
        # What the model requested, whether or not it ran; a bridge tool by its declared name.
        call = ToolCall(mapped.get(name, name), call_arguments(block.get("input")))
        read.calls.append(call)
        asked = _asked(call)
        if asked is not None and isinstance(block_id, str):
            read.skill_calls[block_id] = asked


def _user(read: _Read, event: Mapping[str, Any]) -> None:
    # The Skill tool's result names the skill it loaded; the skill's text follows it.
    result = event.get("tool_use_result")
    if isinstance(result, dict) and result.get("success") is True:
        name = result.get("commandName")
        if isinstance(name, str):
            read.launched.add(name)
    # A Skill call that failed: its tool_result block, is_error, in the product's words.
    message = event.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict) or block.get("is_error") is not True:
            continue
        asked = read.skill_calls.get(text_of(block, "tool_use_id"))
        if asked is not None:
            words = _block_text(block.get("content"))
            read.refused[asked] = _ERROR_TAGS.sub("", words).strip()


def _block_text(content: Any) -> str:
    """A tool_result block's content as text: a string, or its text parts joined."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return " ".join(text_of(part, "text") for part in parts if isinstance(part, dict))


def _hook(event: Mapping[str, Any]) -> Hook | None:
    """A ``hook_response`` as a :class:`Hook`; one without a string name or outcome is
    skipped (the transcript keeps it)."""
    name, outcome = event.get("hook_name"), event.get("outcome")
    if not isinstance(name, str) or not isinstance(outcome, str):
        return None
    code = event.get("exit_code")
    return Hook(
        name=name,
        event=text_of(event, "hook_event"),
        outcome=outcome,
        exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None,
        stdout=text_of(event, "stdout"),
        stderr=text_of(event, "stderr"),
    )


# -- the skill -------------------------------------------------------------------------


def _asked(call: ToolCall) -> str | None:
    """The skill a Skill tool call asks for (``/name`` read as ``name``), else ``None``."""
    if call.name != SKILL_TOOL:
        return None
    asked = call.arguments.get("skill", call.arguments.get("command"))
    return asked.strip().removeprefix("/") if isinstance(asked, str) else None


def _skill_calls(calls: Sequence[ToolCall], skill: str) -> list[ToolCall]:
    """The model's requests for the Skill tool naming ``skill``."""
    return [call for call in calls if _asked(call) == skill]


def _refused(read: _Read, expect: Expect) -> str | None:
    """The error for a run in which Claude Code was given the case's skill and failed to
    load it: its Skill tool refused it (``disable-model-invocation``), or a loaded case's
    ``/<name>`` was answered by the product itself as a local command, never the model
    (``user-invocable: false``: then it is not among its slash commands). ``None``
    otherwise."""
    skill = expect.skill
    if skill is None or skill in read.launched:
        return None
    if skill in read.refused:
        return load_failed(
            PRODUCT, skill, f"its {SKILL_TOOL} tool said {said(read.refused[skill])}"
        )
    local = read.result is not None and "local_command" in read.result
    if expect.mode == "loaded" and local:
        answer = text_of(read.result, "result")
        return load_failed(
            PRODUCT, skill, f"it answered /{skill} itself, never the model: {said(answer)}"
        )
    return None


def _listed(read: _Read, skill: str) -> bool:
    commands = read.init.get("slash_commands") if read.init is not None else None
    return isinstance(commands, list) and skill in commands


def _triggered(calls: Sequence[ToolCall], expect: Expect) -> bool | None:
    """``mode: offered``: whether the model asked for the skill; ``None`` for a loaded case."""
    if expect.mode != "offered":
        return None
    return expect.skill is not None and bool(_skill_calls(calls, expect.skill))


def _loaded(read: _Read, expect: Expect) -> bool | None:
    """Whether the trace shows the skill's text reached the model; ``None``: no skill.

    Loaded: Claude Code expands ``/<name>`` into the skill's text exactly when its
    init event lists ``<name>`` among the slash commands (an unknown one reaches the
    model as typed) and the result is not a local command's (a skill the user may not
    invoke answers without the model). Offered: the Skill tool reported loading it.
    """
    if expect.skill is None:
        return None
    if expect.mode == "offered":
        return expect.skill in read.launched
    if read.init is None:
        return None
    local = read.result is not None and "local_command" in read.result
    return _listed(read, expect.skill) and not local


# -- figures and errors ----------------------------------------------------------------


def _count(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
        return value
    return None


def _usage(result: Mapping[str, Any]) -> tuple[int, int] | None:
    """(input incl. cache read and write, output), or ``None`` when not a measurement.

    ``modelUsage`` (per model, every model the run used) is read first: on a run that
    stopped with an error (``error_max_budget_usd``) ``usage`` says 0 while
    ``modelUsage`` and ``total_cost_usd`` still carry what was spent.
    """
    per_model = result.get("modelUsage")
    if isinstance(per_model, dict) and per_model:
        models = list(per_model.values())
        keys = ("inputTokens", "cacheReadInputTokens", "cacheCreationInputTokens")
        found = [_split(model, keys, "outputTokens") for model in models]
        if all(split is not None for split in found):
            return _total([split for split in found if split is not None])
    usage = result.get("usage")
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    split = _split(usage, keys, "output_tokens")
    return None if split is None else _total([split])


def _split(usage: Any, inputs: Sequence[str], output: str) -> tuple[int, int] | None:
    """One usage block's (input, output); the first input key and the output are required."""
    if not isinstance(usage, dict) or inputs[0] not in usage:
        return None
    parts = [_count(usage.get(key, 0)) for key in inputs]
    spent = _count(usage.get(output))
    if spent is None or None in parts:
        return None
    return sum(p for p in parts if p is not None), spent


def _total(splits: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    total = (sum(s[0] for s in splits), sum(s[1] for s in splits))
    return total if max(total) <= MAX_COUNT else None


def _cost(result: Mapping[str, Any]) -> float | None:
    cost = result.get("total_cost_usd")
    if isinstance(cost, bool) or not isinstance(cost, int | float):
        return None
    value = float(cost)
    return value if math.isfinite(value) and value >= 0 else None


def _how_it_ended(ending: Ending) -> str:
    """The trace's end, as the notes name it."""
    if ending.cut:
        return f"the {PRODUCT} trace was cut at max_output_bytes"
    if ending.exit_code is None:
        return f"{PRODUCT} timed out"
    return f"the {PRODUCT} trace ended (no result event, exit code {ending.exit_code})"


def _figures(result: Mapping[str, Any] | None, ending: Ending) -> dict[str, Any]:
    """Tokens, cost and their notes: measured from the result event, else a note."""
    if result is None:
        ended = _how_it_ended(ending)
        # The product ran and may have spent: the spend is unknown, not zero.
        return {
            "cost_note": f"{ended} before reporting cost; the spend is unknown",
            "usage_note": f"{ended} before reporting token usage",
        }
    figures: dict[str, Any] = {}
    usage = _usage(result)
    if usage is None:
        figures["usage_note"] = f"{PRODUCT}'s result event reported no token usage"
    else:
        figures["input_tokens"], figures["output_tokens"] = usage
    cost = _cost(result)
    if cost is None:
        figures["cost_note"] = f"{PRODUCT}'s result event carried no number in total_cost_usd"
    else:
        figures["cost_usd"] = cost
        figures["price_source"] = f"reported by the product: {PRODUCT}'s total_cost_usd"
    return figures


def _error(result: Mapping[str, Any] | None, ending: Ending) -> str | None:
    """Why the run is errored, or ``None``: cut, timed out, the product's own error
    (which wins over the exit code), no result event, a non-zero exit."""
    stopped = ending.stopped(PRODUCT)
    if stopped is not None:
        return stopped
    if result is not None and _reports_error(result):
        return f"{PRODUCT} reported an error: {_product_error(result)}"
    if result is None:
        return (
            f"the {PRODUCT} trace ended with no result event (exit code {ending.exit_code})"
            + ending.stderr_said()
        )
    if ending.exit_code != 0:
        return f"{PRODUCT} exited with code {ending.exit_code}" + ending.stderr_said()
    return None


def _reports_error(result: Mapping[str, Any]) -> bool:
    subtype = result.get("subtype")
    return result.get("is_error") is True or (
        isinstance(subtype, str) and subtype.startswith("error")
    )


def _product_error(result: Mapping[str, Any]) -> str:
    errors = result.get("errors")
    listed = [e for e in errors if isinstance(e, str)] if isinstance(errors, list) else []
    answer = result.get("result")
    message = answer if isinstance(answer, str) and answer.strip() else "; ".join(listed)
    subtype = result.get("subtype")
    kind = subtype if isinstance(subtype, str) and subtype != "success" else "is_error"
    return f"({kind}) {message[:1000]}" if message else f"({kind}) no message"
