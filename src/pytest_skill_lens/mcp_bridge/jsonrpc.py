"""JSON-RPC 2.0 messages as the MCP stdio transport carries them: one JSON text a line."""

from __future__ import annotations

import json
from typing import Any, TypeGuard

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

RequestId = str | int


class ParseError(ValueError):
    """A line that is not one JSON text."""


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(line: bytes) -> Any:
    """The JSON value of one line; :class:`ParseError` for anything JSON does not allow."""
    try:
        # NaN and Infinity are Python extensions: a strict peer never sends them.
        return json.loads(line, parse_constant=_no_constants)
    except RecursionError:
        raise ParseError("nested too deeply") from None
    except ValueError as exc:  # also bad UTF-8 and integers past Python's digit limit
        raise ParseError(" ".join(str(exc).split())[:200]) from None


def encode(message: Any) -> bytes:
    """One line of strict JSON, ASCII only, so any string (even a lone surrogate) survives."""
    return json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode(
        "ascii"
    )


def result(request_id: RequestId, value: Any) -> dict[str, Any]:
    """A success response."""
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id: RequestId | None, code: int, message: str) -> dict[str, Any]:
    """An error response; ``None`` when the request's id could not be read."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def valid_id(value: Any) -> TypeGuard[RequestId]:
    """Whether ``value`` is an id MCP allows: a string or an integer (a bool is neither)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
