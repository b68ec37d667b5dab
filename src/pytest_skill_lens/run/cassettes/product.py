"""Recording and replaying a product (Claude Code, Copilot, any ``cli`` command), one start
at a time.

The level the plugin owns for a product is not its model traffic, which the plugin
never sees, but what the product hands back: its stdout trace, how it ended (exit
code or timeout, a cut trace, the end of stderr), the file it leaves for its reader
(Copilot's usage file), the MCP bridge's calls file, and what it did to the case's
workspace (:mod:`.workspace_changes`). One start is one exchange of the item's
:class:`~.seat_call.SeatCall`: the request is the prompt and the command line as the
table builds them (never a temporary path), the response the :class:`Capture`.

A replay starts no process: the recorded trace goes through the same trace reader,
the bridge's calls file through the same calls-file reader, the workspace changes
are made again, and the bridge's calls are answered again by fresh mock tools, so a
tool whose answers are no longer what the product was given is a miss naming it.

What is kept is the product's own text, as it printed it. The values of the variables
that sign the product in, and of those ``pass_env`` names, are replaced wherever they
appear before anything is written, so no credential reaches a cassette even when a
product echoes one.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ...suite.model import ToolSpec
from ..tools.bridge_calls import MAX_READ_BYTES, BridgeLog, parse_calls
from ..tools.mocktools import build_mock_tools
from .files import digest
from .seat_call import CassetteMiss
from .workspace_changes import SECRET_MIN, Change, Redactor, held_problem

STDERR_KEPT = 2_000  # characters of stderr kept; the readers quote the last 500
MAX_STREAM_BYTES = 32 * 1024 * 1024  # a trace past this is not kept (the file cap is 64 MiB)
MAX_LEFT_BYTES = 1_000_000  # what Copilot reads of its usage file (copilot.MAX_USAGE_BYTES)
MAX_CALLS_BYTES = MAX_READ_BYTES  # what the harness reads of the bridge's calls file
PROMPT = "{prompt}"  # the prompt's place in the kept command line
_PID = re.compile(rb', "pid": ([0-9]+)\}$')


@dataclass(frozen=True)
class Capture:
    """One start of a product as its reader reads it; ``exit_code`` None: timed out."""

    stdout: bytes
    exit_code: int | None
    cut: bool  # stdout was cut at max_output_bytes
    stderr: str  # its end, stripped (STDERR_KEPT characters)
    left: bytes | None = None  # what the product left for its reader (Copilot's usage file)
    calls: bytes | None = None  # the MCP bridge's calls file; None: the case had no tools
    changes: Sequence[Change] = field(default_factory=tuple)


def stderr_tail(data: bytes) -> str:
    """What of stderr a reader can quote, stripped as the readers strip it."""
    return data.decode("utf-8", errors="replace").strip()[-STDERR_KEPT:].lstrip()


def request_record(prompt: str, argv: Sequence[str]) -> dict[str, Any]:
    """What one start sends: the prompt, and the command line with the prompt's place."""
    shown = [PROMPT if arg == prompt else arg for arg in argv]
    return {"messages": [{"prompt": prompt}], "argv": shown}


def explain(
    before: list[Any], now: list[Any], options_before: dict[str, Any], options_now: dict[str, Any]
) -> str | None:
    """Which part of a product's start differs from the recorded one, in words."""
    if options_before.get("argv") != options_now.get("argv"):
        return "the product's command line differs (its executable, flags or table args)"
    if before != now:
        return "the prompt sent differs"
    return None


# -- the stored form -------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class StartRefused(CassetteMiss):
    """A recorded start holds more than a recording keeps; the message says what."""


class StoredBytes(_Strict):
    """Bytes as a reviewer reads them: UTF-8 text split at its newlines, or base64."""

    lines: list[str] | None = None
    base64: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> StoredBytes:
        if (self.lines is None) == (self.base64 is None):
            raise ValueError("exactly one of lines and base64")
        return self


class StoredChange(_Strict):
    path: str
    text: str | None = None
    base64: str | None = None
    link: str | None = None
    deleted: bool = False
    executable: bool = False

    @model_validator(mode="after")
    def _one_kind(self) -> StoredChange:
        kinds = [self.text is not None, self.base64 is not None, self.link is not None]
        if sum(kinds) + self.deleted != 1:
            raise ValueError("exactly one of text, base64, link and deleted")
        return self


class StoredStart(_Strict):
    stdout: StoredBytes
    exit_code: int | None
    cut: bool
    stderr: str
    left: StoredBytes | None = None
    calls: StoredBytes | None = None
    workspace: list[StoredChange] = []
    # The digest of ``workspace`` as recorded: a change added, edited or dropped by hand
    # is a miss, never a replay scored as if the product had done it. None: a start with
    # no changes, or one recorded before the seal.
    workspace_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None


