"""The langchain runner's pure rules: which failures are retried, which models it serves."""

from __future__ import annotations

import pytest

from pytest_skill_lens.run.runners.langchain import is_transient, missing_extra, settings_problem
from pytest_skill_lens.settings import Settings

httpx = pytest.importorskip("httpx")
openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

REQUEST = httpx.Request("POST", "http://127.0.0.1/v1")


def status_error(sdk: object, kind: str, status: int) -> Exception:
    response = httpx.Response(status, request=REQUEST)
    error: Exception = getattr(sdk, kind)("failed", response=response, body=None)
    return error


@pytest.mark.parametrize(
    ("failure", "transient"),
    [
        (status_error(openai, "InternalServerError", 500), True),
        (status_error(openai, "RateLimitError", 429), True),
        (status_error(openai, "ConflictError", 409), True),
        (status_error(anthropic, "InternalServerError", 529), True),
        (status_error(anthropic, "RateLimitError", 429), True),
        (status_error(openai, "AuthenticationError", 401), False),
        (status_error(openai, "BadRequestError", 400), False),
        (status_error(anthropic, "NotFoundError", 404), False),
        (openai.APIConnectionError(request=REQUEST), True),
        (openai.APITimeoutError(request=REQUEST), True),
        (anthropic.APIConnectionError(request=REQUEST), True),
        (httpx.ConnectError("refused"), True),
        (TimeoutError(), True),
        (ValueError("a bug, not a provider"), False),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else str(value),
)
def test_transient_failures(failure: Exception, transient: bool) -> None:
    assert is_transient(failure) is transient


def test_langchains_own_wrappers_keep_their_sdk_class() -> None:
    base = pytest.importorskip("langchain_openai.chat_models.base")
    wrapped = base.OpenAIConnectionError(message="Connection error.", request=REQUEST)
    assert is_transient(wrapped)


@pytest.mark.parametrize(
    ("model", "problem"),
    [
        ("openai:gpt-4o-mini", None),
        ("anthropic:claude-haiku-4-5", None),
        ("gpt-4o-mini", "is not of the form provider:name"),
        ("openai:", "is not of the form provider:name"),
        (
            "google_genai:gemini-2.5-flash",
            "serves openai: and anthropic: models, not google_genai:",
        ),
    ],
)
def test_models_served(model: str, problem: str | None) -> None:
    found = settings_problem(Settings(model=model))
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_the_extra_is_found_without_importing_it() -> None:
    assert missing_extra("openai:gpt-4o-mini") is None
    assert missing_extra("anthropic:claude-haiku-4-5") is None
