"""Asking a live MCP server for its tools over stdio: ``initialize``,
``notifications/initialized``, then ``tools/list`` page after page (``nextCursor``).

JSON-RPC 2.0, one message a line, framed and bounded by the MCP bridge's own helpers
(:mod:`..mcp_bridge.jsonrpc`, :mod:`..mcp_bridge.lines`): the SDK would cost seconds to
import for three requests. The whole exchange runs under one deadline, and the server's
process group is killed when it ends, however it ends: a server that hangs, floods,
pages for ever or exits early is an :class:`~..authoring.json_input.InputError`, never a
hang.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from .. import __version__
from ..authoring.json_input import InputError, one_line_json
from ..mcp_bridge import jsonrpc
from ..mcp_bridge.lines import MAX_LINE_BYTES, Oversized, read_lines

PROTOCOL_VERSION = "2025-06-18"
MAX_PAGES = 1000
_EOF = object()
_STDERR_TAIL = 400
_READER_GRACE = 2.0  # seconds
_EXIT_GRACE = 1.0


@dataclass(frozen=True)
class LiveListing:
    tools: list[Any]
    pages: int
    server: str  # serverInfo's name and version, as the server gave them


def list_tools(command: Sequence[str], timeout: float) -> LiveListing:
    """Every tool the server at ``command`` lists, across all its pages."""
    with tempfile.TemporaryFile() as stderr:
        try:
            process = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=True,  # its own process group: killed whole at the end
            )
        except OSError as exc:
            raise InputError(
                f"cannot start {command[0]!r}: {exc.strerror or exc}",
                "give the server's command after --command, e.g. --command npx -y my-server",
            ) from None
        session = _Session(process, time.monotonic() + timeout, timeout)
        try:
            return session.list_tools()
        except InputError as exc:
            raise InputError(exc.message + _stderr_tail(stderr), exc.fix) from None
        finally:
            session.stop()


class _Session:
    def __init__(self, process: subprocess.Popen[bytes], deadline: float, timeout: float) -> None:
        self.process = process
        self.deadline = deadline
        self.timeout = timeout
        self.next_id = 0
        self.lines: queue.Queue[Any] = queue.Queue()
        self.at_eof = False
        assert process.stdout is not None
        # A daemon thread: a server that hands its stdout to a grandchild escaping the
        # kill keeps the pipe open, and that must not keep this process alive.
        self.reader = threading.Thread(target=self._read, args=(process.stdout,), daemon=True)
        self.reader.start()

    def list_tools(self) -> LiveListing:
        init = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "pytest-skill-lens mcp-import", "version": __version__},
            },
        )
        info = init.get("serverInfo") if isinstance(init, dict) else None
        server = ""
        if isinstance(info, dict):
            server = " ".join(str(info.get(key, "")) for key in ("name", "version")).strip()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        for page in range(1, MAX_PAGES + 1):
            result = self.request("tools/list", {"cursor": cursor} if cursor else {})
            if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
                raise InputError(
                    f"the server's tools/list page {page} has no tools list",
                    "is the command an MCP server? it must answer tools/list",
                )
            tools.extend(result["tools"])
            cursor = result.get("nextCursor")
            if not cursor:
                return LiveListing(tools, page, server)
            if not isinstance(cursor, str) or cursor in seen:
                raise InputError(
                    f"the server's tools/list page {page} gives the cursor "
                    f"{one_line_json(cursor)[:80]} again: its pages never end",
                    "fix the server's paging",
                )
            seen.add(cursor)
        raise InputError(
            f"the server's listing runs past {MAX_PAGES} pages", "fix the server's paging"
        )

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        request_id = self.next_id
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            message = self._next_message(method)
            if not isinstance(message, dict):
                continue
            if "method" in message:
                if jsonrpc.valid_id(message.get("id")):  # a request of its own: answered
                    self._answer(message)
                continue  # a notification (a log line, progress): nothing to do
            if message.get("id") != request_id:
                continue
            if "error" in message:
                error = message["error"]
                text = error.get("message") if isinstance(error, dict) else error
                raise InputError(
                    f"the server refused {method}: {one_line_json(text)[:300]}",
                    "check the server's own documentation and arguments",
                )
            return message.get("result")

    def _answer(self, message: dict[str, Any]) -> None:
        if message["method"] == "ping":
            self.send(jsonrpc.result(message["id"], {}))
        else:
            self.send(
                jsonrpc.error(message["id"], jsonrpc.METHOD_NOT_FOUND, "not offered by mcp-import")
            )

    def send(self, message: dict[str, Any]) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(jsonrpc.encode(message) + b"\n")
            stdin.flush()
        except OSError:  # BrokenPipeError: it stopped reading, most likely by exiting
            raise self._ended() from None

    def _next_message(self, method: str) -> Any:
        remaining = self.deadline - time.monotonic()
        try:
            line = self.lines.get(timeout=max(remaining, 0))
        except queue.Empty:
            raise InputError(
                f"the server did not answer {method} within {self.timeout:g} s",
                "check that the command starts an MCP server on stdio, or raise --timeout",
            ) from None
        if line is _EOF:
            self.at_eof = True
            raise self._ended()
        if isinstance(line, Oversized):
            raise InputError(
                f"the server wrote a line of {line.size:,} bytes (the limit is {MAX_LINE_BYTES:,})",
                "fix the server",
            )
        if not line.strip():
            return None
        try:
            return jsonrpc.decode(line)
        except jsonrpc.ParseError as exc:
            shown = line[:80].decode("utf-8", "replace")
            raise InputError(
                f"the server wrote a line that is not JSON-RPC ({exc}): {shown!r}",
                "an MCP server writes only messages to stdout; its logs belong on stderr",
            ) from None

    def _ended(self) -> InputError:
        unread = self._unread()  # read to EOF, which a process that exited has sent
        try:  # its status follows its EOF by a moment; one that lives on has closed stdout
            code: int | None = self.process.wait(min(_EXIT_GRACE, self._remaining()))
        except subprocess.TimeoutExpired:
            code = None
        status = f"exited with status {code}" if code is not None else "closed its stdout"
        return InputError(
            f"the server {status} before it listed its tools{unread}",
            "run the command by hand to see why it stops",
        )

    def _unread(self) -> str:
        """What the server wrote that was never read as a message, if anything (a banner
        on stdout is the usual reason a server seems to say nothing). Its stdout is read
        to the end, which comes at once from a process that exited."""
        while not self.at_eof:
            try:
                line = self.lines.get(timeout=self._remaining())
            except queue.Empty:
                return ""
            if line is _EOF:
                self.at_eof = True
            if isinstance(line, bytes) and line.strip():
                return f"; its stdout began with {line[:80].decode('utf-8', 'replace')!r}"
        return ""

    def _remaining(self) -> float:
        return max(self.deadline - time.monotonic(), 0.0)

    def _read(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in read_lines(stream):  # type: ignore[arg-type]  # Popen gives IO[bytes]
                self.lines.put(line)
        self.lines.put(_EOF)

    def stop(self) -> None:
        """Kill the server's whole process group and reap it; never raises."""
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.wait()
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        # The reader ends at EOF once the group is dead. A grandchild that left the group
        # may hold the pipe open: closing it under a blocked reader would wait on its lock
        # for ever, so the pipe is then left to the daemon thread.
        self.reader.join(_READER_GRACE)
        if not self.reader.is_alive() and self.process.stdout is not None:
            self.process.stdout.close()


def _stderr_tail(stderr: IO[bytes]) -> str:
    try:
        stderr.seek(0, os.SEEK_END)
        size = stderr.tell()
        stderr.seek(max(size - _STDERR_TAIL, 0))
        tail = stderr.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f" (its stderr ends: {tail!r})" if tail else ""
