"""Re-record the Codex CLI fixtures: ``python tests/unit/traces/codex/record.py OUT MODE``.

Runs the real codex (products/package.json pins 0.171.0; put products/node_modules/.bin
on PATH) offline against tests/plugin/responses_server.py on 127.0.0.1, in an isolated
HOME and CODEX_HOME under OUT, with the flags the preset uses. MODE is ``loaded``
(``$ext-skill`` and a shell call), ``unlisted`` (the same mention, no skill delivered),
``offered`` (the model reads SKILL.md itself) or ``mcp`` (a tool of mcp_server.py here).
Copy OUT/trace.jsonl (and OUT/home/.codex/sessions/*/*/*/rollout-*.jsonl as
``<mode>_session.jsonl``) into this folder. ``turn_failed.jsonl`` is a loaded run whose
task the server had no script for (HTTP 400: ``turn.failed``, exit 1).
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
}


def record(out: Path, mode: str) -> int:
    shutil.rmtree(out, ignore_errors=True)
    (out / "home/.codex").mkdir(parents=True)
    if mode != "unlisted":
        (out / "work/.agents/skills/ext-skill").mkdir(parents=True)
        (out / "work/.agents/skills/ext-skill/SKILL.md").write_text(SKILL)
    (out / "work").mkdir(exist_ok=True)
    prompt = f"$ext-skill {TASK}" if mode in ("loaded", "unlisted") else TASK
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


if __name__ == "__main__":
    sys.exit(record(Path(sys.argv[1]), sys.argv[2]))
