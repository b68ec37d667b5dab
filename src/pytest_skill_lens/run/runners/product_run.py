"""One call of a traced product (Claude Code, Copilot): the steps every one of them takes.

Deliver the skill into the working directory, start the product under its home (and the
run's product sandbox) with the case's mock tools, then read its trace. A product adds
only what differs: flags that need the call's directory, what it leaves there to read
after it exits, and how its trace is read.
"""

from __future__ import annotations

from pathlib import Path

from ...settings import Settings
from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..result import RunResult
from .product import Preset, argv, prompt_for, prompt_problem
from .product_delivery import DeliveryFailed, deliver
from .product_env import isolation_of, make_home, product_env
from .product_process import RunDir, RunDirFailed, StartFailed, run_dir
from .product_tools import BridgeSetupError, settle, start_with_tools
from .product_trace import Ending, Expect


class TracedProductRunner:
    """Runs one task through ``preset``'s product; never raises (failures are errored)."""

    name: str
    preset: Preset

    def __init__(self, settings: Settings) -> None:
        self._table = self.preset.table(settings)
        self._isolation = isolation_of(settings.product_sandbox)
        # The product never outlives the case: the case deadline abandons the call.
        self._timeout = min(self._table.timeout_seconds, settings.case_timeout_seconds)

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        try:
            return self._run(skill, case, workspace)
        except Exception as exc:  # a runner never raises; the case is errored
            return RunResult(error=f"{self.name} runner failed: {type(exc).__name__}: {exc}")

    def call_flags(self, run: RunDir) -> list[str]:
        """Flags that name the call's own directory, after the table's."""
        return []

    def left_behind(self, run: RunDir) -> bytes | None:
        """What the product wrote into the call's directory for the reader, read before it goes."""
        return None

    def read(self, trace: bytes, left: bytes | None, ending: Ending, expect: Expect) -> RunResult:
        raise NotImplementedError

    def _run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        prompt = prompt_for(skill, case)
        problem = prompt_problem(prompt)
        if problem is not None:
            return RunResult(error=problem)  # nothing started, nothing spent: no notes
        command = argv(self.preset, self._table, prompt)
        try:
            with run_dir(self.name) as run:
                cwd = workspace if workspace is not None else run.work
                deliver(skill, cwd, self.preset.skills_dir)
                make_home(run.home)
                env = product_env(self.preset, self._table, self._isolation, run.home)
                # With the case's tools, the bridge's config flag goes last (product_tools).
                tooled = start_with_tools(
                    self.preset,
                    self._table,
                    case.tools,
                    [*command, *self.call_flags(run)],
                    run=run,
                    cwd=cwd,
                    env=env,
                    timeout=self._timeout,
                    max_output_bytes=self._table.max_output_bytes,
                )
                left = self.left_behind(run)
        except (DeliveryFailed, RunDirFailed) as exc:
            return RunResult(error=str(exc))
        except BridgeSetupError as exc:  # never a run without the case's tools
            return RunResult(error=f"{self.name} could not be given the mock tools: {exc}")
        except StartFailed as exc:
            return RunResult(error=f"{self.name} could not be started ({command[0]!r}): {exc}")
        ran = tooled.ran
        finished = ran.finished
        ending = Ending.of(
            finished, timeout_seconds=self._timeout, max_output_bytes=self._table.max_output_bytes
        )
        trace = self.read(finished.stdout.data, left, ending, Expect.of(skill, case))
        result = settle(self.preset, trace, tooled.log)
        result.latency_ms = ran.latency_ms
        return result
