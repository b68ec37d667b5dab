"""The remote legs of ``mcp-import --url``: the SDK's streamable HTTP and SSE transports,
on an HTTP client whose every response body is counted against the listing's bounds.

The SDK reads a JSON answer whole, and an SSE event up to a size of its own, before
anything could count it; counting below it, as the bytes arrive, cuts a flood at the cap
whatever the transport does with it. Bodies are asked for uncompressed, and a compressed
one is refused, because its size on the wire says nothing of its size in memory.

Imported only inside :mod:`.mcp_session`'s functions: it loads the SDK when it loads.
"""

from __future__ import annotations

import urllib.parse
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from ..authoring.json_input import InputError
from .mcp_client import RemoteServer
from .mcp_exchange import Exchange


@asynccontextmanager
async def remote_transport(server: RemoteServer, exchange: Exchange) -> AsyncIterator[Any]:
    counting = _CountingTransport(exchange, server)
    headers = {**server.headers, "Accept-Encoding": "identity"}
    timeout = httpx2.Timeout(exchange.timeout)
    if server.transport == "sse":

        def client(
            headers: dict[str, str] | None = None,
            timeout: httpx2.Timeout | None = None,
            auth: httpx2.Auth | None = None,
        ) -> httpx2.AsyncClient:
            return httpx2.AsyncClient(
                headers=headers, timeout=timeout, auth=auth, transport=counting
            )

        async with sse_client(
            server.url,
            headers=headers,
            timeout=exchange.timeout,
            sse_read_timeout=exchange.timeout,
            httpx_client_factory=client,
        ) as streams:
            yield streams
        return
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout, transport=counting) as http,
        # An event as large as the listing may be: the byte count below bounds it.
        streamable_http_client(
            server.url, http_client=http, max_sse_event_size=exchange.bounds.max_bytes
        ) as streams,
    ):
        yield streams


class _CountingTransport(httpx2.AsyncBaseTransport):
    def __init__(self, exchange: Exchange, server: RemoteServer) -> None:
        # A client given its own transport takes no proxy from the environment, so the
        # one the environment names for this URL is set here (the SDK's client would use it).
        self.inner = httpx2.AsyncHTTPTransport(proxy=_proxy_for(server.url))
        self.exchange = exchange
        self.server = server

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        # A streamable HTTP server may refuse the optional GET stream; only the answers
        # that carry messages say whether the server accepted the client.
        if request.method == "POST" or self.server.transport == "sse":
            self.exchange.http_status = (
                response.status_code if response.status_code >= 400 else None
            )
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            await response.aclose()
            cut = InputError(
                f"the server compressed its answer ({encoding}) though asked not to: its size "
                "could not be bounded",
                "serve MCP uncompressed, or capture the listing to a file and import that",
            )
            self.exchange.fail(cut)
            raise cut
        response.stream = _Counted(response.stream, self.exchange)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Counted(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, exchange: Exchange) -> None:
        self.inner = inner
        self.exchange = exchange

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self.exchange.take_bytes(len(chunk))  # past the cap: raises, the exchange is cut
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


def _proxy_for(url: str) -> str | None:
    parts = urllib.parse.urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return urllib.request.getproxies().get(parts.scheme)
