"""A scripted Gemini API server on 127.0.0.1, for tests without internet.

Import it from a test module in ``tests/plugin`` with ``from gemini_server import ...``.
It serves ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` (the main turns
of Gemini CLI) and ``:generateContent`` (its side calls) the way :mod:`anthropic_server`
serves the Messages API: each conversation is scripted by its task, every request about
that task takes the next reply, and the last reply repeats. A reply is:

* :func:`text` -- the model answers with one text part;
* :func:`function_calls` -- the model asks for tools, ``[(name, args dict), ...]``, as
  ``functionCall`` parts with ids ``call_0``, ``call_1``, ... counted over the server's
  life (scripted_server.py), unless the script sets one;
* :func:`failure` -- an HTTP error status with a Google-style error body.

The task is the first user text that is not Gemini CLI's ``<session_context>`` preamble
(the prompt, as the product sends it). A conversation whose task has no script may be
answered by ``by_content`` (the replies of the first key found anywhere in the task).

A ``:generateContent`` request that asks for JSON by schema (``responseJsonSchema``, as
the CLI's model router does) is a side call: it is answered with an object built from
the schema (a string ``"scripted"``, an integer ``1``) and no usage, and takes no reply
of the conversation's script. Streamed, a text reply arrives in two chunks (the reader
must concatenate them) and the usage rides on the last chunk, as the API sends it.

``usage=(prompt, candidates)`` sets ``usageMetadata``; ``cached`` adds
``cachedContentTokenCount`` and ``thoughts`` ``thoughtsTokenCount``. Every request is
recorded, in order, with its path, its model (from the path) and its parsed body.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

from event_stream import send_events
from scripted_server import ScriptedRequest, ScriptedServer

__all__ = ["MODEL", "GeminiServer", "Request", "failure", "function_calls", "text"]

MODEL = "gemini-2.5-flash"  # what the server says answered; genai-prices knows it
PREAMBLE = "<session_context>"  # Gemini CLI's text before the prompt (OS, date, listing)
_STATUS = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND"}


def _texts(content: Mapping[str, Any]) -> list[str]:
    parts = content.get("parts")
    return [
        part["text"]
        for part in (parts if isinstance(parts, list) else [])
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]


def _task(body: Mapping[str, Any]) -> str:
    for content in body.get("contents", []):
        if isinstance(content, dict) and content.get("role", "user") == "user":
            for chunk in _texts(content):
                if not chunk.lstrip().startswith(PREAMBLE):
                    return chunk
    return ""


class Request(ScriptedRequest):
    @staticmethod
    def task_in(body: Mapping[str, Any]) -> str:
        return _task(body)

    @property
    def model(self) -> str:
        """The model the path names (``m`` of ``/v1beta/models/m:generateContent``)."""
        return self.path.split("?")[0].rpartition("/")[2].partition(":")[0]

    @property
    def streamed(self) -> bool:
        return ":streamGenerateContent" in self.path

    @property
    def system(self) -> str:
        instruction = self.body.get("systemInstruction")
        return "".join(_texts(instruction)) if isinstance(instruction, dict) else ""

    def tool_names(self) -> list[str]:
        """Every function the request offered the model."""
        return [
            declaration.get("name", "")
            for tool in self.body.get("tools", [])
            for declaration in tool.get("functionDeclarations", [])
        ]

    def tool_results(self) -> list[tuple[str, str]]:
        """``(name, output text)`` of every function response in the conversation, in order."""
        found = []
        for content in self.body.get("contents", []):
            for part in content.get("parts", []):
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(response, dict):
                    inner = response.get("response")
                    output = inner.get("output", inner) if isinstance(inner, dict) else inner
                    text_of = output if isinstance(output, str) else json.dumps(output)
                    found.append((str(response.get("name", "")), text_of))
        return found


def _usage(usage: tuple[int, int], cached: int, thoughts: int) -> dict[str, Any]:
    block = {
        "promptTokenCount": usage[0],
        "candidatesTokenCount": usage[1],
        "totalTokenCount": usage[0] + usage[1] + thoughts,
    }
    if cached:
        block["cachedContentTokenCount"] = cached
    if thoughts:
        block["thoughtsTokenCount"] = thoughts
    return block


def text(
    content: str,
    *,
    usage: tuple[int, int] = (10, 5),
    cached: int = 0,
    thoughts: int = 0,
    model: str = MODEL,
) -> dict[str, Any]:
    return {
        "parts": [{"text": content}],
        "usage": _usage(usage, cached, thoughts),
        "model": model,
    }


def function_calls(
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    usage: tuple[int, int] = (10, 5),
    model: str = MODEL,
) -> dict[str, Any]:
    # No id: the server gives each its own as it serves the reply.
    parts = [{"functionCall": {"name": name, "args": dict(args)}} for name, args in calls]
    return {"parts": parts, "usage": _usage(usage, 0, 0), "model": model}


def failure(status: int, message: str = "scripted failure") -> dict[str, Any]:
    return {
        "status": status,
        "error": {"code": status, "message": message, "status": _STATUS.get(status, "INTERNAL")},
    }


def _from_schema(schema: Any) -> Any:
    """A value of JSON schema ``schema``'s shape (Gemini's upper-case types or JSON's)."""
    kind = str(schema.get("type", "")).lower() if isinstance(schema, dict) else ""
    if kind == "object":
        properties = schema.get("properties", {})
        return {key: _from_schema(value) for key, value in properties.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return True
    return "scripted"


def _candidate(parts: list[dict[str, Any]], finished: bool) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finished:
        candidate["finishReason"] = "STOP"
    return candidate


class GeminiServer(ScriptedServer):
    """Serves the Gemini API's ``generateContent`` pair from a script; a context manager."""

    requests: list[Request]
    request_type = Request  # the base URL (GOOGLE_GEMINI_BASE_URL) has no path

    def serves(self, path: str) -> bool:
        route = path.split("?")[0]
        return route.startswith("/v1beta/models/") and route.endswith(
            (":streamGenerateContent", ":generateContent")
        )

    def reply(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        """The status and the whole response (or error) that answers one request."""
        schema = body.get("generationConfig", {}).get("responseJsonSchema")
        if schema is not None and ":generateContent" in path and self.serves(path):
            # A side call (the model router): answered from its schema, never scripted.
            with self._lock:
                self.requests.append(self.record(path, headers, body))
            return 200, _response(text(json.dumps(_from_schema(schema)), usage=(0, 0)))
        taken, reply, _ = self.take(path, headers, body)
        if taken == "no endpoint":
            reply = failure(404, f"no such endpoint {path}")
        elif taken == "no script":
            reply = failure(400, f"no script for task {_task(body)!r}")
        if "status" in reply:
            return int(reply["status"]), {"error": reply["error"]}
        return 200, _response({**reply, "parts": [self._numbered(part) for part in reply["parts"]]})

    def _numbered(self, part: Mapping[str, Any]) -> Mapping[str, Any]:
        """``part`` with an id of its own when it is a function call the script left without."""
        call = part.get("functionCall")
        if not isinstance(call, dict) or "id" in call:
            return part
        return {**part, "functionCall": {"id": f"call_{self.fresh('call')}", **call}}

    def send(
        self, handler: BaseHTTPRequestHandler, status: int, payload: Any, body: Mapping[str, Any]
    ) -> None:
        if status != 200 or ":streamGenerateContent" not in handler.path:
            super().send(handler, status, payload, body)
            return
        frames = [f"data: {json.dumps(chunk)}\r\n\r\n" for chunk in _chunks(payload)]
        send_events(handler, frames, sized=False)


def _response(reply: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [_candidate(list(reply["parts"]), True)],
        "usageMetadata": reply["usage"],
        "modelVersion": reply["model"],
    }


def _chunks(response: dict[str, Any]) -> list[dict[str, Any]]:
    """``response`` as the SSE chunks the API streams: a text part split in two, the
    finish reason and the usage on the last chunk."""
    parts = response["candidates"][0]["content"]["parts"]
    model = response["modelVersion"]
    pieces: list[list[dict[str, Any]]] = []
    for part in parts:
        words = part.get("text")
        if isinstance(words, str) and len(words) > 1:
            half = len(words) // 2
            pieces += [[{"text": words[:half]}], [{"text": words[half:]}]]
        else:
            pieces.append([part])
    chunks = [{"candidates": [_candidate(piece, False)], "modelVersion": model} for piece in pieces]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = response["usageMetadata"]
    return chunks
