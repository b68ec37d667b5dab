"""What the product end-to-end modules share: each product pointed at its scripted server,
one inner run of a skill under a product, and what the sandbox tests need.

Every product talks to a scripted server on 127.0.0.1 (product_servers.py says which, and
what each must not see of the machine's own credentials). The fixtures:

* ``anthropic_server``, ``claude_env``, ``copilot_env``, ``product_env``: Claude Code and
  Copilot against the scripted Anthropic server (registered for tests/plugin by
  conftest.py);
* ``server`` in a module that imports one of :func:`anthropic_as_server`,
  :func:`responses_as_server` (Codex CLI) or :func:`gemini_as_server` (Gemini CLI): that
  product's server, shadowing tests/plugin's OpenAI-compatible one (which OpenCode talks
  to) in that module only; :func:`stop` closes it early (before a replay);
* ``codex_env``, ``gemini_env``, ``opencode_env``: that product pointed at ``server``;
* ``host_target`` (import :func:`a_host_directory`): a host directory outside the
  temporary directory, for the sandbox tests.

:func:`run_skill` writes a skill and runs it under a runner the way a user does, and
returns what the JSON report says; :func:`run_cases` returns the outcomes by case name;
a :class:`ProductRun` does that with a module's defaults.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from anthropic_server import AnthropicServer
from gemini_server import GeminiServer
from model_server import ScriptedModelServer
from product_servers import CLAUDE_TOML, CODEX_TOML, GEMINI_TOML, OFFLINE
from responses_server import ResponsesServer
from scripted_server import ScriptedServer
from skillfactory import QUIET_PLUGINS, make_skill, write_file

__all__ = [
    "CLAUDE_TOML",
    "CODEX_TOML",
    "GEMINI_TOML",
    "ProductRun",
    "a_host_directory",
    "anthropic_as_server",
    "anthropic_server",
    "by_case",
    "claude_env",
    "codex_env",
    "copilot_env",
    "gemini_as_server",
    "gemini_env",
    "needs_bwrap",
    "opencode_env",
    "point_claude_code_at",
    "point_copilot_at",
    "point_gemini_at",
    "product_env",
    "requests_about",
    "responses_as_server",
    "run_cases",
    "run_skill",
    "seen",
    "stop",
    "without_on_path",
]

Served = TypeVar("Served", bound=ScriptedServer)


def point_claude_code_at(monkeypatch: pytest.MonkeyPatch, url: str, key: str = "dummy") -> None:
    """Claude Code talks to ``url`` with ``key``; no credential of the machine's own."""
    OFFLINE["claude-code"].point_at(monkeypatch, url, key)


def point_copilot_at(monkeypatch: pytest.MonkeyPatch, url: str, key: str = "dummy") -> None:
    """Copilot's own-model mode talks to ``url`` with ``key``; no GitHub token of the
    machine's own."""
    OFFLINE["copilot"].point_at(monkeypatch, url, key)


def point_gemini_at(monkeypatch: pytest.MonkeyPatch, url: str, key: str = "dummy") -> None:
    """Gemini CLI talks to ``url`` with ``key``; no credential of the machine's own."""
    OFFLINE["gemini-cli"].point_at(monkeypatch, url, key)


# -- the scripted servers ---------------------------------------------------------------------


def _serving(server: Served) -> Iterator[Served]:
    running = server.__enter__()
    try:
        yield running
    finally:
        stop(running)


def stop(server: ScriptedServer) -> None:
    """Close ``server``'s port now (a replay must reach no model); its fixture's end is
    then a no-op."""
    if getattr(server, "stopped", False):
        return
    server.__exit__(None, None, None)
    server.stopped = True  # type: ignore[attr-defined]


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    """The scripted Anthropic server on 127.0.0.1, for one test."""
    yield from _serving(AnthropicServer())


@pytest.fixture(name="server")
def anthropic_as_server(anthropic_server: AnthropicServer) -> AnthropicServer:
    """``server``, in a module that imports this: the scripted model Claude Code and
    Copilot talk to (``claude_env``, ``copilot_env``)."""
    return anthropic_server


@pytest.fixture(name="server")
def responses_as_server() -> Iterator[ResponsesServer]:
    """``server``, in a module that imports this: the scripted Responses API (Codex CLI)."""
    yield from _serving(ResponsesServer())


