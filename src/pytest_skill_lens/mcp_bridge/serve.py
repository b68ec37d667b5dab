"""The stdio loop: read a line, answer it, until the product closes standard input."""

from __future__ import annotations

from typing import Any, BinaryIO

from . import jsonrpc
from .dispatch import Dispatcher
from .lines import MAX_LINE_BYTES, Oversized, read_lines


def serve(
    dispatcher: Dispatcher, stdin: BinaryIO, stdout: BinaryIO, *, limit: int = MAX_LINE_BYTES
) -> None:
    """Answer every message on ``stdin`` until EOF.

    Raises ``BrokenPipeError`` when the product stops reading, and
    :class:`..run.tools.bridge_calls.CallsFileError` when the calls file can no longer be written.
    """
    for line in read_lines(stdin, limit):
        reply: Any
        if isinstance(line, Oversized):
            reply = dispatcher.refuse_oversized(line.size, limit, line.request_id)
        elif not line.strip():
            continue
        else:
            try:
                message = jsonrpc.decode(line)
            except jsonrpc.ParseError as exc:
                reply = jsonrpc.error(None, jsonrpc.PARSE_ERROR, f"parse error: {exc}")
            else:
                reply = dispatcher.handle(message)
        if reply is not None:
            stdout.write(jsonrpc.encode(reply) + b"\n")
            stdout.flush()
