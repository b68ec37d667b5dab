"""``judge = "pydantic-ai"``: a PydanticAI agent with no tools that returns a structured verdict.

``pydantic_ai`` is imported inside :meth:`PydanticAIJudge.attempt` only. The model
is built as the runner builds its own (:mod:`...run.runners.pydantic_ai_model`);
the verdict rules are in ``docs/judges.md``. Nothing here raises.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ...run.cassettes import SeatCall
from ...run.runners.pydantic_ai_model import (
    cassette_or_model,
    is_transient,
    response_usage,
    run_agent,
)
from ...settings import Settings
from .keyed import JudgeAttempt, KeyedJudge, failed, spend
from .output import OUTPUT_DESCRIPTION, OUTPUT_NAME, JudgeOutput, invalid, read_output, to_checks
from .prompt import JudgePrompt
from .resolve import judge_base_url, judge_temperature

NAME = "pydantic-ai"
_NOTED_WARNINGS = ("UsageLimitUnavailableWarning", "CostNotFoundWarning")


class PydanticAIJudge(KeyedJudge):
    """Grades one request per call; holds nothing between calls (safe under threads)."""

    name = NAME

    def __init__(self, settings: Settings, sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(settings, sleep)
        self.base_url = judge_base_url(settings)

    def is_transient(self, failure: BaseException) -> bool:
        return is_transient(failure)

    def attempt(self, prompt: JudgePrompt, call: SeatCall | None = None) -> JudgeAttempt:
        from pydantic_ai import Agent, capture_run_messages, exceptions
        from pydantic_ai.output import ToolOutput

        settings: Any = {"max_retries": 0}  # retries are ours, counted and priced
        temperature = judge_temperature(self.settings)
        if temperature is not None:
            settings["temperature"] = temperature
        output: JudgeOutput | None = None
        failure: BaseException | None = None
        with warnings.catch_warnings(), capture_run_messages() as messages:
            for category in _NOTED_WARNINGS:  # the verdict's cost_note says it already
                if (warning := getattr(exceptions, category, None)) is not None:
                    warnings.simplefilter("ignore", warning)
            try:
                output = run_agent(
                    lambda client: Agent(
                        cassette_or_model(call, self.model, self.base_url, client),
                        output_type=ToolOutput(
                            JudgeOutput,
                            name=OUTPUT_NAME,
                            description=OUTPUT_DESCRIPTION,
                            max_retries=0,
                        ),
                        system_prompt=prompt.instructions,
                        model_settings=settings,
                        retries=0,
                        name="skill-lens-judge",
                    ),
                    prompt.message,
                ).output
            except Exception as exc:  # a provider failure is an errored verdict, never raised
                failure = exc
        responses = _responses(messages)
        verdict = spend(self.model, [response_usage(r) for r in responses], self.base_url)
        if isinstance(output, JudgeOutput):
            return JudgeAttempt(replace(verdict, checks=to_checks(output)))
        if isinstance(failure, exceptions.UnexpectedModelBehavior):
            why = _unreadable(responses, failure)
            return JudgeAttempt(replace(verdict, error=why))
        return failed(verdict, failure or RuntimeError("the judge returned no verdict"))


def _responses(messages: list[Any]) -> list[Any]:
    from pydantic_ai.messages import ModelResponse

    return [m for m in messages if isinstance(m, ModelResponse)]


def _unreadable(responses: list[Any], failure: BaseException) -> str:
    """Why the last reply is no verdict, read from the reply itself where it can be."""
    from pydantic_ai.messages import TextPart, ToolCallPart

    if not responses:
        return invalid(f"{type(failure).__name__}: {failure}")
    parts = responses[-1].parts
    calls = [p for p in parts if isinstance(p, ToolCallPart)]
    verdicts = [p for p in calls if p.tool_name == OUTPUT_NAME]
    if len(verdicts) > 1:
        return invalid(f"the judge called {OUTPUT_NAME} {len(verdicts)} times in one reply")
    if verdicts:
        _, why = read_output(verdicts[0].args if verdicts[0].args is not None else {})
        return why or invalid(f"{type(failure).__name__}: {failure}")
    if calls:
        names = ", ".join(sorted({c.tool_name for c in calls}))
        return invalid(f"the judge called {names} instead of {OUTPUT_NAME}")
    said = "".join(p.content for p in parts if isinstance(p, TextPart)).strip()
    excerpt = said[:200] + ("..." if len(said) > 200 else "")
    return invalid(
        f"the judge answered in text without calling {OUTPUT_NAME}: {excerpt!r}"
        if said
        else f"the judge's reply was empty, with no call to {OUTPUT_NAME}"
    )
