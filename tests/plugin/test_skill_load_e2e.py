"""Did the skill really load? Every product runner, driving the REAL binary, offline.

Each product talks to its scripted server on 127.0.0.1 (anthropic_server.py for Claude
Code and Copilot, responses_server.py for Codex, gemini_server.py for Gemini CLI,
model_server.py for OpenCode), configured as its own e2e module configures it. What is
checked, in every product:

* a skill the product was given and failed to load (a SKILL.md it refused, a skill tool
  that failed) is an errored case quoting the product, never passed or failed;
* offered mode: a positive control (the model loads the skill: triggered, loaded) and a
  negative control whose expectation is scored as the model behaved;
* a loaded case the model answered without the skill is counted, in the terminal and
  the JSON, as a run without the skill.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Protocol

import anthropic_server
import gemini_server
import model_server
import pytest
import responses_server
from gemini_harness import GEMINI_TOML, point_gemini_at
from product_harness import CLAUDE_TOML, by_case, point_claude_code_at, point_copilot_at
from skillfactory import QUIET_PLUGINS, make_skill, write_file

# slow: starts the real products (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path")]

BODY = "Say GREET-INSTRUCTIONS, then hello.\n"
DESCRIBED = "name: greet\ndescription: Greets people warmly.\n"
NO_FRONTMATTER = f"# greet\n\n{BODY}"  # the name is the folder's; skill-lens only warns
Reply = Mapping[str, Any]


class Served(Protocol):
    """What a test needs of a running scripted server."""

    by_content: dict[str, list[Reply]]

    @property
    def url(self) -> str: ...


@dataclass(frozen=True)
class Product:
    """One product as this module drives it: its server, how it is pointed there, the
    table it runs with, and the model's replies that load the skill or answer."""

    name: str
    server: Callable[[], Any]  # a scripted server, run as a context manager
    point: Callable[[pytest.MonkeyPatch, str], None]
    toml: str
    load: Callable[[], Reply]  # the model's call that loads skill greet
    answer: Callable[[str], Reply]


def _point_codex(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    for name in ("CODEX_API_KEY", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)


def _point_opencode(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    monkeypatch.setenv("OPENCODE_MODEL", "scripted-model")


PRODUCTS = {
    "claude-code": Product(
        "claude-code",
        anthropic_server.AnthropicServer,
        point_claude_code_at,
        CLAUDE_TOML,
        lambda: anthropic_server.tool_use([("Skill", {"skill": "greet"})]),
        anthropic_server.text,
    ),
    "copilot": Product(
        "copilot",
        anthropic_server.AnthropicServer,
        point_copilot_at,
        "",
        lambda: anthropic_server.tool_use([("skill", {"skill": "greet"})]),
        anthropic_server.text,
    ),
    "codex": Product(
        "codex",
        responses_server.ResponsesServer,
        _point_codex,
        '[runners.codex]\nargs = ["-m", "gpt-5-mini"]\n',
        lambda: responses_server.calls(
            [("exec_command", {"cmd": "cat .agents/skills/greet/SKILL.md"})]
        ),
        responses_server.text,
    ),
    "gemini-cli": Product(
        "gemini-cli",
        gemini_server.GeminiServer,
        point_gemini_at,
        GEMINI_TOML,
        lambda: gemini_server.function_calls([("activate_skill", {"name": "greet"})]),
        gemini_server.text,
    ),
    "opencode": Product(
        "opencode",
        model_server.ScriptedModelServer,
        _point_opencode,
        "",
        lambda: model_server.tool_calls([("skill", json.dumps({"name": "greet"}))]),
        model_server.text,
    ),
}
EVERY = sorted(PRODUCTS)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Product], Served]]:
    """Starts a product's scripted server and points the product at it."""
    with ExitStack() as stack:

        def serve(product: Product) -> Served:
            server: Served = stack.enter_context(product.server())
            product.point(monkeypatch, server.url)
            return server

        yield serve


