"""What the scripted provider servers share (model_server.py, anthropic_server.py,
responses_server.py, gemini_server.py); event_stream.py writes their streamed replies.

A server runs on 127.0.0.1 in a thread, records every request in order, and answers
each conversation from its script: ``script[task]`` is a list of replies, every
request about ``task`` takes the next one and the last repeats; a task with no script
may be answered by ``by_content`` (the replies of the first key found anywhere in the
task, counted apart). A subclass says what a task is (its :class:`ScriptedRequest`
type's ``task_in``), which path it serves and how a reply is rendered on the wire; every
request is recorded as that type.

Ids are handed out as a reply is served, never when it is scripted: :meth:`fresh` counts
over the server's life, so no two tool calls (nor two replies) share an id, even when a
reply repeats or two conversations take the same script. A real provider never repeats
one, and a product's trace reader rightly takes a repeated call id for one call reported
twice (a start and an end event). An id a script sets itself is kept as it is.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Literal, Self

POLL_SECONDS = 0.02
Taken = tuple[Literal["reply", "no endpoint", "no script"], Mapping[str, Any], int]


@dataclass(frozen=True)
class ScriptedRequest:
    """One request as a server recorded it; a server's own type adds what it reads."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @staticmethod
    def task_in(body: Mapping[str, Any]) -> str:
        """The conversation's task, as the wire format says it (its first user text)."""
        raise NotImplementedError

    @property
    def task(self) -> str:
        return self.task_in(self.body)


class ScriptedServer:
    """Use as a context manager; subclasses implement the hooks below."""

    request_type: ClassVar[type[ScriptedRequest]]
    base_path: ClassVar[str] = ""  # what a client's base URL adds after the port

    def __init__(
        self,
        script: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
        *,
        by_content: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    ) -> None:
        self.script: dict[str, list[Mapping[str, Any]]] = {
            k: list(v) for k, v in (script or {}).items()
        }
        self.by_content: dict[str, list[Mapping[str, Any]]] = {
            k: list(v) for k, v in (by_content or {}).items()
        }
        self.requests: list[Any] = []
        self._served: dict[str, int] = {}
        self._handed_out: dict[str, int] = {}  # ids given so far, by kind (see fresh)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        # A short poll: shutdown() waits for the loop's next poll, 0.5 s by default,
        # which every test using a server would pay at teardown.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to hand to a client."""
        return f"http://127.0.0.1:{self.port}{self.base_path}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def fresh(self, kind: str) -> int:
        """The next number of ``kind`` ("call", "reply"), 0 first: unique in this server's
        life, so the first call a server makes is still number 0."""
        with self._lock:
            number = self._handed_out.get(kind, 0)
            self._handed_out[kind] = number + 1
            return number

    def for_task(self, task: str) -> list[Any]:
        """The requests of every conversation about ``task``, in arrival order."""
        return [r for r in self.requests if r.task == task]

    def task_of(self, body: Mapping[str, Any]) -> str:
        return self.request_type.task_in(body)

    def record(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Any:
        return self.request_type(path, headers, body)

    # Hooks.
    def serves(self, path: str) -> bool:
        raise NotImplementedError

    def reply(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        """The status and the payload (JSON-able, or text sent as is) for one request."""
        raise NotImplementedError

    def send(
        self, handler: BaseHTTPRequestHandler, status: int, payload: Any, body: Mapping[str, Any]
    ) -> None:
        """Write the response: ``payload`` as JSON (a string as it is)."""
        data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def take(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Taken:
        """Record the request and take its conversation's next reply, with its position.

        A path the server does not serve, or a task nothing is scripted for, takes
        no reply (and counts nothing).
        """
        task = self.task_of(body)
        with self._lock:
            self.requests.append(self.record(path, headers, body))
            key, replies = task, self.script.get(task)
            if not replies:
                found = next((k for k in self.by_content if k in task), None)
                replies = self.by_content.get(found) if found is not None else None
                key = f"\0by_content:{found}"  # its own count, apart from any task's
            if not self.serves(path):
                return "no endpoint", {}, 0
            if not replies:
                return "no script", {}, 0
            position = self._served.get(key, 0)
            self._served[key] = position + 1
            return "reply", replies[min(position, len(replies) - 1)], position

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, payload = server.reply(self.path, headers, body)
                server.send(self, status, payload, body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the requests are recorded instead

        return Handler
