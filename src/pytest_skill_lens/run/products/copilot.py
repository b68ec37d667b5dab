"""Copilot CLI, described: the real ``copilot``, headless, with skills in ``.agents/skills``.

Each call delivers the skill into the working directory, starts ``copilot --prompt=`` with the
preset's flags under home isolation, and reads its JSONL trace and the usage file it
writes at exit (:mod:`.copilot_trace`). ``mode: loaded`` sends ``/<name> <task>`` as
the specification says, although Copilot's ``-p`` mode does not expand it: the trace
then shows the skill never loaded, and the result says so. ``mode: offered`` and a
``--baseline none`` arm send the bare task; the model's ``skill`` tool call is the
load signal. Every isolated call runs from the one package cache of the process
(:mod:`.copilot_package`) instead of unpacking Copilot's 235 MB package into its own home.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..tools.bridge_form import BridgeForm
from ..tools.bridge_spec import SERVER_NAME
from .description import PROMPT_PLACEHOLDER, LeftFile, Preset, SharedDir, TraceReader
from .home_recipe import HomeRecipe

if TYPE_CHECKING:
    from ..sandbox.product_sandbox import ProductSandbox

PRODUCT = "copilot"
USAGE_FILE = "usage.json"
MAX_USAGE_BYTES = 1_000_000  # the usage file is a few KiB; anything past this is not one
# Read by Copilot before COPILOT_CACHE_HOME and XDG's (its unpacked package).
PACKAGE_VARIABLE = "COPILOT_PKG_CACHE_HOME"


def _reader() -> TraceReader:
    from .copilot_trace import read_trace

    return read_trace


def _package(
    executable: str, env: Mapping[str, str], sandbox: ProductSandbox | None
) -> Path | None:
    from .copilot_package import package_directory

    return package_directory(executable, env, sandbox)


def _package_note(executable: str) -> str | None:
    from .copilot_package import fill_note

    return fill_note(executable)


FLAGS = ("--allow-all-tools", "--output-format", "json", "--no-custom-instructions")
# Node compiles Copilot's 2 MB bundle on every start in a TMPDIR without its compile
# cache (home isolation's is new every call): 0.2 s of CPU, done once per process. The
# refused start's own state (its session store, with a full-text index; its config's
# first-launch time; its logs; the device id) is removed whole: Copilot makes it anew
# at no measurable cost, so the template holds only the compile cache.
HOME_RECIPE = HomeRecipe(
    args=lambda url: (*FLAGS, "--no-auto-update", "--prompt=skill-lens: a home template start"),
    # No model named: Copilot loads its bundle (writing the compile cache) and exits
    # before asking (0.8 s of CPU here, against 1.2 s for a start refused by the endpoint).
    env=lambda url, home: {"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": url},
    removed=(".copilot", ".cache/Microsoft"),
    required="tmp/node-compile-cache/*/*",
)


PRESET = Preset(
    name=PRODUCT,
    executable="copilot",
    # Headless (--prompt needs --allow-all-tools), traced as JSONL, no stray AGENTS.md
    # or personal instructions shaping the run, and never an update mid-suite. No
    # --trust-folder: Copilot then reads none of the working directory's own
    # configuration (hooks, MCP servers, repository settings; docs/security.md).
    flags=(*FLAGS, "--no-auto-update"),
    # The task bound as the option's value, so one starting with "-" is never a flag
    # (Copilot refuses "-p -- <task>").
    prompt_args=(f"--prompt={PROMPT_PLACEHOLDER}",),
    skills_dir=".agents/skills",
    install="npm install -g @github/copilot",
    auth_hint="COPILOT_GITHUB_TOKEN: a fine-grained token with the Copilot Requests "
    "permission; or COPILOT_PROVIDER_BASE_URL for a model provider of your own",
    # Copilot reads these tokens in this order; only the first set one is passed, so
    # a CI job's GITHUB_TOKEN never reaches the product beside a Copilot token.
    ranked_auth_variables=("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"),
    # Bring your own model: with a provider URL Copilot needs no GitHub sign-in.
    auth_variables=(
        "COPILOT_PROVIDER_BASE_URL",
        "COPILOT_PROVIDER_API_KEY",
        "COPILOT_PROVIDER_BEARER_TOKEN",
        "COPILOT_PROVIDER_API_KEY_COMMAND",
    ),
    endpoint_variables=(
        "COPILOT_OFFLINE",
        "COPILOT_MODEL",
        "COPILOT_PROVIDER_TYPE",
        "COPILOT_PROVIDER_WIRE_API",
        "COPILOT_PROVIDER_TRANSPORT",
        "COPILOT_PROVIDER_AZURE_API_VERSION",
        "COPILOT_PROVIDER_MODEL_ID",
        "COPILOT_PROVIDER_WIRE_MODEL",
        "COPILOT_PROVIDER_MAX_PROMPT_TOKENS",
        "COPILOT_PROVIDER_MAX_OUTPUT_TOKENS",
        "COPILOT_PROVIDER_HEADERS",
        "GH_HOST",
        "COPILOT_GH_HOST",
    ),
    # Unpacked once per process, not into every call's fresh home (read-only under bwrap).
    shared_dirs=(SharedDir(PACKAGE_VARIABLE, _package, _package_note),),
    reader=_reader,
    # At exit, into the call's own directory (never the working directory); a wrapper
    # command is not known to take the flag, so it is asked of the product itself only.
    left_file=LeftFile(USAGE_FILE, "--usage-output-file={path}", MAX_USAGE_BYTES),
    bridge=BridgeForm(
        flag="--additional-mcp-config=@{path}",
        # Copilot names its stdio type "local" and offers a server's tools only when listed.
        server={"type": "local", "tools": ["*"]},
        prefix=f"{SERVER_NAME}-",
        refused_flags=("--available-tools",),
        refused_why="it keeps only the tools it names, the bridge's included",
    ),
    # Judging, one tool that does not exist (Copilot ignores an empty list).
    judge_tool_flag="--available-tools",
    judge_restriction=("--available-tools=skill-lens-none",),
    never_priced="copilot bills per premium request, a count of requests, never in dollars",
    home_template=HOME_RECIPE,
    judge_never_priced=(
        "copilot bills per premium request, a count of requests, never in dollars, and the "
        "judge's spend is reported as a premium-request note"
    ),
)
