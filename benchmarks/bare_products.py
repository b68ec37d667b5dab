"""The five products as benchmarks/product_overhead.py runs them bare.

For each: its scripted server and reply, the endpoint variables both sides get, and the
product's own command line, written out here (the flags its preset in
src/pytest_skill_lens/run/products/ gives it) so the bare side runs no code of the
plugin's, with the files its home needs offline. ``mcp`` (a command) adds one stdio MCP
server the way the product takes one: the bare side of a case with mock tools.

The scripted servers are the test suite's (tests/plugin/*_server.py), imported from there.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "products" / "node_modules" / ".bin"
sys.path.insert(0, str(ROOT / "tests" / "plugin"))  # the scripted servers

import anthropic_server  # noqa: E402
import gemini_server  # noqa: E402
import model_server  # noqa: E402
import responses_server  # noqa: E402

TASK = "greet the team"
ANSWER = "Hello team, warmly."
SKILL = "---\nname: greet\ndescription: Greets people warmly.\n---\nSay hello, warmly.\n"
TOOL = {
    "name": "get_order",
    "description": "Fetch one order by its id",
    "parameters": {"id": "string"},
    "returns": [{"value": "order A-1 shipped"}],
}
SERVER = "skill-lens"  # the MCP server's name, as the plugin names the bridge

# The least an MCP server does for a product that lists its tools and calls none: what
# any stdio server written in Python pays (the interpreter and json), the bare side's.
FLOOR_MCP = """
import json, sys
TOOL = {"name": "get_order", "description": "Fetch one order by its id",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}
EMPTY = {"resources/list": {"resources": []}, "prompts/list": {"prompts": []},
         "resources/templates/list": {"resourceTemplates": []}, "tools/list": {"tools": [TOOL]}}
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        version = message.get("params", {}).get("protocolVersion", "2025-06-18")
        result = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "floor", "version": "0"}}
    else:
        result = EMPTY.get(message["method"], {})
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


