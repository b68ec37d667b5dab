"""What the two framework judges share: pricing their responses, retrying, never raising.

Judge spend is judge overhead: the verdict carries it (``cost_usd``,
``cost_note``, ``tokens``, ``model``) and the judge evaluator puts it on its
score, so it is reported apart from the run and never counts against a case's
``budget:``. Every attempt was paid for, so a retried verdict's cost is the sum
of all of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ...run.pricing import ResponseUsage, total_spend
from ...settings import Settings
from ..judge import JudgeRequest, JudgeVerdict
from .prompt import JudgePrompt, build_judge_prompt
from .resolve import judge_model

NO_USAGE_NOTE = "the judge's provider reported no token usage, so its cost is not known"


Usage = ResponseUsage  # one response's usage, as the judge's framework reported it


def spend(model_id: str, usages: Sequence[Usage]) -> JudgeVerdict:
    """An empty verdict carrying what ``usages`` cost; ``model_id`` is the judge's model."""
    total = total_spend(model_id, usages, NO_USAGE_NOTE)
    return JudgeVerdict(
        checks=None,
        cost_usd=total.cost_usd,
        cost_note=total.cost_note,
        tokens=total.input_tokens + total.output_tokens,
        model=total.model,
    )


@dataclass(frozen=True)
class JudgeAttempt:
    """One judge call's verdict, and the provider failure that ended it, if one did."""

    verdict: JudgeVerdict
    failure: BaseException | None = None


def judge_with_retries(
    attempt: Callable[[], JudgeAttempt],
    *,
    retries: int,
    backoff_seconds: float,
    transient: Callable[[BaseException], bool],
    sleep: Callable[[float], None] = time.sleep,
) -> JudgeVerdict:
    """Call ``attempt`` until it grades, fails for good, or ``retries`` more tries are spent.

    Only a transient provider failure is retried (busy, slow, unreachable); an
    unreadable verdict is not a provider failure and is never retried.
    """
    cost, tokens, note = 0.0, 0, None
    wait = backoff_seconds
    for number in range(retries + 1):
        outcome = _guarded(attempt)
        verdict = outcome.verdict
        cost += verdict.cost_usd
        tokens += verdict.tokens
        note = note or verdict.cost_note
        last = number == retries
        if outcome.failure is None or last or not _safe(transient, outcome.failure):
            break
        sleep(wait)
        wait *= 2
    return replace(verdict, cost_usd=cost, tokens=tokens, cost_note=note)


def failed(verdict: JudgeVerdict, failure: BaseException) -> JudgeAttempt:
    """An attempt the provider (or the framework) ended: errored, with what it spent."""
    return JudgeAttempt(
        replace(verdict, checks=None, error=f"{type(failure).__name__}: {failure}"), failure
    )


def _guarded(attempt: Callable[[], JudgeAttempt]) -> JudgeAttempt:
    try:
        return attempt()
    except Exception as exc:  # a judge never raises: a bug of ours is an errored verdict too
        return JudgeAttempt(
            JudgeVerdict(checks=None, error=f"the judge failed: {type(exc).__name__}: {exc}")
        )


def _safe(transient: Callable[[BaseException], bool], failure: BaseException) -> bool:
    try:
        return transient(failure)
    except Exception:
        return False


class KeyedJudge:
    """What both framework judges do around their framework: the one judge prompt, retries
    of transient failures, every attempt paid for; never raising.

    A subclass sets ``name`` and implements :meth:`attempt` (one call of the model)
    and :meth:`is_transient`.
    """

    name: str

    def __init__(self, settings: Settings, sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.model = judge_model(settings)
        self._sleep = sleep

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        prompt = build_judge_prompt(request)
        return judge_with_retries(
            lambda: self.attempt(prompt),
            retries=self.settings.retries,
            backoff_seconds=self.settings.retry_backoff_seconds,
            transient=self.is_transient,
            sleep=self._sleep,
        )

    def attempt(self, prompt: JudgePrompt) -> JudgeAttempt:
        raise NotImplementedError

    def is_transient(self, failure: BaseException) -> bool:
        raise NotImplementedError
