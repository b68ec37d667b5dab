"""The exchange with a live MCP server, through the official MCP SDK's client.

The SDK's ``Client`` negotiates the protocol (``server/discover``, falling back to the
``initialize`` handshake that servers of earlier revisions speak), answers the server's
pings, and checks every answer against the negotiated revision's schema. The listing is
this module's loop over ``tools/list`` pages, each asked with the session's
``send_request`` for the page as the server sent it: the SDK's ``list_tools`` hands back
its models instead, and at revision 2026-07-28 drops a tool it finds invalid without a
word, where a library must hold the server's contract verbatim or say why it cannot.

Everything runs under one deadline and within :class:`ListingBounds`. A transport that
finds a fault (too many bytes, a line that is not JSON-RPC, a server that exited)
records it on the :class:`Exchange` and cancels the whole exchange, so the fault is what
is said, whatever the SDK makes of the request it was serving.

Imported only inside :func:`.mcp_client.list_tools`: it loads the SDK when it loads.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from http import HTTPStatus
from typing import IO, Any

import anyio
import httpx2
import mcp_types
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field, ValidationError

from .. import __version__
from ..authoring.json_input import InputError, one_line_json
from .mcp_client import LiveListing, RemoteServer, StdioServer
from .mcp_exchange import Exchange
from .mcp_options import display_url


class _Page(BaseModel):
    """A tools/list page as the server sent it: each tool kept whole, as a dict."""

    tools: list[dict[str, Any]]
    next_cursor: str | None = Field(default=None, alias="nextCursor")


_STDERR_TAIL = 400


def fetch(
    server: StdioServer | RemoteServer, timeout: float, wanted: frozenset[str]
) -> LiveListing:
    exchange = Exchange(timeout)
    with _quiet_sdk_logs(), tempfile.TemporaryFile() as stderr:
        try:
            listing = anyio.run(_bounded, server, exchange, wanted, stderr)
            if listing is None:  # cancelled: by a fault, or by the deadline
                raise exchange.fault or _timed_out(exchange, server)
        except Exception as exc:
            error = _explained(exc, exchange, server)
            if isinstance(server, StdioServer):
                error = InputError(error.message + _stderr_tail(stderr), error.fix)
            raise error from None
    return listing


async def _bounded(
    server: StdioServer | RemoteServer,
    exchange: Exchange,
    wanted: frozenset[str],
    stderr: IO[bytes],
) -> LiveListing | None:
    with anyio.CancelScope(deadline=anyio.current_time() + exchange.timeout) as scope:
        exchange.scope = scope
        return await _listing(server, exchange, wanted, stderr)
    return None


async def _listing(
    server: StdioServer | RemoteServer,
    exchange: Exchange,
    wanted: frozenset[str],
    stderr: IO[bytes],
) -> LiveListing:
    client = Client(
        _transport(server, exchange, stderr),
        client_info=mcp_types.Implementation(
            name="pytest-skill-lens mcp-import", version=__version__
        ),
        cache=None,  # one listing, asked once
    )
    async with client:
        exchange.bounds.start_listing()
        exchange.asking = "tools/list"
        tools: list[Any] = []
        names: set[Any] = set()
        cursors: set[str] = set()
        cursor: str | None = None
        while True:
            page = await client.session.send_request(
                mcp_types.ListToolsRequest(params=mcp_types.PaginatedRequestParams(cursor=cursor)),
                _Page,
            )
            entries = page.tools
            exchange.bounds.take_page(len(entries))
            tools.extend(entries)
            names.update(entry.get("name") for entry in entries)
            cursor = page.next_cursor
            if not cursor or (wanted and wanted <= names):
                break
            if cursor in cursors:
                raise InputError(
                    f"the server's tools/list page {exchange.bounds.pages} gives the cursor "
                    f"{one_line_json(cursor)[:80]} again: its pages never end",
                    "fix the server's paging",
                )
            cursors.add(cursor)
        exchange.done = True
        info = client.server_info
        name = f"{info.name} {info.version or ''}".strip() if info is not None else ""
        return LiveListing(tools, exchange.bounds.pages, name)


def _transport(
    server: StdioServer | RemoteServer, exchange: Exchange, stderr: IO[bytes]
) -> AbstractAsyncContextManager[Any]:
    if isinstance(server, StdioServer):
        from .mcp_stdio import stdio_transport

        return stdio_transport(server.command, exchange, stderr)
    from .mcp_http import remote_transport

    return remote_transport(server, exchange)


def _explained(
    exc: BaseException, exchange: Exchange, server: StdioServer | RemoteServer
) -> InputError:
    """What went wrong, in the user's words: the first fault a transport found, then ours,
    then the deadline, then the SDK's or the network's own error."""
    leaves = list(_leaves(exc))
    if exchange.fault is not None:
        return exchange.fault
    for leaf in leaves:
        if isinstance(leaf, InputError):
            return leaf
    if exchange.scope is not None and exchange.scope.cancel_called:
        return _timed_out(exchange, server)
    return _first_known(leaves, exchange, server)


def _first_known(
    leaves: list[BaseException], exchange: Exchange, server: StdioServer | RemoteServer
) -> InputError:
    asking = exchange.asking
    where = display_url(server.url) if isinstance(server, RemoteServer) else ""
    for leaf in leaves:
        if isinstance(leaf, OSError) and isinstance(server, StdioServer):
            return InputError(
                f"cannot start {server.command[0]!r}: {leaf.strerror or leaf}",
                "give the server's command after --command, e.g. --command npx -y my-server",
            )
        if isinstance(server, RemoteServer) and exchange.http_status is not None:
            return _http_refused(exchange.http_status, asking, server)
        if isinstance(leaf, MCPError):
            return InputError(
                f"the server refused {asking}: {one_line_json(leaf.error.message)[:300]}",
                "check the server's own documentation and arguments",
            )
        if isinstance(leaf, httpx2.ConnectError | httpx2.ConnectTimeout):
            return InputError(
                f"cannot connect to {where}: {leaf}", "check the URL, and that the server is up"
            )
        if isinstance(leaf, ValidationError):
            problem = leaf.errors()[0]
            place = ".".join(str(part) for part in problem["loc"])
            return InputError(
                f"the server's answer to {asking} is not valid MCP: {place}: {problem['msg']}",
                "fix the server: its answer does not follow the MCP schema",
            )
    first = leaves[0] if leaves else None
    return InputError(
        f"the exchange with the server failed during {asking}: "
        f"{type(first).__name__}: {str(first)[:300]}",
        "check the server's address or command by hand",
    )


def _http_refused(status: int, asking: str, server: RemoteServer) -> InputError:
    fix = "check the URL, and the headers given with --header-env (a token is often missing)"
    if status in (404, 405) and server.transport == "http":
        fix = "check the URL; if the server speaks the older SSE transport, add --transport sse"
    try:
        shown = f"HTTP {status} ({HTTPStatus(status).phrase})"
    except ValueError:
        shown = f"HTTP {status}"
    return InputError(f"the server answered {shown} to {asking}", fix)


def _timed_out(exchange: Exchange, server: StdioServer | RemoteServer) -> InputError:
    check = (
        "check that the command starts an MCP server on stdio"
        if isinstance(server, StdioServer)
        else "check the URL and --transport"
    )
    return InputError(
        f"the server did not answer {exchange.asking} within {exchange.timeout:g} s",
        f"{check}, or raise --timeout",
    )


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside ``exc``'s groups (task groups gather them), in order, each
    followed by what caused it."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
        return
    yield exc
    if exc.__cause__ is not None:
        yield from _leaves(exc.__cause__)


@contextlib.contextmanager
def _quiet_sdk_logs() -> Iterator[None]:
    """The SDK and its HTTP client log their failures, tracebacks and all, through loggers
    no handler is configured for, which Python then prints to stderr, where the one-line
    reason goes. While the exchange runs such records are dropped (a handler configured
    on purpose still gets them)."""
    saved = logging.lastResort
    logging.lastResort = logging.NullHandler()
    try:
        yield
    finally:
        logging.lastResort = saved


def _stderr_tail(stderr: IO[bytes]) -> str:
    try:
        stderr.seek(0, os.SEEK_END)
        size = stderr.tell()
        stderr.seek(max(size - _STDERR_TAIL, 0))
        tail = stderr.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f" (its stderr ends: {tail!r})" if tail else ""
