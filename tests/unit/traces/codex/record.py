"""Re-record the Codex CLI fixtures: ``python tests/unit/traces/codex/record.py OUT MODE``.

Runs the real codex (products/package.json pins 0.171.0; put products/node_modules/.bin
on PATH) offline against tests/plugin/responses_server.py on 127.0.0.1, in an isolated
HOME and CODEX_HOME under OUT, with the flags the preset uses. MODE is ``loaded``
(``$ext-skill`` and a shell call), ``unlisted`` (the same mention, no skill delivered),
``offered`` (the model reads SKILL.md itself), ``mcp`` (a tool of mcp_server.py here),
``rejected`` (the mention, a SKILL.md with no frontmatter, which Codex refuses to load) or
``rejected_offered`` (that skill offered; the model answers without reading it).
Copy OUT/trace.jsonl (and OUT/home/.codex/sessions/*/*/*/rollout-*.jsonl as
``<mode>_session.jsonl``, OUT/stderr.txt as ``<mode>.stderr.txt`` where the reader needs
it) into this folder. ``turn_failed.jsonl`` is a loaded run whose task the server had no
script for (HTTP 400: ``turn.failed``, exit 1). ``python record.py --damaged`` writes the
copies of loaded.jsonl broken the ways a real run breaks (cut, no turn.completed, garbage).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2] / "plugin"))

from responses_server import ResponsesServer, calls, text  # noqa: E402

TASK = "Create out.txt please"
SKILL = (
    "---\nname: ext-skill\ndescription: Writes out.txt files.\n---\nAlways write OUT-BODY-MARK.\n"
)
NO_FRONTMATTER = "Always write OUT-BODY-MARK.\n"  # Codex 0.171 refuses to load it
REJECTED = ("rejected", "rejected_offered")
SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "loaded": [
        calls([("exec_command", {"cmd": "echo hi > out.txt"})], usage=(1200, 30), cached=200),
        text("DONE", usage=(1300, 7), cached=1000),
    ],
    "unlisted": [text("DONE")],
    "offered": [
        calls([("exec_command", {"cmd": "cat .agents/skills/ext-skill/SKILL.md"})]),
        text("DONE"),
    ],
    "mcp": [calls([("mcp__skill_lens__lookup_code", {"id": "A"})]), text("DONE")],
    "rejected": [text("DONE")],
    "rejected_offered": [text("DONE")],
}


def record(out: Path, mode: str) -> int:
    shutil.rmtree(out, ignore_errors=True)
    (out / "home/.codex").mkdir(parents=True)
    if mode != "unlisted":
        (out / "work/.agents/skills/ext-skill").mkdir(parents=True)
        skill_md = NO_FRONTMATTER if mode in REJECTED else SKILL
        (out / "work/.agents/skills/ext-skill/SKILL.md").write_text(skill_md)
    (out / "work").mkdir(exist_ok=True)
    prompt = f"$ext-skill {TASK}" if mode in ("loaded", "unlisted", "rejected") else TASK
    with ResponsesServer(by_content={TASK: SCRIPTS[mode]}) as server:
        provider = f'{{name="skl", base_url="{server.url}", env_key="SK", wire_api="responses"}}'
        argv = ["codex", "exec", "--json", "--skip-git-repo-check", "--disable", "plugins"]
        argv += ["--dangerously-bypass-approvals-and-sandbox", "-c", "analytics.enabled=false"]
        argv += ["-c", "model_provider=skl", "-c", f"model_providers.skl={provider}"]
        argv += ["-m", "gpt-5-mini"]
        if mode == "mcp":
            key = "mcp_servers.skill-lens"
            argv += ["-c", f'{key}.command="{sys.executable}"']
            argv += ["-c", f'{key}.args=["{HERE / "mcp_server.py"}"]']
            argv += ["-c", f'{key}.default_tools_approval_mode="approve"']
        env = {"PATH": os.environ["PATH"], "HOME": str(out / "home"), "SK": "dummy"}
        env["CODEX_HOME"] = str(out / "home/.codex")
        done = subprocess.run(
            [*argv, "--", prompt],
            cwd=out / "work",
            env=env,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
    (out / "trace.jsonl").write_bytes(done.stdout)
    (out / "stderr.txt").write_bytes(done.stderr)
    return done.returncode


def damaged(loaded: bytes) -> dict[str, bytes]:
    """Copies of a loaded run's trace, broken the ways a real run can break."""
    lines = loaded.splitlines(keepends=True)
    last = lines[-1]  # turn.completed
    return {
        "cut_mid_line": b"".join(lines[:-1]) + last[: len(last) // 2],
        "no_result": b"".join(lines[:-1]),
        "garbage_lines": b"".join(
            [b"not json at all\n", *lines[:-1], b"\x00\xff{[\n", b"[1, 2]\n", b"{\n", last]
        ),
    }


if __name__ == "__main__":
    if sys.argv[1:] == ["--damaged"]:
        for name, data in damaged((HERE / "loaded.jsonl").read_bytes()).items():
            (HERE / f"{name}.jsonl").write_bytes(data)
        sys.exit(0)
    sys.exit(record(Path(sys.argv[1]), sys.argv[2]))
