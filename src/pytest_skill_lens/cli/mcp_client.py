"""Asking a live MCP server for its tools: a stdio server this command starts, or a remote
one over streamable HTTP or SSE.

The protocol is the official MCP SDK's client (the optional dependency ``mcp``, the extra
``pytest-skill-lens[mcp]``), imported only here and only when a live server is asked, so
every other command, and a captured listing, works without it. The exchange itself is in
:mod:`.mcp_session`; this module is what the command sees.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from ..authoring.json_input import InputError

# The top-level packages the SDK brings: one of them missing is an install without the
# extra (or a broken one), never a bug of ours.
_SDK_PACKAGES = {"mcp", "mcp_types", "httpx2", "httpcore2", "anyio", "pydantic"}
EXTRA_HINT = 'pip install "pytest-skill-lens[mcp]"'


@dataclass(frozen=True)
class StdioServer:
    """A server this command starts: ``command`` is its argv."""

    command: tuple[str, ...]


@dataclass(frozen=True)
class RemoteServer:
    """A server at ``url``, over streamable HTTP (``http``) or the older SSE transport."""

    url: str
    transport: Literal["http", "sse"] = "http"
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # may hold a secret


@dataclass(frozen=True)
class LiveListing:
    tools: list[Any]
    pages: int
    server: str  # its name and version, as it gave them ("" when it gave none)


def list_tools(
    server: StdioServer | RemoteServer, timeout: float, wanted: Collection[str] = ()
) -> LiveListing:
    """Every tool ``server`` lists, across all its pages, within one deadline of ``timeout``
    seconds and :class:`~..authoring.mcp_listing.ListingBounds`; with ``wanted``, paging
    stops once each of those names has been listed. Any failure is an :class:`InputError`.
    """
    try:
        from . import mcp_session  # the SDK, and its seconds of imports, only now
    except ModuleNotFoundError as exc:
        package = (exc.name or "").split(".")[0]
        if package not in _SDK_PACKAGES:
            raise
        raise InputError(
            "a live server (--command or --url) needs the MCP SDK (the Python package "
            f"{package}), which is not installed",
            EXTRA_HINT,
        ) from None
    return mcp_session.fetch(server, timeout, frozenset(wanted))
