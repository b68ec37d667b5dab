from __future__ import annotations

import pytest

from pytest_skill_lens.run.models.retry import Attempt, run_with_retries, transient_status
from pytest_skill_lens.run.result import RunResult


class Busy(Exception):
    pass


class Refused(Exception):
    pass


def attempts(*steps: Attempt) -> tuple[list[Attempt], object]:
    queue = list(steps)
    made: list[Attempt] = []

    def attempt() -> Attempt:
        step = queue.pop(0)
        made.append(step)
        return step

    return made, attempt


def failed(cost: float, failure: Exception) -> Attempt:
    return Attempt(RunResult(error=f"{type(failure).__name__}: {failure}", cost_usd=cost), failure)


def run(attempt: object, retries: int = 2) -> tuple[RunResult, list[float]]:
    slept: list[float] = []
    result = run_with_retries(
        attempt,  # type: ignore[arg-type]
        retries=retries,
        backoff_seconds=1.0,
        transient=lambda failure: isinstance(failure, Busy),
        sleep=slept.append,
    )
    return result, slept


@pytest.mark.parametrize(
    ("status", "transient"),
    [
        (408, True),
        (409, True),
        (429, True),
        (500, True),
        (503, True),
        (400, False),
        (401, False),
        (404, False),
    ],
)
def test_transient_statuses(status: int, transient: bool) -> None:
    assert transient_status(status) is transient


def test_a_success_is_returned_as_it_came() -> None:
    made, attempt = attempts(Attempt(RunResult(output="ok", cost_usd=0.5)))
    result, slept = run(attempt)
    assert (result.output, result.retry_cost_usd, slept, len(made)) == ("ok", 0.0, [], 1)


def test_transient_failures_are_retried_with_doubling_backoff_and_their_cost_kept_apart() -> None:
    made, attempt = attempts(
        failed(0.01, Busy("429")),
        failed(0.02, Busy("503")),
        Attempt(RunResult(output="ok", cost_usd=0.1)),
    )
    result, slept = run(attempt)
    assert result.output == "ok" and result.error is None
    assert result.cost_usd == 0.1  # the last attempt's own figure
    assert result.retry_cost_usd == pytest.approx(0.03)
    assert slept == [1.0, 2.0]
    assert len(made) == 3


def test_the_last_attempts_failure_is_the_result() -> None:
    _, attempt = attempts(failed(0.01, Busy("a")), failed(0.0, Busy("b")), failed(0.02, Busy("c")))
    result, slept = run(attempt)
    assert result.error == "Busy: c"
    assert result.cost_usd == 0.02 and result.retry_cost_usd == pytest.approx(0.01)
    assert slept == [1.0, 2.0]


def test_a_failure_that_is_not_transient_is_not_retried() -> None:
    made, attempt = attempts(failed(0.0, Refused("401")), Attempt(RunResult(output="never")))
    result, slept = run(attempt)
    assert result.error == "Refused: 401"
    assert (len(made), slept) == (1, [])


def test_no_retries_means_one_attempt() -> None:
    made, attempt = attempts(failed(0.0, Busy("x")), Attempt(RunResult(output="never")))
    result, _ = run(attempt, retries=0)
    assert result.error == "Busy: x" and len(made) == 1
