"""Claude Code, described: the real ``claude``, headless, with the skill in ``.claude/skills``.

Each call delivers the skill into the working directory, starts ``claude -p`` with
the preset's flags under home isolation (:mod:`.runner`), and reads its ``stream-json``
trace (:mod:`.claude_code_trace`). ``mode: loaded`` sends ``/<name> <task>``, which Claude
Code expands into the skill's text; ``mode: offered`` and a ``--baseline none`` arm
send the bare task, and the model's own ``Skill`` tool call is the load signal.
A case's ``tools:`` are served by a fresh MCP bridge per call (:mod:`.bridge`).
"""

from __future__ import annotations

from ..tools.bridge_form import BridgeForm
from ..tools.bridge_spec import SERVER_NAME
from .description import Preset, TraceReader

PRODUCT = "claude-code"


def _reader() -> TraceReader:
    from .claude_code_trace import read_trace

    return lambda trace, left, ending, expect: read_trace(trace, ending, expect)


PRESET = Preset(
    name=PRODUCT,
    executable="claude",
    # Headless and traced (-p, stream-json needs --verbose), every hook reported, no
    # permission prompt, none of the user's settings, hooks, plugins or MCP servers, and
    # nothing written under ~/.claude. "project" is the one settings source that still
    # finds the skill in .claude/skills (verified: "", "user" and --bare with --add-dir
    # find none); the project's .claude/settings.json it would also read is made inert
    # before every start (PRESET.inert_files), and a case may not seed it.
    # The prompt comes last, after "--" (the preset's prompt_args): Claude Code reads
    # everything after it as the prompt, so a task like "--version" is never a flag.
    flags=(
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-hook-events",
        "--dangerously-skip-permissions",
        "--setting-sources",
        "project",
        "--strict-mcp-config",
        "--no-session-persistence",
    ),
    skills_dir=".claude/skills",
    install="npm install -g @anthropic-ai/claude-code",
    auth_hint="ANTHROPIC_API_KEY, or the token 'claude setup-token' prints as "
    "CLAUDE_CODE_OAUTH_TOKEN",
    auth_variables=("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"),
    endpoint_variables=("ANTHROPIC_BASE_URL",),
    # An eval run reports nothing home, never updates itself mid-suite and makes no
    # model call outside the traced conversation (one would spend off the trace).
    fixed_env={
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
    },
    # As root Claude Code refuses --dangerously-skip-permissions unless told it is
    # sandboxed; without this a root CI job could not run the product at all.
    root_env={"IS_SANDBOX": "1"},
    reader=_reader,
    bridge=BridgeForm(
        flag="--mcp-config={path}",
        server={"type": "stdio"},
        prefix=f"mcp__{SERVER_NAME}__",
        # Without it Claude Code defers an MCP tool's schema behind its ToolSearch tool;
        # with it the schema is in the tool list the model gets, as under every runner.
        env={"ENABLE_TOOL_SEARCH": "false"},
    ),
    # Judging, its tool list is empty: nothing to act with while it reads a response.
    judge_tool_flag="--tools",
    judge_restriction=("--tools", ""),
)
