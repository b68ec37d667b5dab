"""A one-tool MCP stdio server for record.py: ``lookup_code`` answers MCP-RESULT-7f3a."""

from __future__ import annotations

import json
import sys
from typing import Any


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method = message.get("method")
    if method == "initialize":
        info = {"name": "record", "version": "1"}
        version = message["params"]["protocolVersion"]
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
    if method == "tools/list":
        schema = {"type": "object", "properties": {"id": {"type": "string"}}}
        return {"tools": [{"name": "lookup_code", "description": "look", "inputSchema": schema}]}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "MCP-RESULT-7f3a"}]}
    return None


for line in sys.stdin:
    message = json.loads(line)
    result = answer(message)
    if result is not None and message.get("id") is not None:
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
