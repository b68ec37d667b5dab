"""Re-record the Claude Code trace fixtures: ``python tests/unit/traces/claude_code/record.py``.

Runs the real binary (``npm ci --prefix products`` installs it) against the scripted
Anthropic server on 127.0.0.1, exactly as the runner starts it (the preset's argv and
home isolation), and writes each stdout as ``<name>.jsonl`` beside this file. The
damaged copies (cut, no result event, garbage, huge, no cost) are made from the
recordings by :func:`damaged`, so they stay in step with the real trace's shape (the
huge and deeply nested ones are built by the test itself, to keep the files small).
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

from pytest_skill_lens.run.products.claude_code import PRESET  # noqa: E402
from pytest_skill_lens.run.products.description import argv  # noqa: E402
from pytest_skill_lens.run.products.env import make_home, product_env  # noqa: E402
from pytest_skill_lens.settings import ProductTable  # noqa: E402

SKILL = """---
name: greet
description: Greets people warmly
{extra}---
Say GREET-INSTRUCTIONS, then hello.
"""
HOOKS = """hooks:
  PreToolUse:
    - matcher: "Bash"
      hooks:
        - type: command
          command: "echo pre-hook-ran; echo to-err >&2"
  PostToolUse:
    - matcher: "Bash"
      hooks:
        - type: command
          command: "echo failing; exit 3"
"""
BASH = ("Bash", {"command": "echo from-bash", "description": "Print a word"})

# name: (prompt, SKILL.md frontmatter extra, the replies to "say hi")
RECORDINGS: dict[str, tuple[str, str, Sequence[Mapping[str, Any]]]] = {
    # Listed, but its Skill tool refuses a skill the model may not invoke.
    "skill_refused": (
        "say hi",
        "disable-model-invocation: true\n",
        [tool_use([("Skill", {"skill": "greet"})]), text("Hello")],
    ),
    "loaded": ("/greet say hi", "", [text("Hello from greet", usage=(120, 8), cache_read=30)]),
    "offered_skill": (
        "say hi",
        "",
        [tool_use([("Skill", {"skill": "greet"})]), text("Hello after loading")],
    ),
    "offered_no_skill": ("say hi", "", [text("Hello without the skill")]),
    "hooks": ("/greet say hi", HOOKS, [tool_use([BASH]), text("Hello after bash")]),
    "api_error": ("say hi", "", [failure(500, "scripted outage")]),
    "unknown_command": ("/nosuch say hi", "", [text("Hello, no such command")]),
    "not_user_invocable": ("/greet say hi", "user-invocable: false\n", [text("unused")]),
    "max_budget": ("/greet say hi", HOOKS, [tool_use([BASH]), text("Hello after bash")]),
}
# More flags after the table's, per recording.
ARGS = {"max_budget": ("--max-budget-usd", "0.0000001")}


def record(name: str, prompt: str, extra: str, replies: Sequence[Mapping[str, Any]]) -> bytes:
    with (
        tempfile.TemporaryDirectory() as work,
        tempfile.TemporaryDirectory() as home,
        AnthropicServer(by_content={"say hi": list(replies)}) as server,
    ):
        skill = Path(work, ".claude", "skills", "greet")
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(SKILL.format(extra=extra), encoding="utf-8")
        table = ProductTable(pass_env=["CLAUDE_CODE_MAX_RETRIES"], args=list(ARGS.get(name, ())))
        make_home(Path(home))
        products = ROOT / "products" / "node_modules" / ".bin"
        source = {
            "PATH": f"{products}{os.pathsep}{os.environ['PATH']}",
            "ANTHROPIC_API_KEY": "dummy",
            "ANTHROPIC_BASE_URL": server.url,
            "CLAUDE_CODE_MAX_RETRIES": "0",
        }
        env = product_env(PRESET, table, "home", Path(home), source, sandbox=None)
        done = subprocess.run(
            argv(PRESET, table, prompt), cwd=work, env=env, capture_output=True, timeout=120
        )
        print(name, "exit", done.returncode, "requests", len(server.requests))
        return done.stdout


def damaged(loaded: bytes) -> dict[str, bytes]:
    """Copies of the loaded recording, broken the ways a real run can break."""
    lines = loaded.splitlines(keepends=True)
    result = lines[-1]
    event = json.loads(result)
    no_cost = {k: v for k, v in event.items() if k != "total_cost_usd"}
    text_cost = {**event, "total_cost_usd": "0.5"}
    bad_usage = {
        **event,
        "usage": {"input_tokens": -1, "output_tokens": True},
        "modelUsage": {"claude-opus-5-5": {"inputTokens": "ten", "outputTokens": 8}},
    }
    return {
        "cut_mid_line": b"".join(lines[:-1]) + result[: len(result) // 2],
        "no_result": b"".join(lines[:-1]),
        "garbage_lines": b"".join(
            [b"not json at all\n", *lines[:-1], b"\x00\xff{[\n", b"[1, 2]\n", b"{\n", result]
        ),
        "no_cost": b"".join([*lines[:-1], json.dumps(no_cost).encode() + b"\n"]),
        "text_cost": b"".join([*lines[:-1], json.dumps(text_cost).encode() + b"\n"]),
        "bad_usage": b"".join([*lines[:-1], json.dumps(bad_usage).encode() + b"\n"]),
    }


def main() -> None:
    if sys.argv[1:]:
        for name in sys.argv[1:]:
            (HERE / f"{name}.jsonl").write_bytes(record(name, *RECORDINGS[name]))
        return
    recorded = {name: record(name, *spec) for name, spec in RECORDINGS.items()}
    for name, data in {**recorded, **damaged(recorded["loaded"])}.items():
        (HERE / f"{name}.jsonl").write_bytes(data)


if __name__ == "__main__":
    main()
