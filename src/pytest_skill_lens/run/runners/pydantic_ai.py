"""The ``pydantic-ai`` runner: a real PydanticAI ``Agent`` with the case's mock tools.

``pydantic_ai`` is imported inside :meth:`PydanticAIRunner.attempt` only, so the
plugin can import this module to check the settings without loading the
framework. The model is built in :mod:`.pydantic_ai_model` (shared with the
judge); what reaches the model and what is measured is in ``docs/runners.md``.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from ...settings import Settings
from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..cassettes import SeatCall
from ..models.pricing import total_spend
from ..models.retry import Attempt
from ..result import RunResult, ToolCall
from ..tools.skill_tool import skill_triggered, skills_triggered
from ..workspace.workspace import Workspace
from .framework import FrameworkRunner
from .pydantic_ai_model import EXTRA_INSTALL as EXTRA_INSTALL
from .pydantic_ai_model import cassette_or_model, model_problem, response_usage, run_agent
from .pydantic_ai_model import is_transient as is_transient

NAME = "pydantic-ai"
STOP_NOTE = "pydantic-ai stopped the run before the agent finished, at the case's max_tokens"
NO_USAGE_NOTE = "pydantic-ai received no token usage from the provider"
# pydantic-ai's warnings about what the result's usage_note and cost_note already say.
_NOTED_WARNINGS = ("UsageLimitUnavailableWarning", "CostNotFoundWarning")


def settings_problem(settings: Settings) -> str | None:
    """A setting this runner cannot honour, said before any case runs."""
    return model_problem(settings.model, settings.base_url)


class PydanticAIRunner(FrameworkRunner):
    """Performs a case with a PydanticAI agent; holds nothing between runs."""

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
            from pydantic_ai import UsageLimits, capture_run_messages, exceptions
            from pydantic_ai.exceptions import UsageLimitExceeded
        except ImportError as exc:
            return Attempt(RunResult(error=f"{type(exc).__name__}: {exc}; {EXTRA_INSTALL}"))
        max_tokens = case.budget.max_tokens if case.budget is not None else None
        limits = UsageLimits(total_tokens_limit=max_tokens)
        output: str | None = None
        failure: BaseException | None = None
        start = time.perf_counter()
        with warnings.catch_warnings(), capture_run_messages() as messages:
            # Missing usage and prices become notes on the result; a warning per case adds nothing.
            for category in _NOTED_WARNINGS:
                if (warning := getattr(exceptions, category, None)) is not None:
                    warnings.simplefilter("ignore", warning)
            try:
                tools = self._tools(skill, case, workspace)
                run = run_agent(
                    lambda client: self._agent(prompt, tools, client, call),
                    case.task or "",
                    usage_limits=limits,
                )
                output = str(run.output)
            except Exception as exc:  # a provider failure (or a stop) is a result, never raised
                failure = exc
        latency_ms = (time.perf_counter() - start) * 1000
        result = self._result(messages, output, latency_ms)
        result.skill_triggered = skill_triggered(skill, case, result.tool_calls)
        result.skills_triggered = skills_triggered(skill, case, result.tool_calls)
        if isinstance(failure, UsageLimitExceeded) and (
            max_tokens is not None and result.usage_note is None and result.tokens > max_tokens
        ):
            result.stop_note = STOP_NOTE  # the case ran away: scored as far as it got
            return Attempt(result)
        if failure is not None:
            result.error = f"{type(failure).__name__}: {failure}"
        return Attempt(result, failure)

    def _agent(
        self, prompt: str, tools: list[Any], http_client: Any, call: SeatCall | None = None
    ) -> Any:
        from pydantic_ai import Agent

        model_settings: Any = {"max_retries": 0}  # retries are ours, counted and priced
        if self.settings.temperature != "unset":
            model_settings["temperature"] = self.settings.temperature
        return Agent(
            self._model(http_client, call),
            system_prompt=prompt,
            tools=tools,
            model_settings=model_settings,
            name="skill-lens",
        )

    def _tools(self, skill: Skill, case: EvalCase, workspace: Workspace | None) -> list[Any]:
        return [
            _tool(t.name, t.description, t.schema, t.call)
            for t in self.fresh_tools(skill, case, workspace)
        ]

    def _model(self, http_client: Any, call: SeatCall | None = None) -> Any:
        return cassette_or_model(call, self.settings.model, self.settings.base_url, http_client)

    def _result(self, messages: list[Any], output: str | None, latency_ms: float) -> RunResult:
        from pydantic_ai.messages import ModelResponse

        responses = [m for m in messages if isinstance(m, ModelResponse)]
        usages = [response_usage(r) for r in responses]
        spend = total_spend(self.settings.model, usages, NO_USAGE_NOTE, self.settings.base_url)
        if output is None:
            output = (responses[-1].text or "") if responses else ""
        return RunResult(
            output=output,
            tool_calls=_tool_calls(responses),
            input_tokens=spend.input_tokens,
            output_tokens=spend.output_tokens,
            cost_usd=spend.cost_usd,
            latency_ms=latency_ms,
            model=spend.model,
            transcript=_transcript(messages),
            cost_note=spend.cost_note,
            price_source=spend.price_source,
            usage_note=NO_USAGE_NOTE if spend.unmeasured else None,
        )


def _tool(
    name: str, description: str, schema: dict[str, Any], call: Callable[[Mapping[str, Any]], str]
) -> Any:
    from pydantic_ai import Tool

    async def answer(**arguments: Any) -> str:
        return call(arguments)

    tool = Tool.from_schema(answer, name=name, description=description, json_schema=schema)
    tool.strict = False  # as declared: never constrained decoding the author did not ask for
    return tool


def parse_arguments(args: object) -> dict[str, Any]:
    """A tool call's arguments as a dict; text that is not a JSON object is kept under ``_raw``."""
    if args is None:
        return {}
    if isinstance(args, dict):
        return dict(args)
    if not isinstance(args, str):
        return {"_raw": str(args)}
    if not args.strip():
        return {}
    try:
        parsed = json.loads(args)
    except ValueError:
        return {"_raw": args}
    return parsed if isinstance(parsed, dict) else {"_raw": args}


def _tool_calls(responses: list[Any]) -> list[ToolCall]:
    from pydantic_ai.messages import ToolCallPart

    return [
        ToolCall(part.tool_name, parse_arguments(part.args))
        for response in responses
        for part in response.parts
        if isinstance(part, ToolCallPart)
    ]


def _transcript(messages: list[Any]) -> list[dict[str, Any]]:
    """The conversation as plain data: who said what, which tools were asked for and answered."""
    from pydantic_ai.messages import (
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    entries: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            calls = [
                {"name": p.tool_name, "arguments": parse_arguments(p.args)}
                for p in message.parts
                if isinstance(p, ToolCallPart)
            ]
            entry: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                entry["tool_calls"] = calls
            entries.append(entry)
            continue
        for part in message.parts:
            if isinstance(part, SystemPromptPart):
                entries.append({"role": "system", "content": part.content})
            elif isinstance(part, UserPromptPart):
                entries.append({"role": "user", "content": _text(part.content)})
            elif isinstance(part, ToolReturnPart):
                entries.append(
                    {"role": "tool", "name": part.tool_name, "content": part.model_response_str()}
                )
            elif hasattr(part, "model_response") and hasattr(part, "tool_name"):
                # A retry prompt: the framework's own reply to a call it could not run.
                entries.append(
                    {"role": "tool", "name": part.tool_name, "content": part.model_response()}
                )
    return entries


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, default=str)
