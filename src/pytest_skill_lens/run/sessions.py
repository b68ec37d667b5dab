"""``sessions:``: one runner call per session, against one workspace, merged into one run.

The runner never sees ``sessions:``: each call gets an ordinary one-task copy of
the case, so any runner (a third-party one included) runs sessions unchanged.
Only the workspace carries over, and the caller owns it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ..suite.model import EvalCase
from .models.price_source import combined
from .result import RunResult

RunOne = Callable[[EvalCase], RunResult]


def session_case(case: EvalCase, text: str, spent_tokens: int = 0) -> EvalCase:
    """The case one session's runner call gets: that session's task, no ``sessions:``.

    A token budget is what the earlier sessions left of it, so a runner that
    stops at its budget stops the sequence at the case's limit, not per session.
    """
    update: dict[str, object] = {"task": text, "sessions": None}
    if spent_tokens and case.budget is not None and case.budget.max_tokens is not None:
        left = max(case.budget.max_tokens - spent_tokens, 0)
        update["budget"] = case.budget.model_copy(update={"max_tokens": left})
    return case.model_copy(update=update)


def run_sessions(case: EvalCase, run_one: RunOne) -> RunResult:
    """Every session in order; an errored one ends the sequence and errors the case.

    The spend of every session that ran is kept, the errored one's included. A
    case whose token budget is spent runs no further session: the sum already
    fails the budget, and another call would only spend more.
    """
    tasks = case.sessions if case.sessions is not None else [case.task or ""]
    results: list[RunResult] = []
    for number, text in enumerate(tasks, 1):
        spent = sum(r.tokens for r in results)
        if _budget_spent(case, results, spent):
            break
        result = run_one(session_case(case, text, spent))
        results.append(result)
        if result.error is not None:
            merged = merge_results(results)
            merged.error = f"session {number} of {len(tasks)}: {result.error}"
            return merged
    return merge_results(results)


def _budget_spent(case: EvalCase, results: Sequence[RunResult], spent: int) -> bool:
    if not results or case.budget is None or case.budget.max_tokens is None:
        return False
    if any(r.usage_note for r in results):
        return False  # unmeasured usage cannot say the budget is gone
    return spent >= case.budget.max_tokens


def merge_results(results: Sequence[RunResult]) -> RunResult:
    """One run from several: the last output, every call in order, summed spend.

    A note that a figure is not a measurement survives from any session that
    had it (each distinct note once), so a sum never reads as measured when
    one of its parts was not.

    ``skill_loaded`` holds only when every session that could tell says the skill
    loaded: one session without it is a case that did not run with the skill.
    Hooks are every session's, in order.

    ``skill_triggered`` is whether any session triggered the skill; each
    session's own answer is kept in ``skill_triggered_by_session``, which is
    what a ``skill_triggered`` check holds every session to.
    """
    if not results:
        return RunResult()
    last = results[-1]
    triggered = [r.skill_triggered for r in results if r.skill_triggered is not None]
    loaded = [r.skill_loaded for r in results if r.skill_loaded is not None]
    return RunResult(
        output=last.output,
        tool_calls=[call for r in results for call in r.tool_calls],
        input_tokens=sum(r.input_tokens for r in results),
        output_tokens=sum(r.output_tokens for r in results),
        cost_usd=sum(r.cost_usd for r in results),
        latency_ms=sum(r.latency_ms for r in results),
        model=next((r.model for r in reversed(results) if r.model), ""),
        transcript=[entry for r in results for entry in r.transcript],
        error=last.error,
        skill_triggered=any(triggered) if triggered else None,
        skill_triggered_by_session=[r.skill_triggered for r in results],
        skills_triggered=_every_skill(results),
        cost_note=_distinct(r.cost_note for r in results),
        price_source=combined(r.price_source for r in results),
        usage_note=_distinct(r.usage_note for r in results),
        stop_note=last.stop_note,
        retry_cost_usd=sum(r.retry_cost_usd for r in results),
        hooks=[hook for r in results for hook in r.hooks],
        skill_loaded=all(loaded) if loaded else None,
        load_note=_distinct(r.load_note for r in results),
    )


def _every_skill(results: Sequence[RunResult]) -> list[str] | None:
    """Every session's triggered skills, each once in order; None if any session could not tell."""
    each = [r.skills_triggered for r in results]
    if not each or any(names is None for names in each):
        return None
    return list(dict.fromkeys(name for names in each if names is not None for name in names))


def _distinct(notes: Iterable[str | None]) -> str | None:
    seen: list[str] = []
    for note in notes:
        if note and note not in seen:
            seen.append(note)
    return "; ".join(seen) or None
