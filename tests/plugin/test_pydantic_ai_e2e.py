"""The pydantic-ai runner end to end, where it differs from langchain or has its own rules.

Each test runs pytest the way a user does (``--skill-lens-runner pydantic-ai
--skill-lens-base-url ... --skill-lens-model openai:gpt-4o-mini``) with a real
PydanticAI agent against a scripted Chat Completions server on 127.0.0.1. What both
framework runners must do alike (the wire, every mock shape, retries, budgets, the
workspace) is tested once for both in test_framework_runners_e2e.py; this module keeps
how pydantic-ai answers unreadable arguments, its connection error, and its preflight.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

# Speed only: an in-process pytester run drops the modules first imported inside it, so
# each inner run would import pydantic-ai again (about 3 s). Imported once here, they stay.
pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

import runner_e2e
from model_server import ScriptedModelServer, text, tool_calls
from runner_e2e import case, checks, tools_block
from runs import LensRun, served_by
from skillfactory import make_skill, write_file

# slow: a real PydanticAI agent against a local server (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("openai_key")]

under_pydantic_ai = LensRun(runner="pydantic-ai")


def run(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    cases: Sequence[Mapping[str, Any]],
    script: Mapping[str, Sequence[Mapping[str, Any]]],
    *args: str,
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """Run skill ``order-support`` under pydantic-ai against ``server``; outcomes by case."""
    return runner_e2e.run(pytester, server, cases, script, *args, runners=["pydantic-ai"])


# --- what the model sent, as pydantic-ai hands it over ----------------------------------------


def test_arguments_that_are_not_json_are_kept_raw_and_fail_call_args(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [
        case(
            "sends broken arguments",
            "broken",
            tools=tools_block()[:1],
            trajectory={"call_args": [{"tool": "lookup_order", "contains": {"order_id": "1"}}]},
        )
    ]
    script = {"broken": [tool_calls([("lookup_order", '{"order_id": 1')]), text("sorry")]}

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 1
    outcome = outcomes["sends broken arguments"]
    assert outcome["status"] == "failed"
    assert outcome["tool_calls"] == [
        {"name": "lookup_order", "arguments": {"_raw": '{"order_id": 1'}}
    ]
    passed, evidence = checks(outcome, "trajectory")["call_args[0]"]
    assert not passed
    assert "_raw" in evidence
    # The framework told the model the call could not be read; the mock never answered it.
    (reply,) = server.requests[-1].messages("tool")
    assert "Invalid JSON" in reply["content"]


# --- a tool loop with no max_tokens -------------------------------------------------------------


def test_without_max_tokens_a_never_ending_loop_stops_at_50_requests_and_is_errored(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    tools = [{"name": "check", "description": "check again", "returns": "not yet"}]
    cases = [case("loops with no limit", "loop", tools=tools)]
    script = {"loop": [tool_calls([("check", "{}")])]}  # repeats for ever

    result, outcomes = run(pytester, server, cases, script)

    # pydantic-ai's own request limit is left as it is; no declared limit explains the
    # stop, so it is an error, not a failure, and never retried.
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert len(server.requests) == 50
    outcome = outcomes["loops with no limit"]
    assert outcome["status"] == "errored" and outcome["stop_note"] is None
    assert outcome["error"].startswith("UsageLimitExceeded: ")
    assert "request_limit of 50" in outcome["error"]
    assert len(outcome["tool_calls"]) == 50
    assert outcome["retry_cost_usd"] == 0


# --- provider failures -------------------------------------------------------------------------


def test_an_unreachable_endpoint_is_an_errored_case_not_a_crash(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    make_skill(pytester.path / "skills", "order-support", [case("c", "t")])
    write_file(pytester.path / "skill-lens.toml", "retries = 1\nretry_backoff_seconds = 0.0\n")

    result = under_pydantic_ai(pytester, "--skill-lens-base-url", "http://127.0.0.1:9/v1")

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ModelConnectionError: *"])


# --- preflight: before any item runs ------------------------------------------------------------


# A run stopped by pytest.exit in pytest_configure needs a real pytest process (an
# in-process pytester run reports an internal error instead), as in test_config.py.


def _one_case(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "order-support", [case("c", "t")])


def test_a_missing_api_key_stops_the_run_before_any_request(
    pytester: pytest.Pytester, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    _one_case(pytester)

    result = under_pydantic_ai(pytester, "--skill-lens-base-url", server.url)

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "*the runner 'pydantic-ai' needs OPENAI_API_KEY for the model 'openai:gpt-4o-mini'*",
            "*fix: export OPENAI_API_KEY=...*",
        ]
    )
    assert server.requests == []


def test_collect_only_needs_no_api_key(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    _one_case(pytester)

    result = replace(under_pydantic_ai, quiet=False)(pytester, "--collect-only", "-q")

    assert result.ret == 0
    result.stdout.fnmatch_lines(["skills/order-support/SKILL.md::c[pydantic-ai]"])


MODULES_CONFTEST = """
import json
import sys
from pathlib import Path


