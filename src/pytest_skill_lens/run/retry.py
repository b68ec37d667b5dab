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

from .result import RunResult

TRANSIENT_STATUSES = frozenset({408, 409, 429})


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
) -> RunResult:
    """Call ``attempt`` until it succeeds, fails for good, or ``retries`` more tries are spent.

    The wait before the first retry is ``backoff_seconds``, doubling each time.
    A failed last attempt's result (with its error) is returned, never raised.
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
    return result
