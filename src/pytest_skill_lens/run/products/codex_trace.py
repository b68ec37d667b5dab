"""Codex CLI's ``exec --json`` trace (and its session log), read into a RunResult.

One JSON object per line: ``thread.started``, ``turn.started``, ``item.started`` /
``item.completed`` (``command_execution``, ``mcp_tool_call``, ``agent_message``, and an
``error`` item that is only a warning), then ``turn.completed`` with the turn's
``usage`` or ``turn.failed``; a fatal ``error`` event may precede it.

The skill: Codex has no skill tool. A shell command reading the skill's ``SKILL.md``
(with output, exit 0) is a load; a ``$<name>`` mention makes Codex add the file's text
as a ``<skill>`` user message, which only its session log shows (the left file). A skill
Codex refuses (a SKILL.md with no frontmatter, no ``description``) is never listed: it says
so only on stderr, ``ERROR … failed to load skill <path>/SKILL.md: <why>``, and such a run
is errored with those words unless the skill's text reached the model anyway. Usage
has no cost: the tokens are priced at the list price of the model Codex was told to use
(``-m`` in the table's ``args``), never as a figure Codex reported.

Pure and total, as every product reader: garbage lines, a cut trace, wrong types are
survived; a figure is kept only when it is a measurement.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...wellformed import MAX_COUNT
from ..models.endpoint import calls_chosen_endpoint
from ..models.price_source import NOT_PRICED, list_price
from ..models.pricing import price, price_table
from ..result import RunResult, ToolCall
from ..tools.bridge_spec import SERVER_NAME
from .codex import MCP_PREFIX, PRESET, PRODUCT
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

SHELL_TOOL = "exec_command"  # the name the model calls Codex's shell by
_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens")


@dataclass
class _Read:
    events: list[dict[str, Any]] = field(default_factory=list)
    items: dict[str, dict[str, Any]] = field(default_factory=dict)  # by id, first-seen order
    output: str = ""
    usage: list[Mapping[str, Any]] = field(default_factory=list)
    completed: bool = False
    failed: str | None = None
    error: str | None = None


def read_trace(data: bytes, left: bytes | None, ending: Ending, expect: Expect) -> RunResult:
    """The run ``data`` (stdout) describes; ``left`` is Codex's session log, if found."""
    read = _read(data)
    calls = _calls(read, declared_names(MCP_PREFIX, expect.tools))
    figures = _figures(read, ending, expect.model)
    error = _error(read, ending)
    if error is not None:
        return RunResult(model=expect.model, transcript=read.events, error=error, **figures)
    loaded, why_not = _loaded(read, left, expect)
    refused = _refused(ending.stderr, expect.skill) if loaded is not True else None
    if refused is not None:
        return RunResult(model=expect.model, transcript=read.events, error=refused, **figures)
    return RunResult(
        output=read.output,
        tool_calls=calls,
        model=expect.model,
        transcript=read.events,
        skill_triggered=_read_skill(read, expect.skill) if expect.mode == "offered" else None,
        skills_triggered=triggered_skills(expect, _skills_read(read, expect)),
        skill_loaded=loaded,
        load_note=why_not,
        **figures,
    )


def _read(data: bytes) -> _Read:
    read = _Read()
    for event in json_events(data):
        read.events.append(event)
        kind, item = event.get("type"), event.get("item")
        if kind in ("item.started", "item.completed", "item.updated") and isinstance(item, dict):
            key = text_of(item, "id") or f"#{len(read.items)}"
            read.items[key] = {**read.items.get(key, {}), **item}
            if item.get("type") == "agent_message" and text_of(item, "text").strip():
                read.output = text_of(item, "text")
        elif kind == "turn.completed":
            read.completed = True
            if isinstance(event.get("usage"), dict):
                read.usage.append(event["usage"])
        elif kind == "turn.failed":
            error = event.get("error")
            read.failed = text_of(error, "message") if isinstance(error, dict) else ""
        elif kind == "error":
            read.error = text_of(event, "message") or "no message"
    return read


def _calls(read: _Read, mapped: Mapping[str, str]) -> list[ToolCall]:
    """What the model requested, in order: a shell command as ``exec_command``, an MCP
    tool by its declared name when it is a bridge tool the case declared."""
    calls = []
    for item in read.items.values():
        kind = item.get("type")
        if kind == "command_execution":
            calls.append(ToolCall(SHELL_TOOL, {"command": text_of(item, "command")}))
        elif kind == "mcp_tool_call":
            server, tool = text_of(item, "server"), text_of(item, "tool")
            spelled = f"mcp__{server.replace('-', '_')}__{tool}"
            own = server == SERVER_NAME
            calls.append(
                ToolCall(
                    mapped.get(spelled, spelled) if own else spelled,
                    call_arguments(item.get("arguments")),
                )
            )
    return calls


# -- the skill -------------------------------------------------------------------------


def _reads(item: Mapping[str, Any], skill: str) -> bool:
    return item.get("type") == "command_execution" and f"{skill}/SKILL.md" in text_of(
        item, "command"
    )


def _read_skill(read: _Read, skill: str | None) -> bool:
    """Whether the model ran a command reading the skill's SKILL.md (``mode: offered``)."""
    return skill is not None and any(_reads(item, skill) for item in read.items.values())


