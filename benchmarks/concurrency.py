"""How much --skill-lens-concurrency saves when every model response takes 500 ms.

A local OpenAI-compatible server on 127.0.0.1 answers each case twice, each time after
a fixed delay: first a call to the case's mock tool, then the final text. The real
pydantic-ai runner performs C cases serially and with --skill-lens-concurrency N, in
interleaved rounds (this machine is noisy; the ratio within a round is what counts).
The ideal concurrent time is C x 2 x delay / N, plus pytest's start-up.

    python benchmarks/concurrency.py                 # 100 cases, N = 20, 1 round
    python benchmarks/concurrency.py --cases 40 --rounds 3

Offline and free: the key is a dummy, nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SKILL = """---
name: lookup-skill
description: Looks a value up before answering.
---
Call the lookup tool, then answer with the word done.
"""


def completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "bench",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }


def make_handler(delay: float) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            time.sleep(delay)
            if any(m.get("role") == "tool" for m in body["messages"]):
                message: dict[str, Any] = {"role": "assistant", "content": "done"}
            else:
                call = {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": "{}"},
                }
                message = {"role": "assistant", "content": None, "tool_calls": [call]}
            data = json.dumps(completion(message)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def write_suite(root: Path, cases: int) -> None:
    skill = root / "skills" / "lookup-skill"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    tool = {"name": "lookup", "description": "Look the value up", "returns": "the value"}
    listed = [
        {
            "name": f"case-{i}",
            "task": f"Task {i}: look it up.",
            "tools": [tool],
            "assertions": [{"kind": "contains", "value": "done"}],
        }
        for i in range(cases)
    ]
    (skill / "evals" / "cases.yaml").write_text(json.dumps({"cases": listed}))


def timed_run(root: Path, port: int, concurrency: int) -> float:
    env = {**os.environ, "OPENAI_API_KEY": "dummy"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:langsmith_plugin",
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "pydantic-ai",
        "--skill-lens-model",
        "openai:gpt-4o-mini",
        "--skill-lens-base-url",
        f"http://127.0.0.1:{port}/v1",
        "--skill-lens-concurrency",
        str(concurrency),
    ]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the run failed ({done.returncode}):\n{done.stdout[-3000:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--width", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(args.delay))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    ideal = args.cases * 2 * args.delay / args.width
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        write_suite(root, args.cases)
        for number in range(1, args.rounds + 1):
            serial = timed_run(root, port, 1)
            concurrent = timed_run(root, port, args.width)
            print(
                f"round {number}: serial {serial:.1f} s, concurrency {args.width} "
                f"{concurrent:.1f} s (ideal {ideal:.1f} s plus start-up), "
                f"speed-up {serial / concurrent:.1f}x"
            )
    server.shutdown()


if __name__ == "__main__":
    main()
