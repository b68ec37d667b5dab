"""Which failures the pydantic-ai runner and judge retry (run/runners/pydantic_ai_model.py)."""

from __future__ import annotations

import pytest

exceptions = pytest.importorskip("pydantic_ai.exceptions")

from pytest_skill_lens.run.runners.pydantic_ai_model import is_transient  # noqa: E402

MODEL = "gpt-4o-mini"


@pytest.mark.parametrize(
    ("failure", "transient"),
    [
        (exceptions.ModelHTTPError(500, MODEL), True),
        (exceptions.ModelHTTPError(503, MODEL), True),
        (exceptions.ModelHTTPError(529, MODEL), True),
        (exceptions.ModelHTTPError(429, MODEL), True),
        (exceptions.ModelHTTPError(408, MODEL), True),
        (exceptions.ModelHTTPError(409, MODEL), True),
        (exceptions.ModelHTTPError(400, MODEL), False),
        (exceptions.ModelHTTPError(401, MODEL), False),
        (exceptions.ModelHTTPError(404, MODEL), False),
        (exceptions.ModelConnectionError(MODEL, "Connection error."), True),
        (exceptions.ModelTimeoutError(MODEL, "Request timed out."), True),
        (exceptions.ModelRequestTimeout(MODEL, 30.0), True),
        (exceptions.ModelServerError(MODEL, "overloaded_error in the stream"), True),
        (exceptions.ModelOverloadedError(MODEL, "overloaded"), True),
        (exceptions.ModelRateLimitError(MODEL, "slow down"), True),
        (exceptions.ModelAuthenticationError(MODEL, "bad key"), False),
        (exceptions.ModelQuotaExceededError(MODEL, "insufficient_quota"), False),
        # A reply that is not JSON is an answer, not a busy provider: errored at once.
        (exceptions.ModelAPIError(MODEL, "Failed to decode response as JSON"), False),
        (exceptions.ModelContextWindowExceededError(MODEL, "too long"), False),
        (TimeoutError(), True),
        (ConnectionResetError(), True),
        # A stop or a framework complaint is not the provider being busy.
        (exceptions.UsageLimitExceeded("request_limit of 50"), False),
        (exceptions.UnexpectedModelBehavior("no output"), False),
        (ValueError("a bug, not a provider"), False),
    ],
    ids=lambda value: (
        f"{type(value).__name__}-{getattr(value, 'status_code', '')}"
        if isinstance(value, Exception)
        else str(value)
    ),
)
def test_transient_failures(failure: Exception, transient: bool) -> None:
    assert is_transient(failure) is transient
