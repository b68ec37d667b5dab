"""The ``langchain`` runner: a LangChain 1.x ``create_agent`` agent with the case's mock tools.

Nothing from LangChain is imported at module level: the plugin imports this
module to check the extra and the settings, and collecting must not load a
framework. The agent itself is built in :mod:`.langchain_agent`, imported by
:meth:`LangChainRunner.run` only. What the runner does, per attempt:

* builds the chat model: ``openai:`` is ``ChatOpenAI`` on the Chat Completions
  API (at ``base_url`` when one is set, so any OpenAI-compatible server works),
  ``anthropic:`` is ``ChatAnthropic``; no other prefix is served (preflight
  refuses it with the fix);
* under ``mode: offered``, keeps the skill out of the system prompt and offers
  it as a tool instead (:mod:`..skill_tool`); ``skill_triggered`` is whether the
  attempt's recorded calls include it;
* hands the model every tool definition exactly as declared, in the
  provider's own format, so LangChain's schema conversion (which inlines
  ``$ref``, drops ``title``) never touches it, and no ``strict`` flag is added;
* answers every call from the mock (or built-in) tool with the arguments as
  the model sent them, never validated or coerced by the framework;
* stops the agent at the first model response that takes the run's token
  total over the case's ``budget.max_tokens``;
* reads everything it reports from the agent's messages, which are kept
  after every step, so a run that stops or fails still says what it did.
"""

from __future__ import annotations

from importlib.util import find_spec

from ...settings import Settings
from ...spec.model import EvalCase
from ...spec.skill import Skill
from ..providers import provider_of
from ..result import RunResult
from ..retry import Attempt, transient_status
from ..skill_tool import skill_triggered
from ..workspace import Workspace
from .framework import FrameworkRunner

NAME = "langchain"
EXTRA_INSTALL = 'pip install "pytest-skill-lens[langchain]"'
STOP_NOTE = "langchain stopped the run before the agent finished, at the case's max_tokens"
NO_USAGE_NOTE = "langchain received no token usage from the provider"
# The provider prefixes this runner serves, and the integration package each needs.
PROVIDER_MODULES = {"openai": "langchain_openai", "anthropic": "langchain_anthropic"}


def missing_extra(model: str | None = None) -> str | None:
    """The module the runner needs that is not installed, found without importing it."""
    needed = ["langchain", "langgraph", "genai_prices"]
    if model is not None and provider_of(model) in PROVIDER_MODULES:
        needed.append(PROVIDER_MODULES[provider_of(model)])
    for module in needed:
        if find_spec(module) is None:
            return module
    return None


def settings_problem(settings: Settings) -> str | None:
    """A model this runner cannot serve, said before any case runs."""
    prefix = provider_of(settings.model)
    if not prefix or not settings.model.partition(":")[2]:
        return (
            f"the model {settings.model!r} is not of the form provider:name "
            "(e.g. openai:gpt-4o-mini, anthropic:claude-sonnet-4-5)"
        )
    if prefix not in PROVIDER_MODULES:
        return (
            f"the langchain runner serves openai: and anthropic: models, not {prefix}:; "
            "a self-hosted or gateway model is reached as openai:<name> with base_url "
            "set to its OpenAI-compatible endpoint"
        )
    return None


class LangChainRunner(FrameworkRunner):
    """Performs a case with a LangChain agent; holds nothing between runs."""

    name = NAME

    def is_transient(self, failure: BaseException) -> bool:
        return is_transient(failure)

    def attempt(
        self, prompt: str, skill: Skill, case: EvalCase, workspace: Workspace | None
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
        )
        result = run.result
        result.skill_triggered = skill_triggered(skill, case, result.tool_calls)
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
