"""A case's mock tools under a product: the MCP bridge around one start, and what it served.

Every product invocation (every session of a case) with ``tools:`` gets a fresh
bridge directory (:mod:`..tools.bridge_config`) inside the call's own run directory:
outside the working directory, private to the user, removed when the call ends
(and swept with the run directory if the process dies). The product takes the
config as the last of its flags (before a prompt after ``--``), starts the bridge
itself, lists the tools and calls them under its own spelling; :func:`declared_names`
maps that spelling back to the declared names by exact match only.

After the run, :func:`settle` reads the bridge's own record: a product that ended
cleanly without ever listing the tools is errored (a ``called:`` that failed then
would say nothing about the skill), and a damaged calls log is a note.

One product needs two calls (besides :func:`check_tools` in its catalog entry)::

    tooled = start_with_tools(PRESET, table, case.tools, argv, run=run, cwd=cwd, env=env,
                              timeout=timeout, max_output_bytes=cap)
    result = settle(PRESET, read_trace(tooled.ran.finished.stdout.data, ...), tooled.log)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...settings import ProductTable, Settings
from ...suite.model import ToolSpec
from ..result import RunResult
from ..tools.bridge_config import (
    BridgeLog,
    BridgeSetupError,
    bridge_for,
    check_bridge,
    read_calls_data,
)
from ..tools.bridge_form import BridgeForm
from .description import (
    LaunchContext,
    Preset,
    Problem,
    launch_problem,
    with_flags,
)
from .process import Ran, RunDir, start, wraps

__all__ = [
    "BridgeSetupError",
    "ToolRun",
    "check_tools",
    "settle",
    "start_with_tools",
    "tools_problem",
]


def _form(preset: Preset) -> BridgeForm:
    if preset.bridge is None:
        raise BridgeSetupError(f"{preset.name} has no known way to take the MCP bridge")
    return preset.bridge


def tools_problem(preset: Preset, table: ProductTable) -> Problem | None:
    """Why ``tools:`` cannot reach ``preset`` as the table configures it, or ``None``.

    A ``command`` naming another executable is not known to take the MCP flag; a
    table flag the product reads as a tool allowlist would hide the bridge's tools.
    """
    key = f"[runners.{preset.name}]"
    if preset.bridge is None:
        from .table import PRODUCTS

        bridged = [product.name for product in PRODUCTS if product.bridge is not None]
        return (
            f"the {preset.name} runner has no known way to take mock tools",
            f"run cases with tools: under {', '.join(bridged)} or a framework runner",
        )
    if not preset.names_itself(table):
        wrapper = (table.command or ["?"])[0]
        return (
            f"{key} command starts {wrapper!r}, not {preset.executable!r}: a wrapper is not "
            "known to take the MCP bridge's flag, so the case's tools: could not reach it",
            f"let command start {preset.executable!r} itself, drop command, or run cases "
            "with tools: under another runner",
        )
    use = preset.bridge
    for where, entries in (("args", table.args), ("command", table.command or [])):
        for entry in entries:
            flag = next((f for f in use.refused_flags if entry.split("=")[0] == f), None)
            if flag is not None:
                return (
                    f"{key} {where} carries {flag}, which would hide the case's mock tools "
                    f"from {preset.name} ({use.refused_why})",
                    f"remove {flag} from {key} {where} for a run with tools:",
                )
    return None


def check_tools(preset: Preset, settings: Settings, tools: Sequence[ToolSpec]) -> Problem | None:
    """The preflight for a run with mock tools: the table, then the bridge started once
    with ``--check`` on ``tools`` under this interpreter (executed, not merely found)."""
    problem = tools_problem(preset, preset.table(settings))
    if problem is not None:
        return problem
    if settings.record == "none":
        return None  # replaying only starts no product, so no bridge either (docs/replay.md)
    failed = check_bridge(tools)
    if failed is None:
        return None
    return (
        f"the MCP bridge that serves mock tools to {preset.name} does not start: {failed}",
        "run pytest with an interpreter where pytest-skill-lens is installed and importable; "
        "see docs/mcp-bridge.md",
    )


@dataclass(frozen=True)
class ToolRun:
    """A product's start, and what its bridge served (``None``: the case has no tools);
    ``calls_data`` is the bridge's calls file as written, for a cassette."""

    ran: Ran
    log: BridgeLog | None
    calls_data: bytes | None = None


