"""A scripted OpenAI-compatible Chat Completions server on 127.0.0.1, for tests without internet.

Import it from a test module in ``tests/plugin`` with ``from model_server import ...``.

Each conversation is scripted by its task (the first user message): ``script[task]`` is
a list of replies, and every request whose task is ``task`` takes the next one; the
last reply repeats, so a tool call as the last reply is a loop that never ends. A
reply is one of:

* :func:`text` -- the assistant answers ``content``;
* :func:`tool_calls` -- the assistant asks for tools, ``[(name, arguments text), ...]``,
  with ids ``call_0``, ``call_1``, ... counted over the server's life (scripted_server.py),
  unless the script sets one;
* :func:`failure` -- an HTTP error status with an OpenAI-style error body;
* :func:`dropped` -- the connection is closed with no response at all;
* :func:`garbled` -- status 200 with a body that is not JSON.

A conversation whose task has no script may be answered by ``by_content``: the
replies of the first key (in insertion order) that occurs anywhere in its task. A
judge's task is the whole judge prompt, so a test keys the judge's replies by a
word of the response being graded.

``usage=(prompt, completion)`` sets the usage block (``None`` leaves it out); ``cached``
adds ``prompt_tokens_details.cached_tokens`` and ``reasoning``
``completion_tokens_details.reasoning_tokens``. Every request is recorded, in order, as a
:class:`Request` (path, headers, parsed JSON body).

A request with ``"stream": true`` gets the same reply as server-sent chunks, as the API
streams it: a role chunk, the text as one ``delta.content``, each tool call as one delta
(its arguments whole), a ``finish_reason`` chunk, then, when the request asked for it
(``stream_options.include_usage``), a usage chunk with no choices, and ``[DONE]``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

from event_stream import send_events
from scripted_server import ScriptedRequest, ScriptedServer

__all__ = [
    "MODEL",
    "Request",
    "ScriptedModelServer",
    "dropped",
    "failure",
    "garbled",
    "text",
    "tool_calls",
]

MODEL = "gpt-4o-mini-2024-07-18"  # what the server says answered; genai-prices knows it


class Request(ScriptedRequest):
    @staticmethod
    def task_in(body: Mapping[str, Any]) -> str:
        return _task(body)

    def messages(self, role: str) -> list[dict[str, Any]]:
        return [m for m in self.body.get("messages", []) if m.get("role") == role]


def _usage(usage: tuple[int, int] | None, cached: int, reasoning: int = 0) -> dict[str, Any] | None:
    if usage is None:
        return None
    block: dict[str, Any] = {
        "prompt_tokens": usage[0],
        "completion_tokens": usage[1],
        "total_tokens": usage[0] + usage[1],
    }
    if cached:
        block["prompt_tokens_details"] = {"cached_tokens": cached}
    if reasoning:
        block["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return block


def text(
    content: str,
    *,
    usage: tuple[int, int] | None = (10, 5),
    cached: int = 0,
    reasoning: int = 0,
    model: str = MODEL,
) -> dict[str, Any]:
    return {
        "message": {"role": "assistant", "content": content},
        "finish": "stop",
        "usage": _usage(usage, cached, reasoning),
        "model": model,
    }


def tool_calls(
    calls: Sequence[tuple[str, str]],
    *,
    usage: tuple[int, int] | None = (10, 5),
    cached: int = 0,
    model: str = MODEL,
) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": None,
        # No id: the server gives each its own as it serves the reply.
        "tool_calls": [
            {"type": "function", "function": {"name": n, "arguments": a}} for n, a in calls
        ],
    }
    return {
        "message": message,
        "finish": "tool_calls",
        "usage": _usage(usage, cached),
        "model": model,
    }


def failure(status: int, message: str = "scripted failure") -> dict[str, Any]:
    return {"status": status, "error": {"message": message, "type": "server_error"}}


def dropped() -> dict[str, Any]:
    """The server hangs up without answering: the client sees a connection error."""
    return {"status": DROPPED}


DROPPED = 0  # not an HTTP status: the handler closes the connection instead


def garbled(body: str = "<html>502 Bad Gateway</html>") -> dict[str, Any]:
    """A 200 whose body is not JSON, as a misbehaving proxy may send."""
    return {"garbled": body}


def _task(body: Mapping[str, Any]) -> str:
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


class ScriptedModelServer(ScriptedServer):
    """Serves ``POST <base>/chat/completions`` from a script; use as a context manager."""

    requests: list[Request]
    request_type = Request
    base_path = "/v1"

    def serves(self, path: str) -> bool:
        return path.endswith("/chat/completions")

    def reply(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        taken, reply, _ = self.take(path, headers, body)
        if taken == "no endpoint":
            return 404, {"error": {"message": f"no such endpoint {path}", "type": "test"}}
        if taken == "no script":
            task = _task(body)
            return 400, {"error": {"message": f"no script for task {task!r}", "type": "test"}}
        if reply.get("status") == DROPPED:
            return DROPPED, None
        if "garbled" in reply:
            return 200, reply["garbled"]
        if "status" in reply:
            return int(reply["status"]), {"error": reply["error"]}
        message = dict(reply["message"])
        if message.get("tool_calls"):
            message["tool_calls"] = [
                call if "id" in call else {"id": f"call_{self.fresh('call')}", **call}
                for call in message["tool_calls"]
            ]
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{self.fresh('reply')}",
            "object": "chat.completion",
            "created": 0,
            "model": reply["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": reply["finish"]}],
        }
        if reply["usage"] is not None:
            payload["usage"] = reply["usage"]
        return 200, payload

    def send(
        self, handler: BaseHTTPRequestHandler, status: int, payload: Any, body: Mapping[str, Any]
    ) -> None:
        if status == DROPPED:
            handler.close_connection = True
            return
        if status != 200 or not isinstance(payload, dict) or body.get("stream") is not True:
            super().send(handler, status, payload, body)
            return
        options = body.get("stream_options")
        wants_usage = isinstance(options, dict) and options.get("include_usage") is True
        frames = [f"data: {json.dumps(c)}\n\n" for c in _chunks(payload, wants_usage)]
        send_events(handler, [*frames, "data: [DONE]\n\n"], sized=True)


def _chunks(payload: Mapping[str, Any], wants_usage: bool) -> list[dict[str, Any]]:
    """One completion as the stream's chunks (see the module's docstring)."""
    choice = payload["choices"][0]
    message, head = choice["message"], {k: payload[k] for k in ("id", "created", "model")}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        one = {"index": 0, "delta": delta, "finish_reason": finish}
        return {**head, "object": "chat.completion.chunk", "choices": [one]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    if message.get("content"):
        chunks.append(chunk({"content": message["content"]}))
    for index, call in enumerate(message.get("tool_calls") or []):
        chunks.append(chunk({"tool_calls": [{"index": index, **call}]}))
    chunks.append(chunk({}, choice["finish_reason"]))
    if wants_usage and "usage" in payload:
        chunks.append(
            {**head, "object": "chat.completion.chunk", "choices": [], "usage": payload["usage"]}
        )
    return chunks
