"""One exchange with a live MCP server: its deadline, its bounds and its first fault,
shared by the session's loop and the transport that carries it."""

from __future__ import annotations

import anyio

from ..authoring.json_input import InputError
from ..authoring.mcp_listing import ListingBounds

HANDSHAKE = "the MCP handshake"


class Exchange:
    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.bounds = ListingBounds()
        self.scope: anyio.CancelScope | None = None
        self.fault: InputError | None = None
        self.asking = HANDSHAKE  # what the server is being asked, for a message
        self.http_status: int | None = None  # the error status of its last HTTP answer
        self.done = False

    def take_bytes(self, size: int) -> None:
        """Count ``size`` bytes from the server; past the cap the exchange is cut (and
        the cut raised, so the transport stops reading)."""
        try:
            self.bounds.take_bytes(size)
        except InputError as cut:
            self.fail(cut)
            raise

    def fail(self, fault: InputError) -> None:
        """Stop the exchange because of ``fault``; the first fault is the one said."""
        if self.fault is None and not self.done:
            self.fault = fault
            if self.scope is not None:
                self.scope.cancel()