def start_with_tools(
    preset: Preset,
    table: ProductTable,
    tools: Sequence[ToolSpec],
    argv: Sequence[str],
    *,
    run: RunDir,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    max_output_bytes: int,
) -> ToolRun:
    """:func:`.process.start`, with a fresh bridge serving ``tools`` when there are any.

    Raises :class:`BridgeSetupError` rather than run the product without the case's
    tools, and :class:`.process.StartFailed` as ``start`` does.
    """
    own = preset.launch is not None and preset.names_itself(table)
    if not tools:
        if own:
            argv, env = launched(preset, run, cwd, env, argv, None)
        return ToolRun(_start(argv, run, cwd, env, timeout, max_output_bytes), None)
    use = _form(preset)
    problem = tools_problem(preset, table)  # preflight would have refused it; a library caller
    if problem is not None:
        raise BridgeSetupError(f"{problem[0]}; {problem[1]}")
    if use.flag is None and not own:
        raise BridgeSetupError(
            f"{preset.name} takes the MCP bridge through its launch hook, and there is no launch "
            "hook for this command"
        )
    # In the call's own directory: outside cwd (refused inside it), removed with the call.
    with bridge_for(tools, use, working_directory=cwd, parent=run.root) as files:
        command, env = list(argv), {**env, **use.env}
        if own:
            command, env = launched(preset, run, cwd, env, command, files.server)
        if files.argument is not None:
            command = with_flags(command, [files.argument])  # after the table's args
        ran = _start(command, run, cwd, env, timeout, max_output_bytes)
        # Through the descriptor kept since the file was made: whatever the product put
        # at the path since (a FIFO, a link) is never opened.
        log, data = read_calls_data(files)
        return ToolRun(ran, log, data)


def launched(
    preset: Preset,
    run: RunDir,
    cwd: Path,
    env: Mapping[str, str],
    argv: Sequence[str],
    server: Mapping[str, Any] | None,
) -> tuple[list[str], dict[str, str]]:
    """``argv`` and ``env`` with ``preset``'s launch hook applied: its flags after the
    table's, its variables over ``env``, its files written into the call's home.
    Raises :class:`BridgeSetupError` (the run is then errored, never started half set up)."""
    assert preset.launch is not None
    context = LaunchContext(
        env=env,
        files_home=run.home,
        cwd=cwd,
        isolated=env.get("HOME") == str(run.home),
        sandboxed=wraps(run, env),
        mcp=server,
    )
    launch = preset.launch(context)
    problem = launch_problem(launch)
    if problem is not None:
        raise BridgeSetupError(f"{preset.name}'s launch: {problem}")
    for name, text in launch.files.items():
        path = run.home / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A fresh home holds nothing yet: exclusive, so nothing already there is followed.
            with open(path, "x", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise BridgeSetupError(f"{preset.name}'s launch file {name}: {exc}") from None
    return with_flags(argv, launch.flags), {**env, **launch.env}


def _start(
    argv: Sequence[str],
    run: RunDir,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    max_output_bytes: int,
) -> Ran:
    return start(
        argv, run=run, cwd=cwd, env=env, timeout=timeout, max_output_bytes=max_output_bytes
    )


def settle(preset: Preset, result: RunResult, log: BridgeLog | None) -> RunResult:
    """``result`` as the bridge's record reads it.

    A product that reached a clean end without listing the bridge's tools is
    errored naming the cause (a trace error already there is kept: it comes first);
    it keeps its spend, model, transcript and hooks, and nothing an evaluator reads.
    A calls log that is damaged, cut or shows dropped messages adds a note.
    """
    if log is None:
        return result
    note = _log_note(log)
    if note is not None:
        result.stop_note = f"{result.stop_note}; {note}" if result.stop_note else note
    if result.error is not None or log.listed:
        return result
    return dataclasses.replace(
        result,
        error=_never_listed(preset, log, note),
        output="",
        tool_calls=[],
        skill_triggered=None,
        skill_triggered_by_session=None,
        skill_loaded=None,
    )


def _never_listed(preset: Preset, log: BridgeLog, note: str | None) -> str:
    name, key = preset.name, f"[runners.{preset.name}]"
    if log.started:
        what = f"{name} started the MCP bridge but never asked it for its tools (no tools/list)"
    else:
        what = f"{name} finished without ever starting the MCP bridge"
    return (
        f"{what}, so the case's mock tools were never offered to the model; MCP may be "
        f"switched off by a flag in {key} args (such as --safe-mode), or {name} refused "
        "the bridge's config" + (f" ({note})" if note else "")
    )


def _log_note(log: BridgeLog) -> str | None:
    notes = []
    if log.replaced:
        notes.append(
            "the MCP bridge's calls file was replaced during the run (by the product or "
            "something it ran): only the file the harness made was read"
        )
    parts = []
    if log.damaged:
        parts.append(f"{log.damaged} damaged line(s)")
    if log.truncated:
        parts.append("more than the harness reads (the rest was not read)")
    if log.refused:
        parts.append(f"{log.refused} message(s) over the bridge's size cap, dropped unread")
    if parts:
        notes.append("the MCP bridge's calls log holds " + ", ".join(parts))
    return "; ".join(notes) or None
