"""The ``langchain`` runner: a LangChain 1.x ``create_agent`` agent with the case's mock tools.

Nothing from LangChain is imported here: the plugin imports this module to check
the settings before anything is collected. The agent is built in
:mod:`.langchain_agent`, imported by :meth:`LangChainRunner.attempt` only; what
reaches the model and what is measured is in ``docs/runners.md``.
"""

from __future__ import annotations

from ...settings import Settings
from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..cassettes import SeatCall
from ..models.retry import Attempt, transient_status
from ..result import RunResult
from ..tools.skill_tool import skill_triggered, skills_triggered
from ..workspace.workspace import Workspace
from .framework import FrameworkRunner
from .langchain_model import EXTRA_INSTALL as EXTRA_INSTALL
from .langchain_model import PROVIDER_MODULES as PROVIDER_MODULES
from .langchain_model import missing_extra as missing_extra
from .langchain_model import model_problem

NAME = "langchain"
STOP_NOTE = "langchain stopped the run before the agent finished, at the case's max_tokens"
NO_USAGE_NOTE = "langchain received no token usage from the provider"


def settings_problem(settings: Settings) -> str | None:
    """A model this runner cannot serve, said before any case runs."""
    return model_problem(settings.model, role="runner", base_url_key="base_url")


class LangChainRunner(FrameworkRunner):
    """Performs a case with a LangChain agent; holds nothing between runs."""

    name = NAME

    def is_transient(self, failure: BaseException) -> bool:
        return is_transient(failure)

    def attempt(
        self,
        prompt: str,
        skill: Skill,
        case: EvalCase,
        workspace: Workspace | None,
        call: SeatCall | None = None,
    ) -> Attempt:
        try:
            from .langchain_agent import run_agent
        except ImportError as exc:
            return Attempt(RunResult(error=f"{type(exc).__name__}: {exc}; {EXTRA_INSTALL}"))
        tools = self.fresh_tools(skill, case, workspace)
        max_tokens = case.budget.max_tokens if case.budget is not None else None
        run = run_agent(
            self.settings,
            prompt=prompt,
            task=case.task or "",
            tools=tools,
            max_tokens=max_tokens,
            call=call,
        )
        result = run.result
        result.skill_triggered = skill_triggered(skill, case, result.tool_calls)
        result.skills_triggered = skills_triggered(skill, case, result.tool_calls)
        if run.stopped:
            result.stop_note = STOP_NOTE  # the case ran away: scored as far as it got
            return Attempt(result)
        if run.failure is not None:
            result.error = f"{type(run.failure).__name__}: {run.failure}"
        return Attempt(result, run.failure)


def is_transient(failure: BaseException) -> bool:
    """Whether another attempt could succeed: a busy, slow or unreachable provider.

    LangChain passes the provider SDK's exceptions through: an HTTP error
    carries ``status_code`` (``openai`` and ``anthropic`` alike); a connection
    or timeout error is the SDK's ``APIConnectionError`` (``APITimeoutError``
    is one), which carries none.
    """
    status = getattr(failure, "status_code", None)
    if isinstance(status, int):
        return transient_status(status)
    if isinstance(failure, TimeoutError | ConnectionError):
        return True
    return any(isinstance(failure, kind) for kind in _connection_errors())


def _connection_errors() -> list[type[BaseException]]:
    kinds: list[type[BaseException]] = []
    for module in ("openai", "anthropic"):
        try:
            sdk = __import__(module)
        except ImportError:
            continue
        kind = getattr(sdk, "APIConnectionError", None)
        if isinstance(kind, type) and issubclass(kind, BaseException):
            kinds.append(kind)
    try:
        import httpx
    except ImportError:
        return kinds
    kinds.append(httpx.TransportError)
    return kinds