@dataclass(frozen=True)
class Bare:
    """One bare start: the command line before the prompt, its variables, its home's files."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    home_files: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Product:
    """One product: its server, the variables both sides get, and the bare command."""

    runner: str
    server: Callable[[], Any]
    reply: Callable[[], dict[str, Any]]
    env: Callable[[str], dict[str, str]]  # server url -> endpoint and key variables
    skills_dir: str
    # (url, home, MCP server command or None) -> the bare start
    bare: Callable[[str, Path, Sequence[str] | None], Bare]
    prompt: Callable[[str], list[str]]
    toml: str = ""


def _stdio(command: Sequence[str]) -> dict[str, Any]:
    return {"command": command[0], "args": list(command[1:])}


CLAUDE_ENV = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
    **({"IS_SANDBOX": "1"} if os.geteuid() == 0 else {}),
}
CLAUDE_FLAGS = ["-p", "--output-format", "stream-json", "--verbose", "--include-hook-events"]
CLAUDE_FLAGS += ["--dangerously-skip-permissions", "--setting-sources", "project"]
CLAUDE_FLAGS += ["--strict-mcp-config", "--no-session-persistence"]


def claude(url: str, home: Path, mcp: Sequence[str] | None) -> Bare:
    if mcp is None:
        return Bare(["claude", *CLAUDE_FLAGS])
    config = {"mcpServers": {SERVER: {"type": "stdio", **_stdio(mcp)}}}
    flag = f"--mcp-config={home / 'mcp.json'}"
    files = {"mcp.json": json.dumps(config)}
    return Bare(["claude", *CLAUDE_FLAGS, flag], {"ENABLE_TOOL_SEARCH": "false"}, files)


COPILOT_ENV = {
    "COPILOT_OFFLINE": "true",
    "COPILOT_PROVIDER_TYPE": "anthropic",
    "COPILOT_PROVIDER_API_KEY": "dummy",
    "COPILOT_MODEL": "claude-sonnet-4.5",
}


def copilot(url: str, home: Path, mcp: Sequence[str] | None) -> Bare:
    argv = ["copilot", "--allow-all-tools", "--output-format", "json"]
    argv += ["--no-custom-instructions", "--no-auto-update"]
    if mcp is None:
        return Bare(argv)
    config = {"mcpServers": {SERVER: {"type": "local", "tools": ["*"], **_stdio(mcp)}}}
    files = {"mcp.json": json.dumps(config)}
    return Bare([*argv, f"--additional-mcp-config=@{home / 'mcp.json'}"], {}, files)


def codex(url: str, home: Path, mcp: Sequence[str] | None) -> Bare:
    entry = (
        f'{{name="skill-lens", base_url="{url}", env_key="OPENAI_API_KEY", wire_api="responses"}}'
    )
    argv = ["codex", "exec", "--json", "--skip-git-repo-check", "--disable", "plugins"]
    argv += ["-c", "analytics.enabled=false", "-m", "gpt-5-mini"]
    argv += ["--dangerously-bypass-approvals-and-sandbox"]
    argv += ["-c", 'model_provider="skill_lens"', "-c", f"model_providers.skill_lens={entry}"]
    if mcp is not None:
        key = f"mcp_servers.{SERVER}"
        argv += ["-c", f"{key}.command={json.dumps(mcp[0])}"]
        argv += ["-c", f"{key}.args={json.dumps(list(mcp[1:]))}"]
        argv += ["-c", f'{key}.default_tools_approval_mode="approve"']
    env = {"CODEX_HOME": str(home / ".codex")}
    return Bare(argv, env, {".codex/.keep": ""})


GEMINI_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False, "maxAttempts": 1},
}


def gemini(url: str, home: Path, mcp: Sequence[str] | None) -> Bare:
    settings = dict(GEMINI_SETTINGS)
    if mcp is not None:
        settings["mcpServers"] = {SERVER: _stdio(mcp)}
    argv = ["gemini", "--output-format", "stream-json", "--yolo", "--skip-trust"]
    files = {".gemini/settings.json": json.dumps(settings)}
    return Bare([*argv, "-m", gemini_server.MODEL], {}, files)


OPENCODE_ENV = {
    f"OPENCODE_DISABLE_{name}": "1"
    for name in ("MODELS_FETCH", "AUTOUPDATE", "DEFAULT_PLUGINS", "SHARE", "LSP_DOWNLOAD")
} | {"OPENCODE_DISABLE_PROJECT_CONFIG": "1"}
OPENCODE_LOCK = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}


def opencode(url: str, home: Path, mcp: Sequence[str] | None) -> Bare:
    model = "scripted-model"
    options = {"baseURL": url, "apiKey": "dummy"}
    provider = {"npm": "@ai-sdk/openai-compatible", "name": "endpoint", "options": options}
    provider["models"] = {model: {"name": model, "tool_call": True}}
    config: dict[str, Any] = {"model": f"skill-lens/{model}", "share": "disabled"}
    config |= {"autoupdate": False, "provider": {"skill-lens": provider}}
    if mcp is not None:
        config["mcp"] = {SERVER: {"type": "local", "command": list(mcp), "enabled": True}}
    env = {**OPENCODE_ENV, "OPENCODE_CONFIG_CONTENT": json.dumps(config)}
    files = {".config/opencode/node_modules/.skill-lens": ""}
    files[".config/opencode/package-lock.json"] = json.dumps(OPENCODE_LOCK)
    argv = ["opencode", "run", "--format", "json", "--pure", "--title", "skill-lens"]
    return Bare(argv, env, files)


def _anthropic_text() -> dict[str, Any]:
    return dict(anthropic_server.text(ANSWER))


PRODUCTS: Mapping[str, Product] = {
    "claude-code": Product(
        "claude-code",
        anthropic_server.AnthropicServer,
        _anthropic_text,
        lambda url: {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "dummy", **CLAUDE_ENV},
        ".claude/skills",
        claude,
        lambda task: ["--", task],
        toml='[runners.claude-code]\npass_env = ["CLAUDE_CODE_MAX_RETRIES"]\n',
    ),
    "copilot": Product(
        "copilot",
        anthropic_server.AnthropicServer,
        _anthropic_text,
        lambda url: {"COPILOT_PROVIDER_BASE_URL": url, **COPILOT_ENV},
        ".agents/skills",
        copilot,
        lambda task: [f"--prompt={task}"],
    ),
    "codex": Product(
        "codex",
        responses_server.ResponsesServer,
        lambda: dict(responses_server.text(ANSWER)),
        lambda url: {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "dummy"},
        ".agents/skills",
        codex,
        lambda task: ["--", task],
        toml='[runners.codex]\nargs = ["-m", "gpt-5-mini"]\n',
    ),
    "gemini-cli": Product(
        "gemini-cli",
        gemini_server.GeminiServer,
        lambda: dict(gemini_server.text(ANSWER)),
        lambda url: {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "dummy"},
        ".gemini/skills",
        gemini,
        lambda task: [f"--prompt={task}"],
        toml=f'[runners.gemini-cli]\nargs = ["-m", "{gemini_server.MODEL}"]\n',
    ),
    "opencode": Product(
        "opencode",
        model_server.ScriptedModelServer,
        lambda: dict(model_server.text(ANSWER)),
        lambda url: {
            "OPENAI_BASE_URL": url,
            "OPENAI_API_KEY": "dummy",
            "OPENCODE_MODEL": "scripted-model",
        },
        ".agents/skills",
        opencode,
        lambda task: ["--", task],
    ),
}
