"""The MCP methods the bridge serves, as a pure function of one decoded message.

``initialize`` echoes the client's protocol version when it is one the bridge
speaks (the newest it speaks otherwise, as the MCP lifecycle says), ``tools/list``
lists the case's tools and ``tools/call`` answers from :mod:`..run.tools.mocktools`, the
one implementation of the ``returns:`` rules. Notifications get no reply, a
message that is not a request gets a JSON-RPC error, and nothing here raises
except a failure to record (:class:`..run.tools.bridge_calls.CallsFileError`): a bridge that
cannot say what it served must stop rather than serve unrecorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .. import __version__
from ..run.tools.bridge_calls import CallsFileError
from ..run.tools.bridge_spec import SERVER_NAME, BridgeSpec
from ..run.tools.mocktools import MockTool, build_mock_tools
from . import jsonrpc

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""The MCP revisions the bridge speaks, newest first; it uses nothing past tools."""

_CLIENT_FIELD_CHARS = 200  # how much of a client's self-description the calls file keeps


class Recorder(Protocol):
    """Where the bridge writes what it served (the calls file, or memory in a self-test)."""

    def initialized(self, protocol_version: str, client: Mapping[str, Any]) -> None: ...

    def listed(self, names: Sequence[str]) -> None: ...

    def called(
        self, name: str, arguments: Any, *, answer: str | None, error: str | None
    ) -> None: ...

    def refused(self, size: int) -> None: ...


class Dispatcher:
    """One bridge process's state: its mock tools (and so their sequence positions)."""

    def __init__(self, spec: BridgeSpec, recorder: Recorder) -> None:
        self._spec = spec
        # Built once per process: a product starts a fresh bridge for every session,
        # so a sequence starts from its first entry in each, as under every runner.
        self._tools: dict[str, MockTool] = build_mock_tools(spec.tools)
        self._recorder = recorder

    def handle(self, message: Any) -> Any:
        """The reply to one decoded line: a response, a list of them, or ``None``."""
        if isinstance(message, list):
            if not message:
                return jsonrpc.error(None, jsonrpc.INVALID_REQUEST, "an empty batch")
            replies = [reply for item in message if (reply := self._one(item)) is not None]
            return replies or None
        return self._one(message)

    def refuse_oversized(
        self, size: int, limit: int, request_id: jsonrpc.RequestId | None
    ) -> dict[str, Any]:
        """The reply to a line too large to read, answered so the client does not wait."""
        self._recorder.refused(size)
        message = f"refused: a message of {size} bytes is over the bridge's limit of {limit}"
        return jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, message)

    def _one(self, message: Any) -> dict[str, Any] | None:
        if not isinstance(message, dict):
            return jsonrpc.error(None, jsonrpc.INVALID_REQUEST, "a message must be an object")
        if "method" not in message and ("result" in message or "error" in message):
            return None  # a response: the bridge sends no requests, so there is nothing to match
        request_id = message.get("id")
        if "id" in message and not jsonrpc.valid_id(request_id):
            return jsonrpc.error(
                None, jsonrpc.INVALID_REQUEST, "an id must be a string or an integer"
            )
        method = message.get("method")
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
            return jsonrpc.error(
                request_id,
                jsonrpc.INVALID_REQUEST,
                'not a JSON-RPC 2.0 request (needs "jsonrpc": "2.0" and a string method)',
            )
        if not jsonrpc.valid_id(request_id):
            return None  # no id: a notification (initialized, cancelled, ...), never answered
        params = message.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "params must be an object")
        try:
            return self._route(request_id, method, params)
        except CallsFileError:
            raise
        except Exception as exc:  # a bug here must cost one reply, never the session
            return jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")

    def _route(
        self, request_id: jsonrpc.RequestId, method: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        if method == "initialize":
            return jsonrpc.result(request_id, self._initialize(params))
        if method == "ping":
            return jsonrpc.result(request_id, {})
        if method == "tools/list":
            self._recorder.listed([tool.name for tool in self._spec.tools])
            return jsonrpc.result(request_id, {"tools": self._listing()})
        if method == "tools/call":
            return self._call(request_id, params)
        return jsonrpc.error(request_id, jsonrpc.METHOD_NOT_FOUND, f"method not found: {method}")

    def _initialize(self, params: Mapping[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        info = params.get("clientInfo")
        client = {
            key: value[:_CLIENT_FIELD_CHARS]
            for key, value in (info.items() if isinstance(info, dict) else ())
            if key in ("name", "version") and isinstance(value, str)
        }
        self._recorder.initialized(str(version), client)
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": SERVER_NAME, "version": __version__},
        }

    def _listing(self) -> list[dict[str, Any]]:
        return [
            {"name": name, "description": tool.description, "inputSchema": tool.schema}
            for name, tool in self._tools.items()
        ]

    def _call(self, request_id: jsonrpc.RequestId, params: Mapping[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str):
            return jsonrpc.error(
                request_id, jsonrpc.INVALID_PARAMS, "tools/call needs a string name"
            )
        arguments = params.get("arguments")
        arguments = {} if arguments is None else arguments
        tool = self._tools.get(name)
        problem = None
        if tool is None:
            problem = f"unknown tool: {name}"
        elif not isinstance(arguments, dict):
            problem = f"the arguments of {name} must be an object"
        if problem is not None or tool is None:
            self._recorder.called(name, arguments, answer=None, error=problem)
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, str(problem))
        answer = tool.call(arguments)
        self._recorder.called(name, arguments, answer=answer, error=None)
        return jsonrpc.result(
            request_id, {"content": [{"type": "text", "text": answer}], "isError": False}
        )
