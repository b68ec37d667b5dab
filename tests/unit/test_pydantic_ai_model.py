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


def test_every_run_shares_one_tls_context() -> None:
    # Loading the CA bundle once per process, not per run, is what makes runs cheap to start.
    from pytest_skill_lens.run.runners.pydantic_ai_model import shared_tls

    assert shared_tls() is shared_tls()


@pytest.mark.parametrize("model", ["openai:gpt-4o-mini", "ollama:llama3", "anthropic:claude-x"])
def test_a_run_gets_its_own_client_on_the_shared_context_closed_after(
    model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(key, "dummy")  # nothing is sent: the stand-in agent never calls out
    from pytest_skill_lens.run.runners import pydantic_ai_model as built

    seen: list[object] = []

    class Agent:  # stands in for pydantic-ai's Agent: records the model it was given
        def __init__(self, client: object) -> None:
            self.model = built.build_model(model, "http://127.0.0.1:9/v1", client)
            seen.append(client)

        async def run(self, task: str, **options: object) -> str:
            client = seen[-1]
            assert not client.is_closed  # type: ignore[attr-defined]
            return f"{task} {sorted(options)}"

    assert built.run_agent(Agent, "task", usage_limits=None) == "task ['usage_limits']"
    assert built.run_agent(Agent, "again") == "again []"
    first, second = seen
    assert first is not second  # each run's connections belong to its own event loop
    assert first.is_closed and second.is_closed  # type: ignore[attr-defined]
    transport = first._transport  # type: ignore[attr-defined]
    assert transport._pool._ssl_context is built.shared_tls()
