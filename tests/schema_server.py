"""A server on 127.0.0.1 that answers every GET with one JSON schema and records the path.

The hostile-$ref tests use it to show that nothing is ever fetched.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextlib.contextmanager
def recording_schema_server(schema: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    """Its base URL and the list of paths requested so far."""
    seen: list[str] = []
    body = json.dumps(schema).encode()

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    # A short poll: shutdown() waits for the loop's next poll (0.5 s by default).
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()
