from __future__ import annotations

import pytest

from pytest_skill_lens.run.models.providers import base_url_problem, missing_api_key, provider_of


@pytest.mark.parametrize(
    ("model", "provider"),
    [("openai:gpt-4o-mini", "openai"), ("ollama:llama3.2:8b", "ollama"), ("gpt-4o", "")],
)
def test_the_provider_is_the_text_before_the_first_colon(model: str, provider: str) -> None:
    assert provider_of(model) == provider


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("openai:gpt-4o-mini", "OPENAI_API_KEY"),
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("google-gla:gemini-2.5-flash", "GOOGLE_API_KEY"),
        ("groq:llama-3.3-70b", "GROQ_API_KEY"),
        ("mistral:mistral-large-latest", "MISTRAL_API_KEY"),
        ("cohere:command-r", "CO_API_KEY"),
        ("deepseek:deepseek-chat", "DEEPSEEK_API_KEY"),
    ],
)
def test_each_provider_needs_its_own_key(
    monkeypatch: pytest.MonkeyPatch, model: str, variable: str
) -> None:
    monkeypatch.delenv(variable, raising=False)
    assert missing_api_key(model) == variable
    monkeypatch.setenv(variable, "   ")  # blank is not a key
    assert missing_api_key(model) == variable
    monkeypatch.setenv(variable, "sk-test")
    assert missing_api_key(model) is None


def test_a_provider_without_a_known_key_is_not_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    assert missing_api_key("ollama:llama3.2") is None
    assert missing_api_key("gpt-4o") is None


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:11434/v1",
        "https://models.example.com/v1",
        "http://127.0.0.1:8000",
        "http://[::1]:8080/v1",
    ],
)
def test_an_http_url_with_a_host_is_an_endpoint(url: str) -> None:
    assert base_url_problem(url) is None


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("ftp://models.example/v1", "it must start with http:// or https://"),
        ("localhost:11434/v1", "it must start with http:// or https://"),
        ("models.example/v1", "it must start with http:// or https://"),
        ("http:///v1", "it has no host"),
        ("http://localhost:port/v1", "it is not a valid URL"),
        ("https://user:s3cr3t@models.example/v1", "it carries credentials"),
        ("https://token@models.example/v1", "it carries credentials"),
    ],
)
def test_what_cannot_be_an_endpoint_is_said_without_echoing_it(url: str, problem: str) -> None:
    said = base_url_problem(url)
    assert said is not None and said.startswith(problem)
    assert "s3cr3t" not in said and "token" not in said
