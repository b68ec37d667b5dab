"""The ``copilot`` runner: the real GitHub Copilot CLI, headless, skills in ``.agents/skills``.

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

from ...settings import Settings
from ..cassettes.files import Seat
from ..containment import Refused, read_regular
from ..result import RunResult
from .copilot_package import VARIABLE, package_directory
from .copilot_trace import PRODUCT, read_trace
from .description import PROMPT_PLACEHOLDER, Preset, SharedDir
from .process import RunDir
from .runner import TracedProductRunner
from .trace import Ending, Expect

USAGE_FILE = "usage.json"
MAX_USAGE_BYTES = 1_000_000  # the usage file is a few KiB; anything past this is not one

PRESET = Preset(
    name=PRODUCT,
    executable="copilot",
    # Headless (--prompt needs --allow-all-tools), traced as JSONL, no stray AGENTS.md
    # or personal instructions shaping the run, and never an update mid-suite. No
    # --trust-folder: Copilot then reads none of the working directory's own
    # configuration (hooks, MCP servers, repository settings; docs/security.md).
    flags=(
        "--allow-all-tools",
        "--output-format",
        "json",
        "--no-custom-instructions",
        "--no-auto-update",
    ),
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
    shared_dirs=(SharedDir(VARIABLE, package_directory),),
)


class CopilotRunner(TracedProductRunner):
    """Runs one task through Copilot CLI; never raises (every failure is an errored result)."""

    name = PRODUCT
    preset = PRESET

    def __init__(self, settings: Settings, *, seat: Seat = "runner") -> None:
        super().__init__(settings, seat=seat)
        # A wrapper is not known to take --usage-output-file.
        self._own = PRESET.names_itself(self._table)

    def call_flags(self, run: RunDir) -> list[str]:
        return [f"--usage-output-file={run.root / USAGE_FILE}"] if self._own else []

    def left_behind(self, run: RunDir) -> bytes | None:
        return _usage(run) if self._own else None

    def read(self, trace: bytes, left: bytes | None, ending: Ending, expect: Expect) -> RunResult:
        return read_trace(trace, left, ending, expect)


def _usage(run: RunDir) -> bytes | None:
    """The usage file Copilot wrote at exit, read capped and never through a link; ``None``
    when there is none (a timed-out or crashed run never writes it)."""
    path = run.root / USAGE_FILE
    if not path.is_file():
        return None
    try:
        return read_regular(path, USAGE_FILE, MAX_USAGE_BYTES, where="copilot's usage file")
    except Refused:
        return None
