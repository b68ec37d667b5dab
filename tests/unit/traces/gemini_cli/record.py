"""Re-record the Gemini CLI trace fixtures: ``python tests/unit/traces/gemini_cli/record.py``.

Runs the real binary (``npm ci --prefix products`` installs it) offline against the
scripted Gemini server on 127.0.0.1 (tests/plugin/gemini_server.py), headless with
``--output-format stream-json``, in a home of its own holding the ``settings.json`` the
product needs (an API key as the auth type, nothing reported home, one attempt per
request) and, for the mock tool, the real MCP bridge as its ``skill-lens`` server. Each
stdout is written as ``<name>.jsonl`` beside this file. The damaged copies (cut, no
result event, garbage, a result whose stats are not counts) are made from the
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

from gemini_server import GeminiServer, failure, function_calls, text  # noqa: E402

from pytest_skill_lens.run.tools.bridge_config import prepare_bridge, remove_bridge  # noqa: E402
from pytest_skill_lens.run.tools.bridge_form import BridgeForm  # noqa: E402
from pytest_skill_lens.suite.model import ToolSpec  # noqa: E402

SKILL = """---
name: greet
description: Greets people warmly
---
Say GREET-INSTRUCTIONS, then hello.
"""
MODEL = "gemini-2.5-flash"
LOOKUP = ToolSpec(name="lookup_code", parameters={"query": "string"}, returns="MCP-RESULT-7f3a")
SHELL = ("run_shell_command", {"command": "echo from-shell", "description": "Print a word"})
ACTIVATE = ("activate_skill", {"name": "greet"})
REMOVE = ("run_shell_command", {"command": "rm -r .gemini/skills/greet", "description": "Remove"})
# Gemini CLI 0.61 does not list a SKILL.md with no frontmatter: activating it is refused.
UNLISTED = "Say GREET-INSTRUCTIONS, then hello.\n"
SKILLS = {"unlisted_activation": UNLISTED}
SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False, "maxAttempts": 1},
}

# name: (the replies to "say hi", whether the lookup_code mock tool is served)
RECORDINGS: dict[str, tuple[Sequence[Mapping[str, Any]], bool]] = {
    "activated": (
        [
            function_calls([ACTIVATE], usage=(2100, 40)),
            text("Hello after loading", usage=(2200, 9), cached=300, thoughts=12),
        ],
        False,
    ),
    "no_skill": ([text("Hello without the skill", usage=(120, 8), cached=30)], False),
    "other_skill": (
        [function_calls([("activate_skill", {"name": "nosuch"})]), text("Hello")],
        False,
    ),
    "mcp_tool": (
        [
            function_calls([("mcp_skill-lens_lookup_code", {"query": "abc"})]),
            text("The code is MCP-RESULT-7f3a"),
        ],
        True,
    ),
    "shell": ([function_calls([SHELL]), text("Hello after the shell")], False),
    "api_error": ([failure(400, "scripted refusal")], False),
    # The skill is listed, then gone when the model asks for it: activate_skill fails.
    "activation_failed": (
        [function_calls([REMOVE]), function_calls([ACTIVATE]), text("Hello")],
        False,
    ),
    "unlisted_activation": ([function_calls([ACTIVATE]), text("Hello")], False),
}


def record(name: str, replies: Sequence[Mapping[str, Any]], tools: bool) -> bytes:
    with (
        tempfile.TemporaryDirectory() as root,
        GeminiServer(by_content={"say hi": list(replies)}) as server,
    ):
        home, work, tmp = Path(root, "home"), Path(root, "work"), Path(root, "tmp")
        skill = work / ".gemini" / "skills" / "greet"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(SKILLS.get(name, SKILL), encoding="utf-8")
        (home / ".gemini").mkdir(parents=True)
        tmp.mkdir()
        settings = dict(SETTINGS)
        bridge = None
        if tools:
            form = BridgeForm(flag="", server={}, prefix="mcp_skill-lens_")
            bridge = prepare_bridge([LOOKUP], form, working_directory=work, parent=Path(root))
            settings["mcpServers"] = json.loads(bridge.config.read_text())["mcpServers"]
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        products = ROOT / "products" / "node_modules" / ".bin"
        env = {
            "PATH": f"{products}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "GOOGLE_GEMINI_BASE_URL": server.url,
            "GEMINI_API_KEY": "dummy",
        }
        command = [
            "gemini",
            *("--output-format", "stream-json", "--yolo", "--skip-trust", "-m", MODEL),
            "--prompt=say hi",
        ]
        done = subprocess.run(
            command, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120
        )
        if bridge is not None:
            remove_bridge(bridge)
        print(name, "exit", done.returncode, "requests", len(server.requests))
        return done.stdout


def damaged(activated: bytes) -> dict[str, bytes]:
    """Copies of the activated recording, broken the ways a real run can break."""
    lines = activated.splitlines(keepends=True)
    result = lines[-1]
    event = json.loads(result)
    bad_stats = {**event, "stats": {**event["stats"], "input_tokens": "many", "models": []}}
    return {
        "cut_mid_line": b"".join(lines[:-1]) + result[: len(result) // 2],
        "no_result": b"".join(lines[:-1]),
        "garbage_lines": b"".join(
            [b"not json at all\n", *lines[:-1], b"\x00\xff{[\n", b"[1, 2]\n", b"{\n", result]
        ),
        "bad_stats": b"".join([*lines[:-1], json.dumps(bad_stats).encode() + b"\n"]),
    }


def main() -> None:
    if sys.argv[1:]:
        for name in sys.argv[1:]:
            (HERE / f"{name}.jsonl").write_bytes(record(name, *RECORDINGS[name]))
        return
    recorded = {name: record(name, *spec) for name, spec in RECORDINGS.items()}
    for name, trace in recorded.items():
        (HERE / f"{name}.jsonl").write_bytes(trace)
    for name, data in damaged(recorded["activated"]).items():
        (HERE / f"{name}.jsonl").write_bytes(data)


if __name__ == "__main__":
    main()
