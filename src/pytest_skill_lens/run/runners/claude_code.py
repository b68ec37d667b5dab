"""The ``claude-code`` runner: the real Claude Code, headless, with the skill in ``.claude/skills``.

Each call delivers the skill into the working directory, starts ``claude -p`` with
the preset's flags under home isolation, and reads its ``stream-json`` trace
(:mod:`.claude_code_trace`). ``mode: loaded`` sends ``/<name> <task>``, which Claude
Code expands into the skill's text; ``mode: offered`` and a ``--baseline none`` arm
send the bare task, and the model's own ``Skill`` tool call is the load signal.
A case's ``tools:`` are served by a fresh MCP bridge per call (:mod:`.product_tools`).
"""

from __future__ import annotations

from pathlib import Path

from ...settings import Settings
from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..result import RunResult
from .claude_code_trace import PRODUCT, read_trace
from .product import Preset, argv, prompt_for, prompt_problem
from .product_delivery import DeliveryFailed, deliver
from .product_env import isolation_of, make_home, product_env
from .product_process import RunDirFailed, StartFailed, run_dir
from .product_tools import BridgeSetupError, settle, start_with_tools
from .product_trace import Ending, Expect

PRESET = Preset(
    name=PRODUCT,
    executable="claude",
    # Headless and traced (-p, stream-json needs --verbose), every hook reported, no
    # permission prompt, none of the user's settings, hooks, plugins or MCP servers
    # (the project's skill is still found), and nothing written under ~/.claude.
    flags=(
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
)


class ClaudeCodeRunner:
    """Runs one task through Claude Code; never raises (every failure is an errored result)."""

    name = PRODUCT

    def __init__(self, settings: Settings) -> None:
        self._table = PRESET.table(settings)
        self._isolation = isolation_of(settings.product_sandbox)
        # The product never outlives the case: the case deadline abandons the call.
        self._timeout = min(self._table.timeout_seconds, settings.case_timeout_seconds)

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        try:
            return self._run(skill, case, workspace)
        except Exception as exc:  # a runner never raises; the case is errored
            return RunResult(error=f"{PRODUCT} runner failed: {type(exc).__name__}: {exc}")

    def _run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        prompt = prompt_for(skill, case)
        problem = prompt_problem(prompt)
        if problem is not None:
            return RunResult(error=problem)  # nothing started, nothing spent: no notes
        command = argv(PRESET, self._table, prompt)
        try:
            with run_dir(PRODUCT) as run:
                cwd = workspace if workspace is not None else run.work
                deliver(skill, cwd, PRESET.skills_dir)
                make_home(run.home)
                env = product_env(PRESET, self._table, self._isolation, run.home)
                tooled = start_with_tools(
                    PRESET,
                    self._table,
                    case.tools,
                    command,
                    run=run,
                    cwd=cwd,
                    env=env,
                    timeout=self._timeout,
                    max_output_bytes=self._table.max_output_bytes,
                )
        except (DeliveryFailed, RunDirFailed) as exc:
            return RunResult(error=str(exc))
        except BridgeSetupError as exc:  # never a run without the case's tools
            return RunResult(error=f"{PRODUCT} could not be given the mock tools: {exc}")
        except StartFailed as exc:
            return RunResult(error=f"{PRODUCT} could not be started ({command[0]!r}): {exc}")
        ran = tooled.ran
        finished = ran.finished
        ending = Ending.of(
            finished, timeout_seconds=self._timeout, max_output_bytes=self._table.max_output_bytes
        )
        expect = Expect.of(skill, case)
        result = settle(PRESET, read_trace(finished.stdout.data, ending, expect), tooled.log)
        result.latency_ms = ran.latency_ms
        return result
