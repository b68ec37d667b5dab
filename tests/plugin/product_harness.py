"""What the product end-to-end modules share: the products pointed at the scripted server,
and one inner run of a skill under a product.

Claude Code and Copilot talk to the scripted Anthropic server on 127.0.0.1
(anthropic_server.py); none of them may see a credential of the machine's own. The
fixtures are registered for tests/plugin by conftest.py:

* ``anthropic_server``: the scripted server, for one test;
* ``claude_env``: Claude Code pointed at it, with a placeholder key and no retries;
* ``copilot_env``: Copilot in its bring-your-own-model mode pointed at it;
* ``product_env``: both.

A module whose ``server`` is that server imports :func:`anthropic_as_server`, the
fixture ``server`` (it shadows tests/plugin's OpenAI-compatible one there only).
:func:`run_skill` writes a skill and runs it under a runner the way a user does, and
returns what the JSON report says; a :class:`ProductRun` does that with a module's
defaults and returns the outcomes by case name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from anthropic_server import AnthropicServer, Request
from skillfactory import QUIET_PLUGINS, make_skill, write_file

__all__ = [
    "CLAUDE_TOML",
    "ProductRun",
    "anthropic_as_server",
    "anthropic_server",
    "by_case",
    "claude_env",
    "copilot_env",
    "point_claude_code_at",
    "point_copilot_at",
    "product_env",
    "requests_about",
    "run_skill",
    "seen",
]

# Claude Code's own retries would turn one scripted failure into several requests.
CLAUDE_TOML = '[runners.claude-code]\npass_env = ["CLAUDE_CODE_MAX_RETRIES"]\n'
CLAUDE_CREDENTIALS = ("CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN")
COPILOT_CREDENTIALS = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "COPILOT_HOME")


def point_claude_code_at(monkeypatch: pytest.MonkeyPatch, url: str, key: str = "dummy") -> None:
    """Claude Code talks to ``url`` with ``key``; no credential of the machine's own."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")  # a scripted failure is not retried
    for name in CLAUDE_CREDENTIALS:
        monkeypatch.delenv(name, raising=False)


def point_copilot_at(monkeypatch: pytest.MonkeyPatch, url: str, key: str = "dummy") -> None:
    """Copilot's own-model mode talks to ``url`` with ``key``; no GitHub token of the
    machine's own."""
    monkeypatch.setenv("COPILOT_OFFLINE", "true")
    monkeypatch.setenv("COPILOT_PROVIDER_TYPE", "anthropic")
    monkeypatch.setenv("COPILOT_PROVIDER_BASE_URL", url)
    monkeypatch.setenv("COPILOT_PROVIDER_API_KEY", key)
    monkeypatch.setenv("COPILOT_MODEL", "claude-sonnet-4.5")
    for name in COPILOT_CREDENTIALS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    """The scripted Anthropic server on 127.0.0.1, for one test."""
    with AnthropicServer() as running:
        yield running


@pytest.fixture(name="server")
def anthropic_as_server(anthropic_server: AnthropicServer) -> AnthropicServer:
    """``server``, in a module that imports this: the scripted model the products talk to
    (``claude_env``, ``copilot_env``)."""
    return anthropic_server


@pytest.fixture
def claude_env(monkeypatch: pytest.MonkeyPatch, anthropic_server: AnthropicServer) -> None:
    """A placeholder key and the scripted server; no credential of the machine's own."""
    point_claude_code_at(monkeypatch, anthropic_server.url)


@pytest.fixture
def copilot_env(monkeypatch: pytest.MonkeyPatch, anthropic_server: AnthropicServer) -> None:
    """Copilot's own-model mode pointed at the scripted server; no GitHub token of the
    machine's own."""
    point_copilot_at(monkeypatch, anthropic_server.url)


@pytest.fixture
def product_env(claude_env: None, copilot_env: None) -> None:
    """Both products pointed at the scripted server; no credential of the machine's own."""


def run_skill(
    pytester: pytest.Pytester,
    runner: str,
    cases: Sequence[Mapping[str, Any]],
    *args: str,
    skill: str = "greet",
    body: str | None = None,
    frontmatter: str | None = None,
    toml: str = "",
    subprocess: bool = False,
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Skill ``skill`` with ``cases`` and skill-lens.toml ``toml``, run under ``runner``:
    the result and the run's JSON report (``{}`` when it wrote none).

    ``subprocess``: a run in a process of its own, for what only a fresh process shows.
    """
    extra = {} if body is None else {"body": body}
    make_skill(pytester.path / "skills", skill, cases, frontmatter=frontmatter, **extra)
    write_file(pytester.path / "skill-lens.toml", toml)
    report = pytester.path / "report.json"
    report.unlink(missing_ok=True)  # what is read is this run's, never an earlier one's
    inner = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    result = inner(
        *("--skill-lens", "skills", "--skill-lens-runner", runner),
        *("--skill-lens-json", "report.json", *QUIET_PLUGINS, *args),
    )
    data = json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}
    return result, data


@dataclass(frozen=True)
class ProductRun:
    """:func:`run_skill` under ``runner`` with a module's ``body`` and ``toml``, called
    as ``run(pytester, cases, *args)``: the result and the outcomes by case name.

    In-process unless ``subprocess``; refusals at configure time too (tests/conftest.py's
    ``pytester``).
    """

    runner: str
    body: str | None = None
    toml: str = ""

    def __call__(
        self,
        pytester: pytest.Pytester,
        cases: Sequence[Mapping[str, Any]],
        *args: str,
        toml: str | None = None,
        frontmatter: str | None = None,
        subprocess: bool = False,
    ) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
        result, report = run_skill(
            pytester,
            self.runner,
            cases,
            *args,
            body=self.body,
            frontmatter=frontmatter,
            toml=self.toml if toml is None else toml,
            subprocess=subprocess,
        )
        return result, by_case(report)


def by_case(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A report's outcomes by case name (none for a run that wrote no report)."""
    return {outcome["case_name"]: outcome for outcome in report.get("outcomes", [])}


def requests_about(server: AnthropicServer, phrase: str) -> list[Request]:
    """Every request of a conversation whose task holds ``phrase``, in order."""
    return [request for request in server.requests if phrase in request.task]


def seen(server: AnthropicServer, phrase: str) -> list[str]:
    """The whole text of every request whose conversation is about ``phrase``."""
    return [json.dumps(request.body) for request in requests_about(server, phrase)]