def capture_record(capture: Capture, secrets: Sequence[str] = ()) -> dict[str, Any]:
    """``capture`` as the cassette keeps it, every secret replaced."""
    if len(capture.stdout) > MAX_STREAM_BYTES:
        raise ValueError(f"the trace is over {MAX_STREAM_BYTES:,} bytes")
    kept = Redactor(secrets)
    record: dict[str, Any] = {
        "stdout": _stored(kept.bytes(capture.stdout)),
        "exit_code": capture.exit_code,
        "cut": capture.cut,
        "stderr": kept.text(capture.stderr),
    }
    if capture.left is not None:
        record["left"] = _stored(kept.bytes(capture.left))
    if capture.calls is not None:
        record["calls"] = _stored(kept.bytes(_bridge_numbers(capture.calls)))
    if capture.changes:
        record["workspace"] = [dict(change) for change in capture.changes]
        record["workspace_sha256"] = digest(record["workspace"])
    return record


def capture_from(stored: Any) -> Capture:
    """The recorded start again; a cassette of the wrong shape is a clear miss, and one
    holding more than a recording keeps is refused (:class:`StartRefused`) before any
    of it is used."""
    try:
        start = StoredStart.model_validate(stored)
        capture = Capture(
            stdout=_bytes(start.stdout),
            exit_code=start.exit_code,
            cut=start.cut,
            stderr=start.stderr,
            left=_bytes(start.left) if start.left is not None else None,
            calls=_bytes(start.calls) if start.calls is not None else None,
            changes=tuple(c.model_dump(exclude_defaults=True) for c in start.workspace),
        )
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in error["loc"]) or "the top level"
        raise CassetteMiss(
            f"a recorded product start cannot be read: {where}: {error['msg']}"
        ) from None
    except ValueError as exc:  # base64 that is not
        raise CassetteMiss(f"a recorded product start cannot be read: {exc}") from None
    problem = _over_bounds(capture)
    if problem is not None:
        raise StartRefused(problem)
    if start.workspace_sha256 not in (None, digest(list(capture.changes))):
        raise CassetteMiss(
            "its workspace changes were edited since it was recorded (an entry added, changed "
            "or dropped by hand): they no longer match their recorded digest"
        )
    return capture


def _over_bounds(capture: Capture) -> str | None:
    """What of ``capture`` is more than a recording keeps, in words; None when nothing."""
    if len(capture.stderr) > STDERR_KEPT:
        return (
            f"its stderr is {len(capture.stderr):,} characters, more than a recording keeps "
            f"({STDERR_KEPT:,})"
        )
    streams = (
        ("stdout", capture.stdout, MAX_STREAM_BYTES),
        ("left (the file the product leaves for its reader)", capture.left, MAX_LEFT_BYTES),
        ("calls (the bridge's calls file)", capture.calls, MAX_CALLS_BYTES),
    )
    for name, data, cap in streams:
        if data is not None and len(data) > cap:
            return f"its {name} is {len(data):,} bytes, more than a recording keeps ({cap:,})"
    return held_problem(capture.changes)


def _stored(data: bytes) -> dict[str, Any]:
    try:
        return {"lines": data.decode("utf-8").split("\n")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def _bytes(stored: StoredBytes) -> bytes:
    if stored.lines is not None:
        return "\n".join(stored.lines).encode("utf-8")
    return base64.b64decode(stored.base64 or "", validate=True)


def _bridge_numbers(data: bytes) -> bytes:
    """The calls file with each bridge process's id replaced by its number (1, 2, ...):
    a re-recording's diff shows what was served, not which pid served it."""
    numbers: dict[bytes, int] = {}

    def number(match: re.Match[bytes]) -> bytes:
        n = numbers.setdefault(match.group(1), len(numbers) + 1)
        return b', "pid": %d}' % n

    return b"\n".join(_PID.sub(number, line) for line in data.split(b"\n"))


def secret_values(names: Sequence[str], environment: Mapping[str, str]) -> list[str]:
    """The values of ``names`` set in ``environment``: what a cassette must never hold."""
    return [environment[name] for name in names if len(environment.get(name, "")) >= SECRET_MIN]


# -- the bridge on replay --------------------------------------------------------------


def bridge_log(data: bytes) -> BridgeLog:
    """The recorded calls file, read by the bridge's own parser (no file is made: the
    bytes are bounded by :data:`MAX_CALLS_BYTES` when the start is read back)."""
    return parse_calls(data)


def mock_difference(tools: Sequence[ToolSpec], data: bytes) -> str | None:
    """Each recorded ``tools/call`` answered again by fresh mock tools (one set per bridge
    process, as each process built its own); the first answer that differs, in words."""
    served: dict[object, Any] = {}
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a damaged line: the reader counts it, no answer to compare
        if not isinstance(record, dict) or record.get("event") != "call":
            continue
        name, arguments, answer = record.get("name"), record.get("arguments"), record.get("answer")
        if (
            not isinstance(name, str)
            or not isinstance(answer, str)
            or not isinstance(arguments, dict)
        ):
            continue  # an error the bridge returned instead of an answer
        tools_now = served.setdefault(record.get("pid"), build_mock_tools(tools))
        tool = tools_now.get(name)
        if tool is None:
            return (
                f"the recorded call of mock tool {name} (line {number}) names no tool of the case"
            )
        if tool.call(arguments) != answer:
            return (
                f"mock tool {name} answers its recorded call (line {number} of the calls file) "
                "differently than it answered the product"
            )
    return None