@pytest.fixture(name="server")
def gemini_as_server() -> Iterator[GeminiServer]:
    """``server``, in a module that imports this: the scripted Gemini API (Gemini CLI)."""
    yield from _serving(GeminiServer())


# -- each product pointed at its server -------------------------------------------------------


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


@pytest.fixture
def codex_env(monkeypatch: pytest.MonkeyPatch, server: ResponsesServer) -> None:
    """Codex pointed at the scripted server with a placeholder key; nothing of the machine's."""
    OFFLINE["codex"].point_at(monkeypatch, server.url)


@pytest.fixture
def gemini_env(monkeypatch: pytest.MonkeyPatch, server: GeminiServer) -> None:
    """The scripted server and a placeholder key; no credential of the machine's own."""
    point_gemini_at(monkeypatch, server.url)


@pytest.fixture
def opencode_env(monkeypatch: pytest.MonkeyPatch, server: ScriptedModelServer) -> None:
    """OpenCode pointed at the scripted server with a placeholder key."""
    OFFLINE["opencode"].point_at(monkeypatch, server.url)


def without_on_path(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """PATH without any directory that holds one of ``names`` (a replay must start none)."""
    kept = [
        entry
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if not any((Path(entry) / name).exists() for name in names)
    ]
    monkeypatch.setenv("PATH", os.pathsep.join(kept))
    assert [name for name in names if shutil.which(name) is not None] == []


# -- the sandbox ------------------------------------------------------------------------------


def needs_bwrap() -> pytest.MarkDecorator:
    """Skip unless the product sandbox's probe finds a working bwrap (CI installs one)."""
    from pytest_skill_lens.run.sandbox.product_sandbox import decide

    works = shutil.which("bwrap") is not None and decide("auto").backend == "bwrap"
    return pytest.mark.skipif(
        not works, reason="no working bwrap on this machine; .ci/run installs bubblewrap"
    )


@pytest.fixture(name="host_target")
def a_host_directory() -> Iterator[Path]:
    """A host directory outside the system temporary directory (read-only under bwrap)."""
    made = Path(tempfile.mkdtemp(prefix="skill-lens-test-target-", dir="/var/tmp"))
    yield made
    shutil.rmtree(made, ignore_errors=True)


# -- one inner run ----------------------------------------------------------------------------


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


def run_cases(
    pytester: pytest.Pytester,
    runner: str,
    cases: Sequence[Mapping[str, Any]],
    *args: str,
    **options: Any,
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """:func:`run_skill` (same options): the result and the outcomes by case name."""
    result, report = run_skill(pytester, runner, cases, *args, **options)
    return result, by_case(report)


@dataclass(frozen=True)
class ProductRun:
    """:func:`run_skill` under ``runner`` with a module's ``skill``, ``body`` and ``toml``,
    called as ``run(pytester, cases, *args)``: the result and the outcomes by case name.

    In-process unless ``subprocess``; refusals at configure time too (tests/conftest.py's
    ``pytester``).
    """

    runner: str
    body: str | None = None
    toml: str = ""
    skill: str = "greet"

    def __call__(
        self,
        pytester: pytest.Pytester,
        cases: Sequence[Mapping[str, Any]],
        *args: str,
        toml: str | None = None,
        frontmatter: str | None = None,
        subprocess: bool = False,
        skill: str | None = None,
    ) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
        return run_cases(
            pytester,
            self.runner,
            cases,
            *args,
            skill=self.skill if skill is None else skill,
            body=self.body,
            frontmatter=frontmatter,
            toml=self.toml if toml is None else toml,
            subprocess=subprocess,
        )


def by_case(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A report's outcomes by case name (none for a run that wrote no report)."""
    return {outcome["case_name"]: outcome for outcome in report.get("outcomes", [])}


def requests_about(server: ScriptedServer, phrase: str) -> list[Any]:
    """Every request of a conversation whose task holds ``phrase``, in order."""
    return [request for request in server.requests if phrase in request.task]


def seen(server: ScriptedServer, phrase: str) -> list[str]:
    """The whole text of every request whose conversation is about ``phrase``."""
    return [json.dumps(request.body) for request in requests_about(server, phrase)]
