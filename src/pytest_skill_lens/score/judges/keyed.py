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

from ...run.cassettes import CassetteMiss, Figures, SeatCall, current_tape
from ...run.models.endpoint import endpoint_named
from ...run.models.price_source import combined
from ...run.models.pricing import ResponseUsage, total_spend
from ...run.models.retry import attempts_note
from ...settings import Settings
from ..judge import JudgeRequest, JudgeVerdict
from .prompt import JudgePrompt, build_judge_prompt
from .resolve import judge_base_url, judge_model

NO_USAGE_NOTE = "the judge's provider reported no token usage, so its cost is not known"


Usage = ResponseUsage  # one response's usage, as the judge's framework reported it


def spend(model_id: str, usages: Sequence[Usage], base_url: str = "") -> JudgeVerdict:
    """An empty verdict carrying what ``usages`` cost; ``model_id`` is the judge's model,
    ``base_url`` its endpoint setting (a list price there may not be what it bills)."""
    total = total_spend(model_id, usages, NO_USAGE_NOTE, base_url)
    return JudgeVerdict(
        checks=None,
        cost_usd=total.cost_usd,
        cost_note=total.cost_note,
        price_source=total.price_source,
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
    sources: list[str | None] = []
    wait = backoff_seconds
    for number in range(retries + 1):
        outcome = _guarded(attempt)
        verdict = outcome.verdict
        cost += verdict.cost_usd
        tokens += verdict.tokens
        note = note or verdict.cost_note
        sources.append(verdict.price_source)
        last = number == retries
        if outcome.failure is None or last or not _safe(transient, outcome.failure):
            break
        sleep(wait)
        wait *= 2
    source = combined(sources)
    return replace(verdict, cost_usd=cost, tokens=tokens, cost_note=note, price_source=source)


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
    records_cassettes = True  # every model request goes through the item's cassette

    def __init__(self, settings: Settings, sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.model = judge_model(settings)
        self.base_url = judge_base_url(settings)  # where it is asked: priced by list there
        self._sleep = sleep

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        prompt = build_judge_prompt(request)
        tape = current_tape()  # the item's cassette, when --skill-lens-record is on
        try:
            call = tape.open_call("judge", self.name) if tape is not None else None
        except CassetteMiss as exc:  # replay only, and no verdict recorded: no request
            return JudgeVerdict(checks=None, error=str(exc))
        made: list[JudgeAttempt] = []

        def attempt() -> JudgeAttempt:
            made.append(self._attempt_on(call, prompt))
            return made[-1]

        verdict = judge_with_retries(
            attempt,
            retries=self.settings.retries,
            backoff_seconds=self.settings.retry_backoff_seconds,
            # A cassette that cannot answer never answers on a second try either.
            transient=lambda f: not isinstance(f, CassetteMiss) and self.is_transient(f),
            sleep=self._sleep,
        )
        failure = made[-1].failure if made else None
        if verdict.error and failure is not None and not isinstance(failure, CassetteMiss):
            verdict = replace(verdict, error=f"{verdict.error} [{self._tried(len(made))}]")
        return _as_recorded(call, verdict)

    def _tried(self, made: int) -> str:
        """Which endpoint the failed verdict was asked of, and how often (as a run says)."""
        key = "judge_base_url" if self.settings.judge_base_url else "base_url"
        endpoint = endpoint_named(self.model, judge_base_url(self.settings), key)
        return f"endpoint {endpoint}; {attempts_note(made, self.settings.retries)}"

    def _attempt_on(self, call: SeatCall | None, prompt: JudgePrompt) -> JudgeAttempt:
        if call is not None:
            call.begin_attempt()  # only the final attempt's exchanges are kept
        return self.attempt(prompt, call)

    def attempt(self, prompt: JudgePrompt, call: SeatCall | None = None) -> JudgeAttempt:
        """One call of the model; ``call`` is the item's cassette call, if any."""
        raise NotImplementedError

    def is_transient(self, failure: BaseException) -> bool:
        raise NotImplementedError


def _as_recorded(call: SeatCall | None, verdict: JudgeVerdict) -> JudgeVerdict:
    """``verdict`` with the spend its cassette call recorded, when it was replayed."""
    if call is None:
        return verdict
    measured = Figures(cost_usd=verdict.cost_usd, cost_note=verdict.cost_note)
    try:
        figures = call.finish(measured)
    except CassetteMiss as exc:  # the act was abandoned at its deadline meanwhile
        return replace(verdict, checks=None, error=verdict.error or str(exc))
    if figures is measured:
        return verdict
    return replace(verdict, cost_usd=figures.cost_usd, cost_note=figures.cost_note)
