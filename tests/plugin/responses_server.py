"""A scripted OpenAI Responses API server on 127.0.0.1 (``POST <base>/responses``, streamed
as server-sent events), for driving Codex CLI without internet.

Import it from a test module in ``tests/plugin`` with ``from responses_server import ...``.
Scripts work as in model_server.py (scripted_server.py): ``script[task]`` or
``by_content``, the last reply repeating. A conversation's task is the first user message
that is not one the product adds itself (``<environment_context>``, a ``<skill>``). A
reply is one of:

* :func:`text` -- the assistant answers ``content``;
* :func:`calls` -- the assistant calls tools, ``[(name, arguments), ...]``, with call ids
  ``call_<n>_<name>``, ``n`` counted over the server's life (scripted_server.py), unless
  the script sets one;
* :func:`failure` -- an HTTP error status with an OpenAI-style error body.

``usage=(input, output)`` with ``cached`` and ``reasoning`` sets the ``response.completed``
usage (input includes cached, output includes reasoning, as the API counts them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

from event_stream import named_event, send_events
from scripted_server import ScriptedRequest, ScriptedServer

__all__ = ["Request", "ResponsesServer", "calls", "failure", "text"]

_OWN = ("<environment_context>", "<skill>", "<user_instructions>", "# AGENTS.md")


class Request(ScriptedRequest):
    @staticmethod
    def task_in(body: Mapping[str, Any]) -> str:
        return _task(body)

    def _messages(self, role: str) -> list[str]:
        texts = []
        for item in self.body.get("input", []):
            if item.get("type") == "message" and item.get("role") == role:
                for part in item.get("content", []):
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        texts.append(part["text"])
        return texts

    @property
    def system(self) -> str:
        """The developer messages, joined: Codex's system prompt and its skill list."""
        return "\n".join(self._messages("developer"))

    @property
    def user_text(self) -> str:
        return "\n".join(self._messages("user"))

    @property
    def tool_results(self) -> list[str]:
        return [
            str(item.get("output"))
            for item in self.body.get("input", [])
            if item.get("type") == "function_call_output"
        ]

    @property
    def tool_names(self) -> list[str]:
        """Every offered tool, a namespace's members as ``<namespace>__<name>``... flat."""
        names: list[str] = []
        for tool in self.body.get("tools", []):
            names.append(str(tool.get("name", "")))
            for inner in tool.get("tools", []) or []:
                names.append(f"{tool.get('name', '')}__{inner.get('name', '')}")
        return names


def _task(body: Mapping[str, Any]) -> str:
    for item in body.get("input", []):
        if item.get("type") != "message" or item.get("role") != "user":
            continue
        for part in item.get("content", []):
            said = part.get("text") if isinstance(part, dict) else None
            if isinstance(said, str) and not said.lstrip().startswith(_OWN):
                return said
    return ""


def _usage(usage: tuple[int, int], cached: int, reasoning: int) -> dict[str, Any]:
    return {
        "input_tokens": usage[0],
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": usage[1],
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": usage[0] + usage[1],
    }


def text(
    content: str, *, usage: tuple[int, int] = (100, 10), cached: int = 0, reasoning: int = 0
) -> dict[str, Any]:
    item = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": content, "annotations": []}],
    }
    return {"items": [item], "usage": _usage(usage, cached, reasoning)}


def calls(
    made: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    usage: tuple[int, int] = (100, 10),
    cached: int = 0,
    reasoning: int = 0,
) -> dict[str, Any]:
    items = []
    for name, arguments in made:
        namespace, _, short = name.rpartition("__") if name.startswith("mcp__") else ("", "", name)
        # No call_id: the server gives each its own as it serves the reply.
        item: dict[str, Any] = {
            "type": "function_call",
            "name": short,
            "arguments": json.dumps(arguments),
        }
        if namespace:
            item["namespace"] = namespace
        items.append(item)
    return {"items": items, "usage": _usage(usage, cached, reasoning)}


def failure(status: int, message: str = "scripted failure") -> dict[str, Any]:
    return {"status": status, "error": {"message": message, "type": "server_error"}}


class ResponsesServer(ScriptedServer):
    """Serves ``POST <base>/responses`` from a script; use as a context manager."""

    requests: list[Request]
    request_type = Request
    base_path = "/v1"  # a provider entry's base URL

    def serves(self, path: str) -> bool:
        return path.split("?")[0].endswith("/responses")

    def reply(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        taken, reply, _ = self.take(path, headers, body)
        if taken != "reply":
            return 404 if taken == "no endpoint" else 400, {
                "error": {"message": f"{taken}: {path} {_task(body)!r}", "type": "test"}
            }
        if "status" in reply:
            return int(reply["status"]), {"error": reply["error"]}
        items = [
            {**item, "call_id": f"call_{self.fresh('call')}_{item['name']}"}
            if item["type"] == "function_call" and "call_id" not in item
            else item
            for item in reply["items"]
        ]
        return 200, {**reply, "id": f"resp_{self.fresh('reply')}", "items": items}

    def send(
        self, handler: BaseHTTPRequestHandler, status: int, payload: Any, body: Mapping[str, Any]
    ) -> None:
        if status != 200:
            super().send(handler, status, payload, body)
            return
        rid = payload["id"]
        events: list[tuple[str, dict[str, Any]]] = [
            ("response.created", {"response": {"id": rid}}),
        ]
        for at, item in enumerate(payload["items"]):
            events.append(("response.output_item.done", {"output_index": at, "item": item}))
        done = {"id": rid, "status": "completed", "usage": payload["usage"], "output": []}
        events.append(("response.completed", {"response": done}))
        frames = [named_event(kind, {"type": kind, **event}) for kind, event in events]
        send_events(handler, frames, sized=True)
