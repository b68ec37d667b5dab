"""How long an MCP server takes to start and list its tools: the bridge against the ``mcp`` SDK.

A product starts the bridge once for every session of every case, so its start is
paid over and over. Each run starts one server as a product would (a fresh
process, pipes), sends ``initialize``, ``notifications/initialized`` and
``tools/list``, and stops the clock when the tool list arrives. Three servers,
their runs interleaved round by round so a noisy moment hits all of them alike:

* ``floor``: a few lines of standard-library Python that answer the same two
  requests (what any Python server pays: the interpreter and ``json``);
* ``bridge``: ``python -P -m pytest_skill_lens.mcp_bridge`` on a generated spec;
* ``sdk``: the same tools served by the ``mcp`` SDK's low-level server over its
  stdio transport, under ``--sdk-python`` (an interpreter that has ``mcp``; the
  project does not depend on it, so make one with ``python -m venv`` and
  ``pip install mcp``). Without it the SDK is reported as not measured.

Usage: python benchmarks/mcp_bridge_start.py [--rounds 10] [--tools 5] [--sdk-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from pytest_skill_lens.run.tools.bridge_config import bridge_command, bridge_env
from pytest_skill_lens.run.tools.bridge_spec import encode_spec
from pytest_skill_lens.suite.model import ToolSpec

WAIT = 60.0  # a server that has not listed its tools by then has failed, not been slow

FLOOR = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "floor", "version": "0"}}
    else:
        result = {"tools": json.load(open(sys.argv[1]))["tools"]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""

# Written for the SDK's two styles: handlers given to the constructor (2.x) or
# registered by decorators (1.x).
SDK = """
import inspect, json, sys
import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
try:
    import mcp_types as types
except ImportError:
    from mcp import types

SPEC = json.load(open(sys.argv[1]))["tools"]
TOOLS = [types.Tool(name=t["name"], description=t["description"], inputSchema=t["input_schema"])
         for t in SPEC]

async def list_tools(*_args):
    return types.ListToolsResult(tools=TOOLS) if MODERN else TOOLS

async def call_tool(*args):
    return types.CallToolResult(content=[types.TextContent(type="text", text="x")])

MODERN = "on_list_tools" in inspect.signature(Server.__init__).parameters
if MODERN:
    server = Server("sdk", on_list_tools=list_tools, on_call_tool=call_tool)
else:
    server = Server("sdk")
    server.list_tools()(list_tools)
    server.call_tool()(call_tool)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""

REQUESTS = [
    {
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
        "jsonrpc": "2.0",
        "id": 1,
    },
    {"method": "notifications/initialized", "jsonrpc": "2.0"},
    {"method": "tools/list", "jsonrpc": "2.0", "id": 2},
]


def tools(count: int) -> list[ToolSpec]:
    return [
        ToolSpec.model_validate(
            {
                "name": f"tool_{n}",
                "description": f"Tool number {n}",
                "parameters": {"id": "string", "limit": "integer"},
                "returns": [{"when": {"id": "A"}, "value": "a"}, {"value": "other"}],
            }
        )
        for n in range(count)
    ]


def time_one(argv: Sequence[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds from the start of the process to the tool list in hand."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    lines: queue.Queue[bytes] = queue.Queue()
    assert process.stdin is not None and process.stdout is not None

    def pump(stream: IO[bytes]) -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=pump, args=(process.stdout,), daemon=True).start()
    try:
        for message in REQUESTS:
            process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()
        while True:
            reply: Any = json.loads(lines.get(timeout=WAIT))
            if reply.get("id") == 2:
                if "result" not in reply:
                    raise RuntimeError(f"{argv[0]} answered tools/list with {reply}")
                elapsed = time.perf_counter() - started
                break
        process.stdin.close()
        process.wait(timeout=WAIT)
        return elapsed
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def sdk_usable(python: str) -> bool:
    check = [python, "-c", "import mcp.server.lowlevel, mcp.server.stdio"]
    return subprocess.run(check, capture_output=True).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--tools", type=int, default=5)
    parser.add_argument("--sdk-python", default=sys.executable)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mcp-bench-") as scratch:
        base = Path(scratch)
        spec = base / "spec.json"
        spec.write_text(encode_spec(tools(args.tools)), encoding="utf-8")
        (base / "floor.py").write_text(FLOOR, encoding="utf-8")
        (base / "sdk.py").write_text(SDK, encoding="utf-8")
        env = {"PATH": os.environ.get("PATH", os.defpath), **bridge_env()}
        candidates: dict[str, list[str]] = {
            "floor": [sys.executable, "-P", str(base / "floor.py"), str(spec)],
            "bridge": bridge_command(spec, base / "calls.jsonl"),
        }
        if sdk_usable(args.sdk_python):
            candidates["sdk"] = [args.sdk_python, "-P", str(base / "sdk.py"), str(spec)]
        # One unmeasured run each, so every interpreter and module is in the page cache.
        for argv in candidates.values():
            time_one(argv, env, base)
        times: dict[str, list[float]] = {name: [] for name in candidates}
        for round_number in range(args.rounds):
            names = list(candidates)
            # Rotate who goes first, so no server always runs right after another.
            shift = round_number % len(names)
            for name in names[shift:] + names[:shift]:
                times[name].append(time_one(candidates[name], env, base))

    print(f"start to tools/list, {args.rounds} interleaved rounds, {args.tools} tools")
    for name, samples in times.items():
        print(
            f"  {name:<7} median {statistics.median(samples) * 1000:7.1f} ms   "
            f"min {min(samples) * 1000:7.1f} ms   max {max(samples) * 1000:7.1f} ms"
        )
    if "sdk" not in times:
        print(f"  sdk     not measured: {args.sdk_python} cannot import mcp.server")
        return
    ratio = statistics.median(times["sdk"]) / statistics.median(times["bridge"])
    print(f"  sdk / bridge (medians): {ratio:.1f}x")


if __name__ == "__main__":
    main()
