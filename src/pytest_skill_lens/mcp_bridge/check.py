"""``--check``: the preflight self-test, one initialize, tools/list and tools/call.

The messages go through the same dispatcher and encoder a product's would, so a
bridge that passes has imported everything it needs, read its spec, listed every
tool and answered a call. Nothing is written to the calls file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import __version__
from ..run.tools.bridge_spec import BridgeSpec
from . import jsonrpc
from .dispatch import PROTOCOL_VERSIONS, Dispatcher


class _Discard:
    """A recorder that keeps nothing: the self-test's calls are not the product's."""

    def initialized(self, protocol_version: str, client: Mapping[str, Any]) -> None:
        pass

    def listed(self, names: Sequence[str]) -> None:
        pass

    def called(self, name: str, arguments: Any, *, answer: str | None, error: str | None) -> None:
        pass

    def refused(self, size: int) -> None:
        pass


def self_test(spec: BridgeSpec) -> str | None:
    """What is wrong with serving ``spec``, in one line, or ``None`` when all answered."""
    dispatcher = Dispatcher(spec, _Discard())
    greeting = _ask(
        dispatcher,
        "initialize",
        {
            "protocolVersion": PROTOCOL_VERSIONS[0],
            "capabilities": {},
            "clientInfo": {"name": "skill-lens-check", "version": __version__},
        },
    )
    if greeting.get("protocolVersion") != PROTOCOL_VERSIONS[0]:
        return f"initialize answered {greeting!r}"
    listing = _ask(dispatcher, "tools/list", {}).get("tools")
    names = [entry.get("name") for entry in listing] if isinstance(listing, list) else None
    declared = [tool.name for tool in spec.tools]
    if names != declared:
        return f"tools/list answered {names!r}, not the declared {declared!r}"
    if spec.tools:
        content = _ask(dispatcher, "tools/call", {"name": declared[0], "arguments": {}})
        texts = content.get("content")
        if not isinstance(texts, list) or not all(isinstance(part, dict) for part in texts):
            return f"tools/call for {declared[0]} answered {content!r}"
    return None


def _ask(dispatcher: Dispatcher, method: str, params: dict[str, Any]) -> dict[str, Any]:
    request = jsonrpc.encode({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    reply = dispatcher.handle(jsonrpc.decode(request))
    jsonrpc.encode(reply)  # every reply must be strict JSON, as it would go to the product
    result = reply.get("result") if isinstance(reply, dict) else None
    return result if isinstance(result, dict) else {"error": reply}
