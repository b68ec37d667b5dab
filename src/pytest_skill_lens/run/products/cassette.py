"""One product start through the item's cassette: recorded live, or replayed with no process.

The product runners (Claude Code, Copilot, ``cli``) and the product judges share this:
the runner builds its prompt and command line and says how to start the product
(``live``); :func:`start_taped` either starts it (and, recording, keeps the
:class:`~..cassettes.product.Capture` and the workspace's changes) or hands back
the recorded capture, after making the recorded workspace changes again and
answering the bridge's recorded calls with fresh mock tools. Either way the runner
then reads the capture with its own trace reader, so a replay is scored exactly as
the recording was (docs/replay.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...settings import ProductTable, Settings
from ...suite.model import ToolSpec
from ..cassettes import CassetteMiss, KeyPart, SeatCall, current_tape
from ..cassettes.files import Seat
from ..cassettes.key import product_parts
from ..cassettes.product import (
    Capture,
    StartRefused,
    bridge_log,
    capture_from,
    capture_record,
    explain,
    mock_difference,
    request_record,
    secret_values,
)
from ..cassettes.workspace_changes import (
    ChangeRefused,
    NotRecordable,
    Snapshot,
    apply_changes,
    changes_since,
    snapshot,
)
from ..result import RunResult
from ..runners.framework import as_recorded
from ..tools.bridge_calls import BridgeLog
from .delivery import DeliveryFailed
from .description import Preset


class NotStarted(Exception):
    """The product could not be started; the message is the run's error."""


@dataclass(frozen=True)
class Started:
    """A start's capture and its bridge's record; ``latency_ms`` None when replayed (the
    recorded figure is put back by ``as_recorded``), ``unkept`` why it cannot be kept."""

    capture: Capture
    log: BridgeLog | None
    latency_ms: float | None
    unkept: str | None = None


# ``live(watch)`` starts the product; ``watch``: the workspace's changes are wanted.
Live = Callable[[bool], Started]


@dataclass(frozen=True)
class TapedStart:
    """A start made through the item's cassette (``call`` None: there is none)."""

    call: SeatCall | None
    started: Started

    def finish(self, result: RunResult) -> RunResult:
        """``result`` read from this start: its live latency, or the recorded figures."""
        if self.started.latency_ms is not None:  # replayed: as_recorded puts the recorded one
            result.latency_ms = self.started.latency_ms
        return as_recorded(self.call, result)


def start_taped(
    seat: Seat,
    by: str,
    prompt: str,
    argv: Sequence[str],
    live: Live,
    *,
    workspace: Path | None,
    deliver_again: Callable[[], object],
    tools: Sequence[ToolSpec],
    secrets: Sequence[str],
) -> TapedStart | RunResult:
    """The start: live without a cassette, else recorded or replayed through the item's
    cassette; the errored result when it could not start (a failed live start, nothing
    recorded to replay)."""
    try:
        tape = current_tape()
        call = tape.open_call(seat, by) if tape is not None else None
        if call is None:
            return TapedStart(None, live(False))
        found = _recorded(call, prompt, argv, live, secrets)
        if isinstance(found, Capture):
            found = _replayed(call, found, workspace, deliver_again, tools)
    except (NotStarted, CassetteMiss) as exc:
        return RunResult(error=str(exc))
    return TapedStart(call, found)


def _recorded(
    call: SeatCall, prompt: str, argv: Sequence[str], live: Live, secrets: Sequence[str]
) -> Started | Capture:
    """The live start, recorded through ``call``; or the recorded capture to replay."""
    began: list[Started] = []

    def record() -> dict[str, Any]:
        started = live(True)
        began.append(started)
        try:
            return capture_record(started.capture, secrets)
        except ValueError as exc:  # too large to keep; the run still counts
            call.cannot_keep(str(exc))
            return {}

    stored = call.exchange(request_record(prompt, argv), record, explain)
    if began:
        if began[0].unkept is not None:
            call.cannot_keep(began[0].unkept)
        return began[0]
    try:
        return capture_from(stored)
    except StartRefused as exc:
        call.refuse(f"holds a recorded start past recording's bounds: {exc}")
        raise
    except CassetteMiss as exc:
        call.differs(f"was recorded in a form that cannot be read: {exc}")
        raise  # differs raised already; this keeps mypy's flow honest


def _replayed(
    call: SeatCall,
    capture: Capture,
    workspace: Path | None,
    deliver_again: Callable[[], object],
    tools: Sequence[ToolSpec],
) -> Started:
    if workspace is not None:
        try:
            deliver_again()  # the workspace as the product found it, then what it did there
            apply_changes(workspace, capture.changes)
        except DeliveryFailed as exc:
            raise NotStarted(str(exc)) from None
        except ChangeRefused as exc:
            raise NotStarted(f"the recorded workspace changes cannot be made: {exc}") from None
    log = None
    if capture.calls is not None:
        difference = mock_difference(tools, capture.calls)
        if difference is not None:
            call.differs(f"cannot be replayed as recorded: {difference}")
        log = bridge_log(capture.calls)
    return Started(capture, log, None)


def watch_from(workspace: Path | None, watch: bool) -> Snapshot | None:
    """The listing the changes are measured against: only recording, only a workspace."""
    return snapshot(workspace) if watch and workspace is not None else None


def watched(
    workspace: Path | None, before: Snapshot | None, secrets: Sequence[str]
) -> tuple[Sequence[dict[str, Any]], str | None]:
    """The workspace's changes since ``before``, or why they cannot be kept."""
    if workspace is None or before is None:
        return (), None
    try:
        return changes_since(workspace, before, secrets), None
    except NotRecordable as exc:
        return (), str(exc)
    except OSError as exc:
        return (), f"the workspace cannot be read after the run: {exc}"


def secrets_of(
    preset: Preset, table: ProductTable, environment: Mapping[str, str] | None = None
) -> list[str]:
    """What must never be written to a cassette: the values of the variables that sign
    the product in and of those its table's ``pass_env`` names."""
    names = [*preset.sign_in_variables, *(table.pass_env or [])]
    return secret_values(names, os.environ if environment is None else environment)


def table_key(table: ProductTable, timeout_seconds: float, product_sandbox: str) -> dict[str, Any]:
    """A table as the key holds it: what changes a start, never a variable's value."""
    return {
        "command": table.command,
        "args": list(table.args),
        "pass_env": table.pass_env,
        "skills_dir": table.skills_dir,
        "invoke": table.invoke,
        "timeout_seconds": timeout_seconds,
        "max_output_bytes": table.max_output_bytes,
        "product_sandbox": product_sandbox,
    }


def key_parts(
    seat: Seat, name: str, table: dict[str, Any], version: str | None, settings: Settings
) -> list[KeyPart]:
    """The product's key parts; its version is not known when replaying only."""
    return product_parts(seat, name, table, version, known=settings.record != "none")


__all__ = [
    "CassetteMiss",
    "Live",
    "NotStarted",
    "Started",
    "TapedStart",
    "key_parts",
    "secrets_of",
    "start_taped",
    "table_key",
    "watch_from",
    "watched",
]
