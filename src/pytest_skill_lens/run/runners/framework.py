"""What every framework runner does around its framework: one implementation, so the
runners differ only in the agent loop they drive.

Per case: refuse what a runner is never handed (``sessions:`` are split by the
plugin; a workspace case needs its directory), open the workspace, build the one
system prompt, and run attempts with retries. Per attempt, the subclass drives
its framework with fresh mock tools (:meth:`FrameworkRunner.fresh_tools`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ...settings import Settings
from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..cassettes import CassetteMiss, Figures, SeatCall, current_tape
from ..models.endpoint import endpoint_named
from ..models.prompt import system_prompt
from ..models.retry import Attempt, attempts_note, run_with_retries
from ..result import RunResult
from ..sandbox.script_sandbox import SandboxDecision
from ..tools.mocktools import build_mock_tools
from ..tools.toolkit import harness_tools
from ..tools.workspace_tools import BuiltinTool
from ..workspace.workspace import Limits, Workspace


class FrameworkRunner:
    """Performs a case with a framework's agent; holds nothing between runs.

    A subclass sets ``name``, implements :meth:`attempt` (one fresh conversation,
    never raising for the provider) and :meth:`is_transient` (whether a failure
    is worth another attempt).
    """

    name: str
    records_cassettes = True  # every model request goes through the item's cassette

    def __init__(
        self,
        settings: Settings,
        sleep: Callable[[float], None] = time.sleep,
        *,
        sandbox: SandboxDecision | None = None,
    ) -> None:
        self.settings = settings
        self._sleep = sleep
        self.sandbox = sandbox  # where run_script runs scripts; None: the run's decision

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        problem = self._unsupported(case, workspace)
        if problem is not None:
            return RunResult(error=problem)
        opened: Workspace | None = None
        if workspace is not None:
            try:
                opened = Workspace.attach(workspace, Limits.from_settings(self.settings))
            except (OSError, RuntimeError, ValueError) as exc:
                return RunResult(
                    error=f"WorkspaceError: cannot use the workspace {workspace}: "
                    f"{type(exc).__name__}: {exc}"
                )
        offered = case.mode == "offered"
        prompt = system_prompt(skill, workspace=opened is not None, offered=offered)
        tape = current_tape()  # the item's cassette, when --skill-lens-record is on
        try:
            call = tape.open_call("runner", self.name) if tape is not None else None
        except CassetteMiss as exc:  # replay only, and nothing recorded: no request at all
            return RunResult(error=str(exc))
        result = run_with_retries(
            lambda: self._attempt_on(call, prompt, skill, case, opened),
            retries=self.settings.retries,
            backoff_seconds=self.settings.retry_backoff_seconds,
            # A cassette that cannot answer never answers on a second try either.
            transient=lambda f: not isinstance(f, CassetteMiss) and self.is_transient(f),
            sleep=self._sleep,
            on_failure=self._name_the_endpoint,
        )
        return as_recorded(call, result)

    def _attempt_on(
        self,
        call: SeatCall | None,
        prompt: str,
        skill: Skill,
        case: EvalCase,
        workspace: Workspace | None,
    ) -> Attempt:
        if call is not None:
            call.begin_attempt()  # only the final attempt's exchanges are kept
        return self.attempt(prompt, skill, case, workspace, call)

    def attempt(
        self,
        prompt: str,
        skill: Skill,
        case: EvalCase,
        workspace: Workspace | None,
        call: SeatCall | None = None,
    ) -> Attempt:
        """One fresh conversation with fresh mock tools; never raises for the provider.

        ``call`` is the item's cassette call: every model request goes through it.
        The workspace is not reset between attempts: what a discarded attempt wrote stays.
        """
        raise NotImplementedError

    def _name_the_endpoint(self, result: RunResult, failure: BaseException, made: int) -> None:
        """An errored run says which endpoint failed and how often it was tried."""
        if isinstance(failure, CassetteMiss):
            return  # answered from a cassette: no endpoint was asked
        tried = attempts_note(made, self.settings.retries)
        note = f"endpoint {endpoint_of(self.settings)}; {tried}"
        result.error = f"{result.error or type(failure).__name__} [{note}]"

    def is_transient(self, failure: BaseException) -> bool:
        raise NotImplementedError

    def fresh_tools(
        self, skill: Skill, case: EvalCase, workspace: Workspace | None
    ) -> list[BuiltinTool]:
        """The case's mock tools, built afresh, then every tool the harness adds."""
        mocks = [
            BuiltinTool(mock.name, mock.description, mock.schema, mock.call)
            for mock in build_mock_tools(case.tools).values()
        ]
        return mocks + harness_tools(skill, case, workspace, self.settings, self.sandbox)

    def _unsupported(self, case: EvalCase, workspace: Path | None) -> str | None:
        if case.sessions is not None:
            return f"the {self.name} runner runs one session per call; the plugin splits sessions:"
        if case.workspace is not None and workspace is None:
            return (
                "the case has a workspace: block, but the runner was handed no workspace directory"
            )
        return None


def as_recorded(call: SeatCall | None, result: RunResult) -> RunResult:
    """``result`` with the figures its cassette call recorded, when it was replayed.

    A replay measures nothing: its latency and spend are the recording's, and the
    reports say the outcome was replayed. Recording, the call keeps the figures.
    """
    if call is None:
        return result
    measured = Figures(result.latency_ms, result.cost_usd, result.cost_note, result.retry_cost_usd)
    try:
        figures = call.finish(measured)
    except CassetteMiss as exc:  # the act was abandoned at its deadline meanwhile
        result.error = result.error or str(exc)
        return result
    if figures is not measured:
        if figures.latency_ms is not None:
            result.latency_ms = figures.latency_ms
        result.cost_usd = figures.cost_usd
        result.cost_note = figures.cost_note
        result.retry_cost_usd = figures.retry_cost_usd
    return result


def endpoint_of(settings: Settings) -> str:
    """The endpoint a keyed run calls, and where that was decided."""
    return endpoint_named(settings.model, settings.base_url)
