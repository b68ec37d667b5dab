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
from ..mocktools import build_mock_tools
from ..prompt import system_prompt
from ..result import RunResult
from ..retry import Attempt, run_with_retries
from ..sandbox import SandboxDecision
from ..toolkit import harness_tools
from ..workspace import Limits, Workspace
from ..workspace_tools import BuiltinTool


class FrameworkRunner:
    """Performs a case with a framework's agent; holds nothing between runs.

    A subclass sets ``name``, implements :meth:`attempt` (one fresh conversation,
    never raising for the provider) and :meth:`is_transient` (whether a failure
    is worth another attempt).
    """

    name: str

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
        return run_with_retries(
            lambda: self.attempt(prompt, skill, case, opened),
            retries=self.settings.retries,
            backoff_seconds=self.settings.retry_backoff_seconds,
            transient=self.is_transient,
            sleep=self._sleep,
        )

    def attempt(
        self, prompt: str, skill: Skill, case: EvalCase, workspace: Workspace | None
    ) -> Attempt:
        """One fresh conversation with fresh mock tools; never raises for the provider.

        The workspace is not reset between attempts: what a discarded attempt wrote stays.
        """
        raise NotImplementedError

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
