"""A streamed reply of a scripted server (scripted_server.py): server-sent events.

Each server frames its own events, since the providers' frames differ (the Messages and
Responses APIs name each event, Chat Completions and Gemini do not; Gemini ends a frame
with CRLF); this writes them as its API sends them: all at once with their length
(Chat Completions, Responses), or one by one, then the connection closed, which is how a
client without a length learns the stream ended (Messages, Gemini).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler
from typing import Any

__all__ = ["named_event", "send_events"]


def named_event(kind: str, data: Any) -> str:
    """One ``event:``/``data:`` frame, as the Messages and Responses APIs send them."""
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


def send_events(handler: BaseHTTPRequestHandler, frames: Sequence[str], *, sized: bool) -> None:
    """A 200 ``text/event-stream`` of ``frames``, each complete with its blank line."""
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    if sized:
        data = "".join(frames).encode()
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
        return
    handler.end_headers()
    for frame in frames:
        handler.wfile.write(frame.encode())
    handler.wfile.flush()
    handler.close_connection = True