def _skills_read(read: _Read, expect: Expect) -> list[str]:
    """The delivered skills whose SKILL.md a command read, in the order of the commands."""
    offered = [name for name in (expect.skill, *expect.neighbours) if name is not None]
    return [name for item in read.items.values() for name in offered if _reads(item, name)]


def _read_it_whole(read: _Read, skill: str) -> bool:
    return any(
        _reads(item, skill) and item.get("exit_code") == 0 and text_of(item, "aggregated_output")
        for item in read.items.values()
    )


def _mentioned(left: bytes | None, skill: str) -> bool | None:
    """Whether the session log holds the ``<skill>`` message Codex adds for ``$<skill>``;
    ``None`` when there is no session log to read."""
    if not left:
        return None
    opening = f"<skill>\n<name>{skill}</name>"
    for event in json_events(left):
        payload = event.get("payload")
        if event.get("type") != "response_item" or not isinstance(payload, dict):
            continue
        if payload.get("type") != "message" or payload.get("role") != "user":
            continue
        parts = payload.get("content")
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and text_of(part, "text").startswith(opening):
                return True
    return False


def _loaded(read: _Read, left: bytes | None, expect: Expect) -> tuple[bool | None, str | None]:
    skill = expect.skill
    if skill is None:
        return None, None
    if _read_it_whole(read, skill):
        return True, None
    if expect.mode == "offered":
        return False, None  # the measured negative: skill_triggered says it
    mentioned = _mentioned(left, skill)
    if mentioned:
        return True, None
    if mentioned is None:
        return None, (
            f"{PRODUCT} reports a ${skill} mention's load only in its session log, and "
            "there was none the harness could read (none was written, it was over the "
            "harness's cap, or product_sandbox = off kept it in your own ~/.codex)"
        )
    return False, (
        f"the skill never loaded: {PRODUCT} did not add {skill}'s SKILL.md for the "
        f"${skill} mention (its session log holds no <skill> message: is the skill listed?)"
    )


def _refused(stderr: str, skill: str | None) -> str | None:
    """The error for a skill Codex logged it failed to load (its stderr's last 2,000
    characters are what the harness keeps), or ``None``."""
    if skill is None:
        return None
    found = re.search(
        rf"failed to load skill (\S.*?/{re.escape(skill)}/SKILL\.md): (.*)$", stderr, re.MULTILINE
    )
    if found is None:
        return None
    return load_failed(
        PRODUCT, skill, f"its log says it could not load {found[1]}: {said(found[2])}"
    )


# -- figures and errors ----------------------------------------------------------------


def _tokens(read: _Read) -> tuple[int, int, int] | None:
    """(input with cached, cached, output with reasoning) summed over the turns."""
    if not read.usage:
        return None
    totals = [0, 0, 0]
    for usage in read.usage:
        for at, name in enumerate(_FIELDS):
            value = usage.get(name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                return None
            totals[at] += value
    if max(totals) > MAX_COUNT or totals[1] > totals[0]:
        return None
    return totals[0], totals[1], totals[2]


def _figures(read: _Read, ending: Ending, model: str) -> dict[str, Any]:
    tokens = _tokens(read)
    if tokens is None:
        why = "its trace held no readable turn usage"
        if not read.completed:
            why = f"{_how_it_ended(ending)} before reporting token usage"
        return {
            "usage_note": f"{PRODUCT} reported no token usage: {why}",
            "cost_note": "not priced: no token usage to price",
            "price_source": NOT_PRICED,
        }
    spent_in, cached, spent_out = tokens
    figures: dict[str, Any] = {"input_tokens": spent_in, "output_tokens": spent_out}
    if not model:
        figures["cost_note"] = (
            f"not priced: {PRODUCT} reports tokens but no cost, and was told no model to "
            f"price them by (name one with -m in [runners.{PRODUCT}] args)"
        )
        figures["price_source"] = NOT_PRICED
        return figures
    provider = PRESET.priced_as or ""
    cost, note = price(
        model, provider, input_tokens=spent_in, output_tokens=spent_out, cache_read_tokens=cached
    )
    if note is not None:
        figures["cost_note"] = f"not priced: {note}"
        figures["price_source"] = NOT_PRICED
        return figures
    figures["cost_usd"] = cost
    own = calls_chosen_endpoint(f"{provider}:{model}", "")
    figures["price_source"] = list_price([f"{provider}:{model}"], price_table(), own)
    return figures


def _how_it_ended(ending: Ending) -> str:
    if ending.cut:
        return f"the {PRODUCT} trace was cut at max_output_bytes"
    if ending.exit_code is None:
        return f"{PRODUCT} timed out"
    return f"the {PRODUCT} trace ended (no turn.completed, exit code {ending.exit_code})"


def _error(read: _Read, ending: Ending) -> str | None:
    stopped = ending.stopped(PRODUCT)
    if stopped is not None:
        return stopped
    if read.failed is not None or read.error is not None:
        said = read.failed or read.error or "no message"
        return f"{PRODUCT} reported an error: {said[:1000]}"
    if not read.completed:
        return (
            f"the {PRODUCT} trace ended with no turn.completed event (exit code "
            f"{ending.exit_code})" + ending.stderr_said()
        )
    if ending.exit_code != 0:
        return f"{PRODUCT} exited with code {ending.exit_code}" + ending.stderr_said()
    return None
