"""The calls file: what a bridge served, one JSON record a line, written as it happens.

Each record carries an ``event`` and the writing process's ``pid``:

* ``initialize``: a product started the bridge (``protocol_version``, ``client``);
* ``list``: it asked for the tools (``tools``, their names);
* ``call``: one ``tools/call``, with ``name``, ``arguments`` and either the ``answer``
  sent or the ``error`` returned instead;
* ``refused``: a message over the size cap was dropped unread (``bytes``).

A record is one ``write`` to a file opened for appending, so nothing sits in a
buffer when the product kills the bridge, and two bridges of one run (a product
that restarts its server) never interleave within a line.

The product shares the bridge's directory and can replace the file (a FIFO, a link,
another file). The harness reads back only the file it made, through the descriptor
it kept (:func:`read_calls_fd`), never blocks, never follows a link, reads at most
its cap, and says when what is at the path is no longer that file.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

MAX_READ_BYTES = 64 * 1024 * 1024
"""The harness reads at most this much back; the rest is reported as truncated."""
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class CallsFileError(Exception):
    """The calls file cannot be opened or written; the message is one line."""


class CallsFile:
    """The bridge's side: appends one record per event, each flushed by its own write."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @classmethod
    def open(cls, path: Path) -> CallsFile:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        # A link planted at the path is refused, never followed out of the directory;
        # a FIFO fails at once (no reader) instead of blocking the bridge.
        flags |= _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(path, flags, 0o600)
        except OSError as exc:
            raise CallsFileError(f"cannot open the calls file {path}: {exc.strerror}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise CallsFileError(f"cannot open the calls file {path}: not a regular file")
        return cls(fd)

    def initialized(self, protocol_version: str, client: Mapping[str, Any]) -> None:
        self._append(
            {"event": "initialize", "protocol_version": protocol_version, "client": client}
        )

    def listed(self, names: Sequence[str]) -> None:
        self._append({"event": "list", "tools": list(names)})

    def called(self, name: str, arguments: Any, *, answer: str | None, error: str | None) -> None:
        record = {"event": "call", "name": name, "arguments": arguments}
        self._append({**record, "answer": answer, "error": error})

    def refused(self, size: int) -> None:
        self._append({"event": "refused", "bytes": size})

    def _append(self, record: dict[str, Any]) -> None:
        line = json.dumps({**record, "pid": os.getpid()}, ensure_ascii=True, allow_nan=False)
        data = memoryview(f"{line}\n".encode("ascii"))
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError as exc:
            raise CallsFileError(f"cannot write the calls file: {exc.strerror}") from None

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> CallsFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


@dataclass(frozen=True)
class BridgeCall:
    """One ``tools/call`` the bridge received: the answer it sent, or the error instead."""

    name: str
    arguments: Any
    answer: str | None
    error: str | None


@dataclass(frozen=True)
class BridgeLog:
    """What the bridges of one product invocation served, read back by the harness."""

    started: bool
    """A product started a bridge and initialized it."""
    listed: bool
    """A product asked a bridge for its tools: without it the case's tools were never offered."""
    calls: tuple[BridgeCall, ...]
    refused: int
    """Messages dropped for their size: the product sent something the bridge never read."""
    damaged: int
    """Lines that are not a record: a bridge stopped in the middle of one, or worse."""
    truncated: bool
    """The file was over :data:`MAX_READ_BYTES`; what follows the cap was not read."""
    replaced: bool = False
    """What is at the path is not the file the harness made (a FIFO, a link, another
    file): only the harness's own file was read, and what went elsewhere was not."""

    @property
    def complete(self) -> bool:
        """Whether every record was read: nothing damaged, nothing left unread."""
        return not self.damaged and not self.truncated and not self.replaced


def read_calls_fd(
    fd: int, path: Path, *, max_bytes: int = MAX_READ_BYTES
) -> tuple[BridgeLog, bytes]:
    """The log in the file the harness made and kept open as ``fd``, and its bytes.

    Read from its start through the descriptor, never by path, so nothing put at the
    path since (a FIFO, a link, another file) is opened; ``path`` is only examined,
    never opened, to tell whether it still names this file.
    """
    chunks: list[bytes] = []
    wanted, offset = max_bytes + 1, 0
    try:
        while wanted > 0:
            chunk = os.pread(fd, min(wanted, 1 << 20), offset)
            if not chunk:
                break
            chunks.append(chunk)
            wanted -= len(chunk)
            offset += len(chunk)
        mine = os.fstat(fd)
    except OSError:
        return parse_calls(b"", max_bytes=max_bytes, replaced=True), b""
    data = b"".join(chunks)
    return parse_calls(data, max_bytes=max_bytes, replaced=not _still_at(path, mine)), data


def _still_at(path: Path, mine: os.stat_result) -> bool:
    try:
        there = os.lstat(path)  # never opens it, never follows a link
    except OSError:
        return False
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


def parse_calls(
    data: bytes, *, max_bytes: int = MAX_READ_BYTES, replaced: bool = False
) -> BridgeLog:
    """The log that ``data`` (the file's first ``max_bytes + 1`` bytes) holds."""
    truncated = len(data) > max_bytes
    lines = data[:max_bytes].split(b"\n")
    # The last piece is what follows the final newline: empty, or a record cut short.
    tail = lines.pop()
    if truncated:
        tail = b""  # cut by the cap, not by the bridge: counted as truncated instead
    started = listed = False
    calls: list[BridgeCall] = []
    refused = 0
    damaged = 1 if tail else 0
    for line in lines:
        record = _record(line)
        event = record.get("event") if record is not None else None
        call = _call(record) if event == "call" and record is not None else None
        if event == "initialize":
            started = True
        elif event == "list":
            listed = True
        elif call is not None:
            calls.append(call)
        elif event == "refused":
            refused += 1
        else:
            damaged += 1
    return BridgeLog(started, listed, tuple(calls), refused, damaged, truncated, replaced)


def _record(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _call(record: Mapping[str, Any]) -> BridgeCall | None:
    name, answer, error = record.get("name"), record.get("answer"), record.get("error")
    if not isinstance(name, str) or "arguments" not in record:
        return None
    if not isinstance(answer, str | None) or not isinstance(error, str | None):
        return None
    if (answer is None) == (error is None):
        return None  # exactly one of them is what the bridge wrote
    return BridgeCall(name, record["arguments"], answer, error)
