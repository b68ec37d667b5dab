"""``judge = "langchain"``: a LangChain chat model with structured output returns the verdict.

LangChain is imported inside :meth:`LangChainJudge.attempt` only. The chat model
is the one the ``langchain`` runner builds, from the judge's model, endpoint and
temperature (:mod:`.resolve`); the verdict rules are in ``docs/judges.md``.
Nothing here raises.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from ...run.cassettes import SeatCall
from ...run.runners.langchain import is_transient
from ...settings import Settings
from .keyed import JudgeAttempt, KeyedJudge, failed, spend
from .output import OUTPUT_NAME, JudgeOutput, invalid, to_checks
from .prompt import JudgePrompt
from .resolve import judge_base_url

NAME = "langchain"


class LangChainJudge(KeyedJudge):
    """Grades one request per call; holds nothing between calls (safe under threads)."""

    name = NAME

    def __init__(self, settings: Settings, sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(settings, sleep)
        # The runner's model builder reads these three keys: hand it the judge's.
        self._model_settings = settings.model_copy(
            update={
                "model": self.model,
                "base_url": judge_base_url(settings),
                "temperature": settings.judge_temperature,
            }
        )

    def is_transient(self, failure: BaseException) -> bool:
        return is_transient(failure)

    def attempt(self, prompt: JudgePrompt, call: SeatCall | None = None) -> JudgeAttempt:
        from langchain_core.messages import HumanMessage, SystemMessage

        from ...run.runners.langchain_agent import chat_model, response_usage

        try:
            structured = chat_model(self._model_settings, call).with_structured_output(
                JudgeOutput, method="function_calling", include_raw=True
            )
            reply = structured.invoke(
                [SystemMessage(prompt.instructions), HumanMessage(prompt.message)]
            )
        except Exception as exc:  # a provider failure is an errored verdict, never raised
            return failed(spend(self.model, [], self.base_url), exc)
        raw = reply.get("raw") if isinstance(reply, Mapping) else None
        verdict = spend(self.model, [response_usage(raw)] if raw is not None else [], self.base_url)
        parsed = reply.get("parsed") if isinstance(reply, Mapping) else None
        if isinstance(parsed, JudgeOutput):
            return JudgeAttempt(replace(verdict, checks=to_checks(parsed)))
        why = _unreadable(raw, reply.get("parsing_error") if isinstance(reply, Mapping) else None)
        return JudgeAttempt(replace(verdict, error=why))


def _unreadable(raw: Any, parsing_error: object) -> str:
    """Why the reply is no verdict, read from the reply itself where it can be."""
    if isinstance(parsing_error, ValidationError):
        return invalid(parsing_error)
    if parsing_error is not None:
        return invalid(f"{type(parsing_error).__name__}: {parsing_error}")
    calls = list(getattr(raw, "tool_calls", None) or [])
    broken = list(getattr(raw, "invalid_tool_calls", None) or [])
    if any(c.get("name") == OUTPUT_NAME for c in broken):
        return invalid(f"the arguments of the judge's {OUTPUT_NAME} call are not valid JSON")
    if calls or broken:
        names = ", ".join(sorted({str(c.get("name")) for c in calls + broken}))
        return invalid(f"the judge called {names} instead of {OUTPUT_NAME}")
    said = str(getattr(raw, "text", "") or "").strip() if raw is not None else ""
    excerpt = said[:200] + ("..." if len(said) > 200 else "")
    return invalid(
        f"the judge answered in text without calling {OUTPUT_NAME}: {excerpt!r}"
        if said
        else f"the judge's reply was empty, with no call to {OUTPUT_NAME}"
    )
