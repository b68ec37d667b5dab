"""Each product as the end-to-end tests drive it offline: its scripted server, the
environment that points it there, its skill-lens.toml, and how its model asks for a shell.

One :class:`Offline` a product (``OFFLINE[name]``); :func:`point_at` and
:func:`environment` apply the same settings to a test's environment (``monkeypatch``) or
to a subprocess's, so an in-process run and one started as another user see the same
product. No product may see a credential of the machine's own: each names what it would
read, and that is removed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anthropic_server
import gemini_server
import model_server
import pytest
import responses_server
from scripted_server import ScriptedServer

__all__ = ["CLAUDE_TOML", "CODEX_TOML", "GEMINI_TOML", "OFFLINE", "Offline", "environment"]

# Claude Code's own retries would turn one scripted failure into several requests.
CLAUDE_TOML = '[runners.claude-code]\npass_env = ["CLAUDE_CODE_MAX_RETRIES"]\n'
# The model named, so the tokens are priced from it (and Gemini CLI makes no router call).
CODEX_TOML = '[runners.codex]\nargs = ["-m", "gpt-5-mini"]\n'
GEMINI_TOML = f'[runners.gemini-cli]\nargs = ["-m", "{gemini_server.MODEL}"]\n'

Replies = list[dict[str, Any]]


@dataclass(frozen=True)
class Offline:
    """One product pointed at its scripted server on 127.0.0.1."""

    name: str
    server: Callable[[], ScriptedServer]
    settings: Callable[[str, str], dict[str, str]]  # the variables set, from URL and key
    credentials: tuple[str, ...]  # what the product would read of the machine's own: removed
    shell: Callable[[str], Replies]  # the model runs a shell command, then says it is done
    toml: str = ""

    def point_at(self, monkeypatch: pytest.MonkeyPatch, url: str, key: str = "dummy") -> None:
        """The test's own environment: the product talks to ``url`` with ``key``, and no
        credential of the machine's own."""
        for name, value in self.settings(url, key).items():
            monkeypatch.setenv(name, value)
        for name in self.credentials:
            monkeypatch.delenv(name, raising=False)


def environment(
    product: Offline, url: str, base: Mapping[str, str], key: str = "dummy"
) -> dict[str, str]:
    """``base`` with ``product`` pointed at ``url``: a subprocess's environment."""
    env = {k: v for k, v in base.items() if k not in product.credentials}
    return env | product.settings(url, key)


def _claude(url: str, key: str) -> dict[str, str]:
    return {
        "ANTHROPIC_API_KEY": key,
        "ANTHROPIC_BASE_URL": url,
        "CLAUDE_CODE_MAX_RETRIES": "0",  # a scripted failure is not retried
    }


def _copilot(url: str, key: str) -> dict[str, str]:
    return {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_TYPE": "anthropic",
        "COPILOT_PROVIDER_BASE_URL": url,
        "COPILOT_PROVIDER_API_KEY": key,
        "COPILOT_MODEL": "claude-sonnet-4.5",
    }


def _codex(url: str, key: str) -> dict[str, str]:
    return {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": key}


def _gemini(url: str, key: str) -> dict[str, str]:
    return {"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": url}


def _opencode(url: str, key: str) -> dict[str, str]:
    return {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": key, "OPENCODE_MODEL": "scripted-model"}


def _anthropic_shell(tool: str) -> Callable[[str], Replies]:
    def replies(command: str) -> Replies:
        call = (tool, {"command": command, "description": "Write files"})
        return [anthropic_server.tool_use([call]), anthropic_server.text("All done.")]

    return replies


def _codex_shell(command: str) -> Replies:
    call = ("exec_command", {"cmd": command})
    return [responses_server.calls([call]), responses_server.text("All done.")]


def _gemini_shell(command: str) -> Replies:
    call = ("run_shell_command", {"command": command, "description": "Write files"})
    return [gemini_server.function_calls([call]), gemini_server.text("All done.")]


def _opencode_shell(command: str) -> Replies:
    call = ("bash", json.dumps({"command": command, "description": "Write files"}))
    return [model_server.tool_calls([call]), model_server.text("All done.")]


OFFLINE: dict[str, Offline] = {
    product.name: product
    for product in (
        Offline(
            "claude-code",
            anthropic_server.AnthropicServer,
            _claude,
            ("CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"),
            _anthropic_shell("Bash"),
            toml=CLAUDE_TOML,
        ),
        Offline(
            "copilot",
            anthropic_server.AnthropicServer,
            _copilot,
            ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "COPILOT_HOME"),
            _anthropic_shell("bash"),
        ),
        Offline(
            "codex",
            responses_server.ResponsesServer,
            _codex,
            ("CODEX_API_KEY", "CODEX_HOME"),
            _codex_shell,
            toml=CODEX_TOML,
        ),
        Offline(
            "gemini-cli",
            gemini_server.GeminiServer,
            _gemini,
            ("GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT"),
            _gemini_shell,
            toml=GEMINI_TOML,
        ),
        Offline("opencode", model_server.ScriptedModelServer, _opencode, (), _opencode_shell),
    )
}
