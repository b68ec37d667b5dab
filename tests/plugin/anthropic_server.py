"""A scripted Anthropic Messages API server on 127.0.0.1, for tests without internet.

Import it from a test module in ``tests/plugin`` with ``from anthropic_server import ...``.
It serves ``POST /v1/messages`` the way :mod:`model_server` serves Chat Completions:
each conversation is scripted by its task (the text of the first user message), every
request about that task takes the next reply, and the last reply repeats. A reply is:

* :func:`text` -- the assistant answers with one text block;
* :func:`tool_use` -- the assistant asks for tools, ``[(name, input dict), ...]``, as
  ``tool_use`` blocks with ids ``toolu_0``, ``toolu_1``, ... counted over the server's
  life (scripted_server.py), unless the script sets one;
* :func:`failure` -- an HTTP error status with an Anthropic-style error body.

A conversation whose task has no script may be answered by ``by_content``, as in
:mod:`model_server`: the replies of the first key that occurs anywhere in its task (a
judge's task is the whole judge prompt, so a test keys it by a word of the response).

A request with ``"stream": true`` gets the same reply as server-sent events
(``message_start`` with the input usage, one ``content_block_*`` trio per block, then
``message_delta`` with the output usage and ``message_stop``), as the API streams it.

``usage=(input, output)`` sets the usage block; ``cache_read`` and ``cache_write`` add
``cache_read_input_tokens`` and ``cache_creation_input_tokens`` (which Anthropic counts
apart from ``input_tokens``). Every request is recorded, in order, with its parsed body.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

from event_stream import named_event, send_events
from scripted_server import ScriptedRequest, ScriptedServer

__all__ = ["MODEL", "AnthropicServer", "Request", "failure", "text", "tool_use"]

MODEL = "claude-haiku-4-5-20251001"  # what the server says answered; genai-prices knows it


def _text_of(content: Any) -> str:
    """A message's or a tool result's content as text (a string, or its text blocks joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return json.dumps(content)


class Request(ScriptedRequest):
    @staticmethod
    def task_in(body: Mapping[str, Any]) -> str:
        return _task(body)

    @property
    def system(self) -> str:
        """The system prompt, whether sent as a string or as text blocks."""
        return _text_of(self.body.get("system", ""))

    def tool_results(self) -> list[tuple[str, str]]:
        """``(tool_use_id, text)`` of every tool result in the conversation, in order."""
        return [
            (block["tool_use_id"], _text_of(block.get("content", "")))
            for message in self.body.get("messages", [])
            if message.get("role") == "user" and isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]


def _usage(usage: tuple[int, int], cache_read: int, cache_write: int) -> dict[str, Any]:
    return {
        "input_tokens": usage[0],
        "output_tokens": usage[1],
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_write,
    }


def text(
    content: str,
    *,
    usage: tuple[int, int] = (10, 5),
    cache_read: int = 0,
    cache_write: int = 0,
    model: str = MODEL,
) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": content}],
        "stop_reason": "end_turn",
        "usage": _usage(usage, cache_read, cache_write),
        "model": model,
    }


def tool_use(
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    usage: tuple[int, int] = (10, 5),
    model: str = MODEL,
) -> dict[str, Any]:
    # No id: the server gives each its own as it serves the reply.
    blocks = [
        {"type": "tool_use", "name": name, "input": dict(arguments)} for name, arguments in calls
    ]
    return {
        "content": blocks,
        "stop_reason": "tool_use",
        "usage": _usage(usage, 0, 0),
        "model": model,
    }


def failure(status: int, message: str = "scripted failure") -> dict[str, Any]:
    return {"status": status, "error": {"type": "api_error", "message": message}}


def _task(body: Mapping[str, Any]) -> str:
    for message in body.get("messages", []):
        if message.get("role") == "user":
            return _text_of(message.get("content"))
    return ""


class AnthropicServer(ScriptedServer):
    """Serves ``POST /v1/messages`` from a script; use as a context manager."""

    requests: list[Request]
    request_type = Request  # the base URL has no path: a client appends /v1/messages itself

    def serves(self, path: str) -> bool:
        return path.split("?")[0] == "/v1/messages"

    def reply(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        """The status and the whole message (or error) that answers one request."""
        taken, reply, _ = self.take(path, headers, body)
        if taken == "no endpoint":
            return 404, _error("not_found_error", f"no such endpoint {path}")
        if taken == "no script":
            return 400, _error("invalid_request_error", f"no script for task {_task(body)!r}")
        if "status" in reply:
            return int(reply["status"]), {"type": "error", "error": reply["error"]}
        content = [
            {**block, "id": f"toolu_{self.fresh('call')}"}
            if block["type"] == "tool_use" and "id" not in block
            else block
            for block in reply["content"]
        ]
        return 200, {
            "id": f"msg_{self.fresh('reply')}",
            "type": "message",
            "role": "assistant",
            "model": reply["model"],
            "content": content,
            "stop_reason": reply["stop_reason"],
            "stop_sequence": None,
            "usage": reply["usage"],
        }

    def send(
        self, handler: BaseHTTPRequestHandler, status: int, payload: Any, body: Mapping[str, Any]
    ) -> None:
        if status != 200 or not body.get("stream"):
            super().send(handler, status, payload, body)
            return
        # The same message as the server-sent events the Messages API streams.
        frames = [named_event(event["type"], event) for event in _events(payload)]
        send_events(handler, frames, sized=False)


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """``message`` as the stream of events the Messages API sends for it."""
    usage = dict(message["usage"])
    opening = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {**usage, "output_tokens": 0},
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": opening}]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            {"type": "content_block_start", "index": index, "content_block": start},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
        {"type": "message_stop"},
    ]
    return events