def run(
    pytester: pytest.Pytester,
    product: Product,
    cases: Sequence[Mapping[str, Any]],
    *,
    skill_md: str | None = None,
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Skill greet with ``cases`` under ``product``; ``skill_md`` replaces its SKILL.md
    as written. The result and the JSON report."""
    directory = make_skill(pytester.path / "skills", "greet", cases, body=BODY)
    if skill_md is not None:
        write_file(directory / "SKILL.md", skill_md)
    write_file(pytester.path / "skill-lens.toml", product.toml)
    result = pytester.runpytest(
        *("--skill-lens", "skills", "--skill-lens-runner", product.name),
        *("--skill-lens-json", "report.json", *QUIET_PLUGINS),
    )
    report = pytester.path / "report.json"
    return result, json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}


# -- a skill the product was given and failed to load ----------------------------------

LONG = "Greets people warmly. " * 50  # 1,100 characters: over the specification's 1,024
# product: (SKILL.md, the case's mode, whether the model asks for the skill, its words)
REFUSALS = {
    # Listed, but its Skill tool refuses what the model may not invoke.
    "claude-code": (
        f"---\n{DESCRIBED}disable-model-invocation: true\n---\n{BODY}",
        "offered",
        True,
        "cannot be used with Skill tool due to disable-model-invocation",
    ),
    # Never listed: a negative control on it would pass for nothing.
    "copilot": (
        f"---\nname: greet\ndescription: {LONG}\n---\n{BODY}",
        "offered",
        False,
        "did not list it among the skills it found",
    ),
    # Never listed; it says so only on stderr, and the $greet mention adds nothing.
    "codex": (NO_FRONTMATTER, "loaded", False, "missing YAML frontmatter delimited by ---"),
    # Never listed (skill-lens refuses an offered case of a skill with no description, so
    # these are loaded cases); the model asks for it anyway and the skill tool refuses.
    "gemini-cli": (
        NO_FRONTMATTER,
        "loaded",
        True,
        "params/name must be equal to one of the allowed values",
    ),
    "opencode": (NO_FRONTMATTER, "loaded", True, 'Skill \\"greet\\" not found'),
}


@pytest.mark.parametrize("name", EVERY)
def test_a_skill_the_product_failed_to_load_is_errored_with_its_words(
    pytester: pytest.Pytester, served: Callable[[Product], Served], name: str
) -> None:
    product = PRODUCTS[name]
    skill_md, mode, asks, words = REFUSALS[name]
    server = served(product)
    replies = [product.load()] if asks else []
    server.by_content["welcome the guest"] = [*replies, product.answer("Hello, guest.")]
    case: dict[str, Any] = {"name": "welcomes", "task": "welcome the guest", "mode": mode}
    if mode == "offered":
        # The expectation the model's behaviour would meet: a pass, were the case scored.
        case["trajectory"] = {"skill_triggered": asks}
    result, report = run(pytester, product, [case], skill_md=skill_md)
    assert result.ret == 1, result.stdout.str()
    outcome = by_case(report)["welcomes"]
    assert outcome["status"] == "errored", outcome
    assert outcome["error"].startswith(f"{name} failed to load the skill 'greet'")
    assert words in json.dumps(outcome["error"])
    assert outcome["skill_loaded"] is None and outcome["skill_triggered"] is None
    assert (report["summary"]["passed"], report["summary"]["failed"]) == (0, 0)
    assert report["summary"]["skill_not_loaded"] == 0  # errored, not a run without it


# -- offered: a positive and a negative control ----------------------------------------


@pytest.mark.parametrize("name", EVERY)
def test_offered_controls_are_scored_as_the_model_behaved(
    pytester: pytest.Pytester, served: Callable[[Product], Served], name: str
) -> None:
    product = PRODUCTS[name]
    server = served(product)
    # The model loads the skill for the guest, answers two plus two without it, and
    # loads it for the weather, which the skill is not for.
    server.by_content["welcome the guest"] = [product.load(), product.answer("Hello, guest.")]
    server.by_content["two plus two"] = [product.answer("Four.")]
    server.by_content["the weather"] = [product.load(), product.answer("Sunny.")]
    cases = [
        {
            "name": "positive",
            "task": "welcome the guest",
            "mode": "offered",
            "trajectory": {"skill_triggered": True},
        },
        {
            "name": "negative",
            "task": "what is two plus two",
            "mode": "offered",
            "trajectory": {"skill_triggered": False},
        },
        {
            "name": "negative broken",
            "task": "what is the weather",
            "mode": "offered",
            "trajectory": {"skill_triggered": False},
        },
    ]
    result, report = run(pytester, product, cases)
    assert result.ret == 1, result.stdout.str()
    outcomes = by_case(report)
    shown = {
        case: (o["status"], o["skill_triggered"], o["skill_loaded"]) for case, o in outcomes.items()
    }
    assert shown == {
        "positive": ("passed", True, True),
        "negative": ("passed", False, False),
        "negative broken": ("failed", True, True),
    }


# -- loaded: a run without the skill is counted ----------------------------------------

# Claude Code expands /greet and Codex answers the $greet mention with the skill's text
# before the model says a word; the others load it only when the model asks.
WITHOUT = {"claude-code": 0, "codex": 0, "copilot": 1, "gemini-cli": 1, "opencode": 1}


@pytest.mark.parametrize("name", EVERY)
def test_a_loaded_case_the_model_answered_without_the_skill_is_counted(
    pytester: pytest.Pytester, served: Callable[[Product], Served], name: str
) -> None:
    product = PRODUCTS[name]
    server = served(product)
    server.by_content["greet the team"] = [product.answer("Hello team.")]
    result, report = run(pytester, product, [{"name": "greets", "task": "greet the team"}])
    assert result.ret == 0, result.stdout.str()
    outcome = by_case(report)["greets"]
    assert outcome["status"] == "passed"
    assert outcome["skill_loaded"] is (WITHOUT[name] == 0)
    assert report["summary"]["skill_not_loaded"] == WITHOUT[name]
    line = f"Skill never loaded: 1 candidate run(s) under {name} (1 passed)"
    assert (line in result.stdout.str()) is (WITHOUT[name] == 1)
