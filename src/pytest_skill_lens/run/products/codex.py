"""Codex CLI, described: the real ``codex exec``, with the skill in ``.agents/skills``.

Each call delivers the skill into the working directory, starts ``codex exec --json``
under home isolation with its own ``CODEX_HOME`` in the call's home, and reads its JSONL
trace and the session log Codex writes there (:mod:`.codex_trace`). Codex has no skill
tool: ``mode: loaded`` sends ``$<name> <task>``, which Codex answers by adding the
skill's ``SKILL.md`` to the conversation (its session log shows it); ``mode: offered``
sends the bare task, and a shell command reading the skill's ``SKILL.md`` is the load.

Codex takes its endpoint and MCP servers as ``-c`` TOML overrides, so they come from the
launch hook (:func:`_launch`): with ``OPENAI_BASE_URL`` set, a provider entry of its own
speaking the Responses API there, keyed by ``OPENAI_API_KEY``; a case's ``tools:`` as
the ``skill-lens`` MCP server, its tools approved (``exec`` never asks).

Codex's own sandbox: inside skill-lens' (``auto`` or ``required`` with bwrap, and home
isolation without it) Codex runs with ``--dangerously-bypass-approvals-and-sandbox``:
its own sandbox cannot run there (its helper binaries are refused under the temporary
directory, and every command then fails unseen in the trace). Under
``product_sandbox = "off"`` (the product as you have it: your home, your
``~/.codex``) Codex keeps its own sandbox, ``--sandbox workspace-write``.
"""

from __future__ import annotations

import json

from ..tools.bridge_form import BridgeForm
from ..tools.bridge_spec import SERVER_NAME
from .description import Launch, LaunchContext, LeftFile, Preset, TraceReader
from .home_recipe import HomeRecipe

PRODUCT = "codex"
BASE_URL_VARIABLE = "OPENAI_BASE_URL"
KEY_VARIABLE = "OPENAI_API_KEY"
PROVIDER = "skill_lens"  # the provider entry's id in Codex's configuration
CODEX_HOME = ".codex"  # under the call's home
# Codex's session log (the conversation as it sent it), under the call's home.
SESSION_LOG = f"home/{CODEX_HOME}/sessions/*/*/*/rollout-*.jsonl"
MAX_SESSION_BYTES = 8_000_000
# Codex spells an MCP server's tools mcp__<id>__<tool>, its id's "-" as "_".
MCP_PREFIX = f"mcp__{SERVER_NAME.replace('-', '_')}__"


def _reader() -> TraceReader:
    from .codex_trace import read_trace

    return read_trace


def _toml(value: object) -> str:
    """A TOML value: JSON's string, array and boolean forms are TOML's too."""
    return json.dumps(value)


def _launch(context: LaunchContext) -> Launch:
    env: dict[str, str] = {}
    flags: list[str] = []
    files: dict[str, str] = {}
    if context.isolated:
        # CODEX_HOME must exist (Codex exits 1 without a request otherwise).
        env["CODEX_HOME"] = str(context.files_home / CODEX_HOME)
        files[f"{CODEX_HOME}/.skill-lens"] = "made by skill-lens for this call\n"
        flags.append("--dangerously-bypass-approvals-and-sandbox")
    else:
        flags += ["--sandbox", "workspace-write"]
    base_url = context.env.get(BASE_URL_VARIABLE, "").strip()
    if base_url:
        entry = (
            f"{{name={_toml('skill-lens')}, base_url={_toml(base_url)}, "
            f'env_key={_toml(KEY_VARIABLE)}, wire_api="responses"}}'
        )
        flags += ["-c", f"model_provider={_toml(PROVIDER)}"]
        flags += ["-c", f"model_providers.{PROVIDER}={entry}"]
    server = context.mcp
    if server is not None:
        key = f"mcp_servers.{SERVER_NAME}"
        flags += ["-c", f"{key}.command={_toml(server['command'])}"]
        flags += ["-c", f"{key}.args={_toml(list(server['args']))}"]
        environment = ", ".join(f"{_toml(k)}={_toml(v)}" for k, v in server["env"].items())
        flags += ["-c", f"{key}.env={{{environment}}}"]
        # Under exec's approval policy (never) an unapproved MCP call fails.
        flags += ["-c", f'{key}.default_tools_approval_mode="approve"']
    return Launch(flags=tuple(flags), env=env, files=files)


# Headless and traced; outside a git repository too; no plugins, nothing reported
# home. The prompt comes after "--", so a task like "--help" is never a flag.
FLAGS = (
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--disable",
    "plugins",
    "-c",
    "analytics.enabled=false",
)


def _template_args(url: str) -> tuple[str, ...]:
    """One ``exec`` as a call starts it, its provider at ``url`` (refused), never retried."""
    entry = (
        f"{{name={_toml('skill-lens')}, base_url={_toml(url)}, env_key={_toml(KEY_VARIABLE)}, "
        'wire_api="responses", request_max_retries=0, stream_max_retries=0}'
    )
    provider = (
        "-c",
        f"model_provider={_toml(PROVIDER)}",
        "-c",
        f"model_providers.{PROVIDER}={entry}",
    )
    sandbox = "--dangerously-bypass-approvals-and-sandbox"
    return (*FLAGS, sandbox, *provider, "--", "skill-lens: a home template start")


# Codex's first start in an empty CODEX_HOME makes its SQLite databases (their
# migrations), installs its own skills and a few marker files: 0.1-0.5 s, done once per
# process. What the refused start wrote about itself (its session log, its thread in the
# databases, its shell snapshot, the installation's id) is cleared.
HOME_RECIPE = HomeRecipe(
    args=_template_args,
    env=lambda url, home: {"CODEX_HOME": str(home / CODEX_HOME), KEY_VARIABLE: "skill-lens"},
    directories=(CODEX_HOME,),
    removed=tuple(
        f"{CODEX_HOME}/{name}"
        for name in ("sessions", "shell_snapshots", "tmp", "log", "installation_id")
    ),
    emptied=(f"{CODEX_HOME}/*.sqlite",),
    kept_tables=("_sqlx_migrations",),
    required=f"{CODEX_HOME}/*.sqlite",
)


PRESET = Preset(
    name=PRODUCT,
    executable="codex",
    flags=FLAGS,
    skills_dir=".agents/skills",
    install="npm install -g @openai/codex",
    auth_hint="OPENAI_API_KEY (with OPENAI_BASE_URL for a Responses API endpoint of your "
    "own), or CODEX_API_KEY for OpenAI's",
    auth_variables=(KEY_VARIABLE, "CODEX_API_KEY"),
    endpoint_variables=(BASE_URL_VARIABLE,),
    invoke="${name} {task}",
    reader=_reader,
    left_file=LeftFile(SESSION_LOG, None, MAX_SESSION_BYTES),
    bridge=BridgeForm(flag=None, server={}, prefix=MCP_PREFIX),
    launch=_launch,
    launch_variables=("CODEX_HOME",),
    model_flags=("-m", "--model"),
    priced_as="openai",  # Codex reports tokens, no cost: priced at the told model's list price
    # Judging, no shell: Codex's exec tools switched off (it has no empty tool list).
    judge_tool_flag="--enable",
    judge_restriction=("--disable", "shell_tool", "--disable", "unified_exec"),
    home_template=HOME_RECIPE,
)