def pytest_sessionfinish(session):
    (Path(__file__).parent / "modules.json").write_text(json.dumps(sorted(sys.modules)))
"""


def test_collect_only_under_pydantic_ai_imports_no_framework(pytester: pytest.Pytester) -> None:
    _one_case(pytester)
    pytester.makeconftest(MODULES_CONFTEST)

    in_a_child = replace(under_pydantic_ai, subprocess=True, quiet=False)
    result = in_a_child(pytester, "--collect-only", "-q")

    assert result.ret == 0
    modules = set(json.loads((pytester.path / "modules.json").read_text()))
    assert "pytest_skill_lens.run.runners.pydantic_ai" in modules  # the check really ran
    for heavy in ("pydantic_ai", "genai_prices", "openai", "anthropic"):
        assert heavy not in modules, f"{heavy} imported by --collect-only"


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("ftp://models.example/v1", "it must start with http:// or https://"),
        ("localhost:8000/v1", "it must start with http:// or https://"),
        ("http:///v1", "it has no host"),
        ("https://user:s3cr3t@models.example/v1", "it carries credentials"),
    ],
)
def test_a_base_url_that_cannot_be_an_endpoint_is_exit_2(
    pytester: pytest.Pytester, url: str, said: str
) -> None:
    _one_case(pytester)

    result = under_pydantic_ai(pytester, "--skill-lens-base-url", url)

    assert result.ret == 2
    result.stderr.fnmatch_lines([f"*base_url cannot be used: {said}*"])
    assert "s3cr3t" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize(
    ("model", "said"),
    [
        ("gpt-4o-mini", "is not of the form provider:name"),
        ("openai:", "is not of the form provider:name"),
        ("   ", "is not of the form provider:name"),
        ("groq:llama-3.3-70b", "pydantic-ai cannot send groq: models to base_url"),
    ],
)
def test_a_model_the_runner_cannot_serve_is_exit_2(
    pytester: pytest.Pytester, server: ScriptedModelServer, model: str, said: str
) -> None:
    _one_case(pytester)

    result = under_pydantic_ai(pytester, *served_by(server.url, model))

    assert result.ret == 2
    result.stderr.fnmatch_lines([f"*{said}*"])
    assert server.requests == []


BLOCK_PYDANTIC_AI = """
import sys

sys.modules["pydantic_ai"] = None  # as if the extra were not installed
"""


def test_without_the_extra_the_runner_is_exit_2_naming_the_install(
    pytester: pytest.Pytester,
) -> None:
    _one_case(pytester)
    pytester.makeconftest(BLOCK_PYDANTIC_AI)

    result = replace(under_pydantic_ai, subprocess=True)(pytester)

    assert result.ret == 2
    assert (
        "skill-lens: the runner 'pydantic-ai' needs the pydantic-ai extra, which is not "
        "installed (no module named 'pydantic_ai'); install it: "
        'pip install "pytest-skill-lens[pydantic-ai]"'
    ) in result.stderr.str()  # refused before collection


def test_an_undeclared_trajectory_name_is_exit_2_before_any_request(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [case("typo", "t", tools=tools_block()[:1], trajectory={"called": ["lookup_ordr"]})]

    result, _ = run(pytester, server, cases, {"t": [text("never")]})

    assert result.ret == 2
    result.stdout.fnmatch_lines(
        ["*the trajectory names 'lookup_ordr'*runner 'pydantic-ai' can never see such a call*"]
    )
    assert server.requests == []
