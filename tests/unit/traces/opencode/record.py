"""Re-record the OpenCode trace fixtures: ``python tests/unit/traces/opencode/record.py``.

Runs the real binary (``npm ci --prefix products`` installs it; ``rg`` must be on PATH)
offline against the scripted Chat Completions server on 127.0.0.1, exactly as the runner
starts it (the preset's argv, its launch hook's configuration and seeded home, home
isolation), and writes each stdout as ``<name>.jsonl`` beside this file. The damaged
copies (cut, no final step, garbage, unreadable tokens, a cost from a price table) are
made from the recordings by :func:`damaged`, so they stay in step with the real trace's
shape. ``python record.py NAME...`` re-records only those recordings (no damaged copies).
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

from model_server import ScriptedModelServer, failure, text, tool_calls  # noqa: E402

from pytest_skill_lens.run.products.description import LaunchContext, argv  # noqa: E402
from pytest_skill_lens.run.products.env import make_home, product_env  # noqa: E402
from pytest_skill_lens.run.products.opencode import PRESET, launch  # noqa: E402
from pytest_skill_lens.settings import ProductTable  # noqa: E402

SKILL = """---
name: greet
description: Greets people warmly
---
Say GREET-INSTRUCTIONS, then hello.
"""
LOAD = ("skill", json.dumps({"name": "greet"}))
BASH = ("bash", json.dumps({"command": "echo from-bash", "description": "Print a word"}))
REMOVE = ("bash", json.dumps({"command": "rm -r .agents/skills/greet", "description": "Remove"}))
# OpenCode 1.18.33 does not list a SKILL.md with no frontmatter: its skill tool says so.
SKILLS = {"unlisted_load": "Say GREET-INSTRUCTIONS, then hello.\n"}


# name: (prompt, the replies to "say hi")
RECORDINGS: dict[str, tuple[str, Sequence[Mapping[str, Any]]]] = {
    "loaded": (
        "/greet say hi",
        [
            tool_calls([LOAD], usage=(3100, 50), cached=400),
            text("Hello from greet", usage=(3200, 26), cached=3000, reasoning=15),
        ],
    ),
    "loaded_not_loaded": ("/greet say hi", [text("Hello without loading")]),
    "offered_skill": ("say hi", [tool_calls([LOAD]), text("Hello after loading")]),
    "offered_no_skill": ("say hi", [text("Hello without the skill")]),
    "other_skill": (
        "say hi",
        [tool_calls([("skill", json.dumps({"name": "nosuch"}))]), text("Hello")],
    ),
    "bash": ("say hi", [tool_calls([BASH]), text("Hello after bash")]),
    "api_error": ("say hi", [failure(400, "scripted refusal")]),
    # The skill is listed, then gone when the model asks for it: the skill tool fails.
    "failed_load": ("say hi", [tool_calls([REMOVE]), tool_calls([LOAD]), text("Hello")]),
    "unlisted_load": ("say hi", [tool_calls([LOAD]), text("Hello")]),
}


def record(name: str, prompt: str, replies: Sequence[Mapping[str, Any]]) -> bytes:
    with (
        tempfile.TemporaryDirectory() as work,
        tempfile.TemporaryDirectory() as home,
        ScriptedModelServer(by_content={"say hi": list(replies)}) as server,
    ):
        skill = Path(work, PRESET.skills_dir, "greet")
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(SKILLS.get(name, SKILL), encoding="utf-8")
        make_home(Path(home))
        products = ROOT / "products" / "node_modules" / ".bin"
        source = {
            "PATH": f"{products}{os.pathsep}{os.environ['PATH']}",
            "OPENAI_BASE_URL": server.url,
            "OPENAI_API_KEY": "dummy",
            "OPENCODE_MODEL": "scripted-model",
        }
        table = ProductTable()
        env = product_env(PRESET, table, "home", Path(home), source, sandbox=None)
        assert PRESET.launch is launch
        context = LaunchContext(env, Path(home), Path(work), isolated=True, sandboxed=False)
        started = launch(context)
        for relative, content in started.files.items():
            Path(home, relative).parent.mkdir(parents=True, exist_ok=True)
            Path(home, relative).write_text(content, encoding="utf-8")
        done = subprocess.run(
            argv(PRESET, table, prompt),
            cwd=work,
            env={**env, **started.env},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=300,
        )
        print(name, "exit", done.returncode, "requests", len(server.requests))
        return done.stdout


def damaged(loaded: bytes) -> dict[str, bytes]:
    """Copies of the recordings, broken the ways a real run can break."""
    lines = loaded.splitlines(keepends=True)
    last = lines[-1]
    finish = json.loads(last)
    bad_tokens = {**finish, "part": {**finish["part"], "tokens": {"input": -1, "output": True}}}
    priced = {**finish, "part": {**finish["part"], "cost": 0.00053}}
    text_cost = {**finish, "part": {**finish["part"], "cost": "0.5"}}
    return {
        "cut_mid_line": b"".join(lines[:-1]) + last[: len(last) // 2],
        "no_final_step": b"".join(lines[:3]),  # ends after the step that asked for tools
        "garbage_lines": b"".join(
            [b"not json at all\n", *lines[:-1], b"\x00\xff{[\n", b"[1, 2]\n", b"{\n", last]
        ),
        "bad_tokens": b"".join([*lines[:-1], json.dumps(bad_tokens).encode() + b"\n"]),
        "priced": b"".join([*lines[:-1], json.dumps(priced).encode() + b"\n"]),
        "text_cost": b"".join([*lines[:-1], json.dumps(text_cost).encode() + b"\n"]),
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
