"""Gemini CLI, described: the real ``gemini``, headless, with skills in ``.gemini/skills``.

Each call delivers the skill into the working directory and starts ``gemini`` with the
preset's flags under home isolation; its launch hook writes the call's
``~/.gemini/settings.json`` (an API key as the auth type, nothing reported home, one
attempt per request, and the MCP bridge as the server ``skill-lens`` when the case has
tools). Its ``stream-json`` trace is read by :mod:`.gemini_cli_trace`. ``mode: loaded``
sends ``/<name> <task>`` as the specification says, although Gemini CLI's ``-p`` mode
does not expand it (verified against 0.61.0): the skill loads only if the model calls
``activate_skill``, and the result says when it did not. The trace has no cost: the
tokens are priced at genai-prices' list price of the model that answered.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..tools.bridge_form import BridgeForm
from ..tools.bridge_spec import SERVER_NAME
from .description import Launch, LaunchContext, Preset, TraceReader

if TYPE_CHECKING:
    from ..result import RunResult
    from .trace import Ending, Expect

PRODUCT = "gemini-cli"
SKILL_TOOL = "activate_skill"
MCP_PREFIX = f"mcp_{SERVER_NAME}_"  # how Gemini CLI names a tool of the bridge's server
ENDPOINT_VARIABLE = "GOOGLE_GEMINI_BASE_URL"
SETTINGS_FILE = ".gemini/settings.json"
# Denies every tool: the judge is offered none (gemini_judge_policy.toml).
JUDGE_POLICY = Path(__file__).with_name("gemini_judge_policy.toml")

# Without the auth type it exits 41 before any request ("Invalid auth method selected");
# nothing is reported home or updated mid-suite, and a failing request is not retried
# (a retry would spend off the trace's single result).
SETTINGS: dict[str, object] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {
        "enableAutoUpdate": False,
        "enableAutoUpdateNotification": False,
        "maxAttempts": 1,
    },
}


def _reader() -> TraceReader:
    from .gemini_cli_trace import read_trace

    def read(trace: bytes, left: bytes | None, ending: Ending, expect: Expect) -> RunResult:
        # The endpoint it was pointed at, for what the price source says of a list price.
        endpoint = os.environ.get(ENDPOINT_VARIABLE, "").strip()
        return read_trace(trace, ending, expect, endpoint=endpoint)

    return read


def _launch(context: LaunchContext) -> Launch:
    """The call's settings file, with the bridge as its one MCP server when there are tools.

    It is written into the call's own home: the product reads no other user settings.
    """
    settings = dict(SETTINGS)
    if context.mcp is not None:
        settings["mcpServers"] = {SERVER_NAME: dict(context.mcp)}
    return Launch(files={SETTINGS_FILE: json.dumps(settings, indent=1)})


PRESET = Preset(
    name=PRODUCT,
    executable="gemini",
    # Headless and traced as JSONL; --yolo offers the tools that act (without it headless
    # offers read-only ones, and activate_skill neither) and approves every call, the
    # MCP bridge's included; --skip-trust, or it exits 55 in an untrusted folder.
    flags=("--output-format", "stream-json", "--yolo", "--skip-trust"),
    # The task bound as the option's value: "--prompt=--version" is read as the task
    # (verified), where "-p --version" would print the help and exit 1.
    prompt_args=("--prompt={prompt}",),
    skills_dir=".gemini/skills",
    install="npm install -g @google/gemini-cli",
    auth_hint="GEMINI_API_KEY, an API key from Google AI Studio",
    auth_variables=("GEMINI_API_KEY",),
    endpoint_variables=(ENDPOINT_VARIABLE,),
    reader=_reader,
    launch=_launch,
    model_flags=("-m", "--model"),
    bridge=BridgeForm(flag=None, server={}, prefix=MCP_PREFIX),
    judge_tool_flag="--policy",
    judge_restriction=(f"--policy={JUDGE_POLICY}",),
)
