"""Retrying a keyed run after a transient provider failure.

Each attempt is a fresh conversation (the runner rebuilds the agent and the mock
tools), so a retried attempt is shown exactly what the first one was. The
result is the last attempt's, which keeps ``budget:`` measuring one run of the
skill; what the discarded attempts cost is carried apart in ``retry_cost_usd``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: configure reads this module's statuses, not results
    from ..result import RunResult

TRANSIENT_STATUSES = frozenset({408, 409, 429})


def attempts_note(made: int, retries: int) -> str:
    """``1 attempt (retries = 0)``, ``3 attempts (retries = 2)``: how hard the run tried."""
    return f"{made} attempt{'s' if made != 1 else ''} (retries = {retries})"


def transient_status(status: int) -> bool:
    """HTTP 408, 409, 429 and every 5xx are worth another attempt."""
    return status in TRANSIENT_STATUSES or status >= 500


@dataclass
class Attempt:
    """One attempt's result, and the failure that ended it, if one did."""

    result: RunResult
    failure: BaseException | None = None


def run_with_retries(
    attempt: Callable[[], Attempt],
    *,
    retries: int,
    backoff_seconds: float,
    transient: Callable[[BaseException], bool],
    sleep: Callable[[float], None] = time.sleep,
    on_failure: Callable[[RunResult, BaseException, int], None] | None = None,
) -> RunResult:
    """Call ``attempt`` until it succeeds, fails for good, or ``retries`` more tries are spent.

    The wait before the first retry is ``backoff_seconds``, doubling each time.
    A failed last attempt's result (with its error) is returned, never raised;
    ``on_failure`` is handed it, the failure and how many attempts were made, so the
    runner can say which endpoint failed how often.
    """
    discarded_cost = 0.0
    wait = backoff_seconds
    for number in range(retries + 1):
        outcome = attempt()
        last = number == retries
        if outcome.failure is None or last or not transient(outcome.failure):
            break
        discarded_cost += outcome.result.cost_usd
        sleep(wait)
        wait *= 2
    result = outcome.result
    result.retry_cost_usd = discarded_cost
    if outcome.failure is not None and on_failure is not None:
        on_failure(result, outcome.failure, number + 1)
    return result
