"""The stdio leg of ``mcp-import --command``: the server started in a process group of its
own, one JSON-RPC message a line, every byte counted against the listing's bounds.

The SDK's own ``stdio_client`` holds a line in memory until its newline comes, however
long it grows, so a server writing one endless line would fill this process's memory.
This transport hands the SDK's session the same messages (parsed by the SDK's own
adapter) from a reader that counts each chunk before keeping it. Closing it kills the
whole process group at once: a listing needs no graceful goodbye, and a server that
ignores its closed stdin would cost seconds of grace.

Imported only inside :mod:`.mcp_session`'s functions: it loads the SDK when it loads.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import IO

import anyio
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter
from pydantic import ValidationError

from ..authoring.json_input import InputError
from .mcp_exchange import Exchange

_EXIT_GRACE = 1.0  # seconds for an exit status to follow the end of stdout
_POLL = 0.01
_CLOSED = (anyio.ClosedResourceError, anyio.BrokenResourceError)

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


@asynccontextmanager
async def stdio_transport(
    command: Sequence[str], exchange: Exchange, stderr: IO[bytes]
) -> AsyncIterator[Streams]:
    process = await anyio.open_process(list(command), stderr=stderr, start_new_session=True)
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read, process, to_session, exchange)
            tasks.start_soon(_write, process, from_session)
            try:
                yield from_server, to_server
            finally:
                tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await _kill(process)
        for stream in (to_session, from_server, to_server, from_session):
            stream.close()


async def _read(
    process: Process,
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    exchange: Exchange,
) -> None:
    assert process.stdout is not None
    pending = bytearray()
    async with sink:
        while True:
            try:
                chunk = await process.stdout.receive()
            except (anyio.EndOfStream, *_CLOSED):
                break
            try:
                exchange.take_bytes(len(chunk))  # past the cap: the exchange is cut
            except InputError:
                return
            start = len(pending)
            pending += chunk
            while (end := pending.find(b"\n", start)) >= 0:
                line = bytes(pending[:end])
                del pending[: end + 1]
                start = 0
                if not line.strip():
                    continue
                try:
                    message = jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValidationError:
                    shown = line[:80].decode("utf-8", "replace")
                    exchange.fail(
                        InputError(
                            f"the server wrote a line that is not JSON-RPC: {shown!r}",
                            "an MCP server writes only messages to stdout; its logs belong on "
                            "stderr",
                        )
                    )
                    return
                try:
                    await sink.send(SessionMessage(message))
                except _CLOSED:
                    return
        # Said before the session sees its stream close, which it would call a refusal.
        exchange.fail(await _ended(process))


async def _write(process: Process, source: MemoryObjectReceiveStream[SessionMessage]) -> None:
    assert process.stdin is not None
    async with source:
        with contextlib.suppress(*_CLOSED, OSError):  # it stopped reading: the reader says why
            async for message in source:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send(data.encode("utf-8") + b"\n")


async def _ended(process: Process) -> InputError:
    # returncode, polled: waiting on the process would also wait for its pipes, which a
    # child it started may hold open after it exited.
    with anyio.move_on_after(_EXIT_GRACE):
        while process.returncode is None:
            await anyio.sleep(_POLL)
    code = process.returncode
    status = f"exited with status {code}" if code is not None else "closed its stdout"
    return InputError(
        f"the server {status} before it listed its tools",
        "run the command by hand to see why it stops",
    )


async def _kill(process: Process) -> None:
    """Kill the server's whole process group and reap it; never raises.

    Its stdout is read to the end first (a pipe left full of a flood never reports its
    end), so that asyncio sees every pipe close and the exit, and lets the process go
    now rather than complain at exit; a child that escaped the group and keeps the pipe
    open costs at most the grace periods."""
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        process.kill()
    if process.stdout is not None:
        with anyio.move_on_after(_EXIT_GRACE), contextlib.suppress(Exception):
            while True:
                await process.stdout.receive()  # discarded, uncounted: the listing is over
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            with contextlib.suppress(Exception):
                await stream.aclose()
    with anyio.move_on_after(_EXIT_GRACE), contextlib.suppress(Exception):
        await process.wait()
