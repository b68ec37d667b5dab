"""Re-record the Copilot CLI trace fixtures: ``python tests/unit/traces/copilot/record.py``.

Runs the real binary (``npm ci --prefix products`` installs it) offline in its
bring-your-own-model mode against the scripted Anthropic server on 127.0.0.1, exactly
as the runner starts it (the preset's argv, the usage file, home isolation), and
writes each stdout as ``<name>.jsonl`` and each usage file as ``<name>.usage.json``
beside this file. The damaged copies (cut, no result event, garbage, a result with no
premium-request count, a shutdown event carrying the usage) are made from the
recordings by :func:`damaged`, so they stay in step with the real trace's shape.
``python record.py NAME...`` re-records only those recordings (no damaged copies).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests" / "plugin"))
sys.path.insert(0, str(ROOT / "src"))

from anthropic_server import AnthropicServer, failure, text, tool_use  # noqa: E402

from pytest_skill_lens.run.products.copilot import PRESET  # noqa: E402
from pytest_skill_lens.run.products.description import argv  # noqa: E402
from pytest_skill_lens.run.products.env import make_home, product_env  # noqa: E402
from pytest_skill_lens.settings import ProductTable  # noqa: E402

SKILL = """---
name: greet
description: Greets people warmly
---
Say GREET-INSTRUCTIONS, then hello.
"""
BASH = ("bash", {"command": "echo from-bash", "description": "Print a word"})
LOAD = ("skill", {"skill": "greet"})
# SKILL.md as Copilot 1.0.102 refuses it: a description over 1,024 characters is not
# listed; a skill the model may not invoke is listed, and its skill tool says not found.
SKILLS = {
    "unlisted_skill": SKILL.replace("Greets people warmly", "Greets people warmly. " * 50),
    "skill_refused": SKILL.replace("---\nSay", "disable-model-invocation: true\n---\nSay"),
}

# name: (prompt, the replies to "say hi")
RECORDINGS: dict[str, tuple[str, Sequence[Mapping[str, Any]]]] = {
    "loaded": ("/greet say hi", [text("Hello from greet", usage=(120, 8), cache_read=30)]),
    "offered_skill": (
        "say hi",
        [
            tool_use([("skill", {"skill": "greet"})]),
            text("Hello after loading", usage=(100, 7), cache_read=10, cache_write=20),
        ],
    ),
    "offered_no_skill": ("say hi", [text("Hello without the skill")]),
    "other_skill": ("say hi", [tool_use([("skill", {"skill": "nosuch"})]), text("Hello")]),
    "loaded_then_tool": (
        "/greet say hi",
        [tool_use([("skill", {"skill": "greet"})]), text("Hello, the skill loaded")],
    ),
    "bash": ("say hi", [tool_use([BASH]), text("Hello after bash")]),
    "api_error": ("say hi", [failure(400, "scripted refusal")]),
    "unlisted_skill": ("say hi", [tool_use([LOAD]), text("Hello")]),
    "skill_refused": ("say hi", [tool_use([LOAD]), text("Hello")]),
}


def record(name: str, prompt: str, replies: Sequence[Mapping[str, Any]]) -> tuple[bytes, bytes]:
    with (
        tempfile.TemporaryDirectory() as work,
        tempfile.TemporaryDirectory() as root,
        AnthropicServer(by_content={"say hi": list(replies)}) as server,
    ):
        skill = Path(work, ".agents", "skills", "greet")
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(SKILLS.get(name, SKILL), encoding="utf-8")
        home, usage = Path(root, "home"), Path(root, "usage.json")
        make_home(home)
        products = ROOT / "products" / "node_modules" / ".bin"
        source = {
            "PATH": f"{products}{os.pathsep}{os.environ['PATH']}",
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_TYPE": "anthropic",
            "COPILOT_PROVIDER_BASE_URL": server.url,
            "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_MODEL": "claude-sonnet-4.5",
        }
        table = ProductTable()
        env = product_env(PRESET, table, "home", home, source, sandbox=None)
        command = [*argv(PRESET, table, prompt), f"--usage-output-file={usage}"]
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, timeout=120)
        print(name, "exit", done.returncode, "requests", len(server.requests))
        return done.stdout, usage.read_bytes() if usage.is_file() else b""


def damaged(loaded: bytes, usage: bytes) -> dict[str, bytes]:
    """Copies of the loaded recording, broken the ways a real run can break."""
    lines = loaded.splitlines(keepends=True)
    result = lines[-1]
    event = json.loads(result)
    no_premium = {**event, "usage": {"totalApiDurationMs": 1}}
    metrics = json.loads(usage)["modelMetrics"]
    # The shape the schema gives session.shutdown (ShutdownData), which some versions
    # write into the trace before the result event.
    shutdown = {
        "type": "session.shutdown",
        "data": {
            "shutdownType": "routine",
            "totalPremiumRequests": 2,
            "totalApiDurationMs": 29,
            "sessionStartTime": 0,
            "codeChanges": {"linesAdded": 0, "linesRemoved": 0, "filesModified": []},
            "modelMetrics": metrics,
        },
    }
    return {
        "cut_mid_line": b"".join(lines[:-1]) + result[: len(result) // 2],
        "no_result": b"".join(lines[:-1]),
        "garbage_lines": b"".join(
            [b"not json at all\n", *lines[:-1], b"\x00\xff{[\n", b"[1, 2]\n", b"{\n", result]
        ),
        "no_premium": b"".join([*lines[:-1], json.dumps(no_premium).encode() + b"\n"]),
        "shutdown_usage": b"".join([*lines[:-1], json.dumps(shutdown).encode() + b"\n", result]),
    }


def main() -> None:
    if sys.argv[1:]:
        for name in sys.argv[1:]:
            trace, usage = record(name, *RECORDINGS[name])
            (HERE / f"{name}.jsonl").write_bytes(trace)
            if usage:
                (HERE / f"{name}.usage.json").write_bytes(usage)
        return
    recorded = {name: record(name, *spec) for name, spec in RECORDINGS.items()}
    for name, (trace, usage) in recorded.items():
        (HERE / f"{name}.jsonl").write_bytes(trace)
        if usage:
            (HERE / f"{name}.usage.json").write_bytes(usage)
    for name, data in damaged(*recorded["loaded"]).items():
        (HERE / f"{name}.jsonl").write_bytes(data)


if __name__ == "__main__":
    main()
