"""The langchain runner end to end, where it differs from pydantic-ai or has its own rules.

Everything both framework runners must do alike is in test_framework_runners_e2e.py;
this module covers what only LangChain does (how its agent ends on arguments it cannot
parse, its reserved tool-argument names, its connection error, LangGraph's recursion
limit), the langchain runner's preflight, and running both runners in one session.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("langchain.agents")
pytest.importorskip("langchain_openai")
pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

from model_server import ScriptedModelServer, text, tool_calls
from runner_e2e import case, checks, run, tools_block
from runs import LensRun, served_by
from skillfactory import make_skill, write_file

# slow: a real LangChain agent against a local server (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("openai_key")]

under_langchain = LensRun(runner="langchain")


# --- what the model sent, as LangChain hands it over -----------------------------------------


def test_arguments_that_are_not_json_are_kept_raw_and_the_agent_stops_there(
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

    result, outcomes = run(pytester, server, cases, script, runners=["langchain"])

    assert result.ret == 1
    outcome = outcomes["sends broken arguments"]
    assert outcome["status"] == "failed"
    assert outcome["tool_calls"] == [
        {"name": "lookup_order", "arguments": {"_raw": '{"order_id": 1'}}
    ]
    passed, evidence = checks(outcome, "trajectory")["call_args[0]"]
    assert not passed
    assert "_raw" in evidence
    # A turn whose only call LangChain cannot parse has no call to run: its agent ends.
    assert len(server.requests) == 1
    assert outcome["output"] == ""


def test_a_broken_call_beside_a_good_one_is_answered_by_langchain_and_the_run_goes_on(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [case("one good, one broken", "mixed", tools=tools_block()[:1])]
    script = {
        "mixed": [
            tool_calls([("lookup_order", '{"order_id": "1234"}'), ("lookup_order", "{oops")]),
            text("done"),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=["langchain"])

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["one good, one broken"]
    assert outcome["tool_calls"] == [
        {"name": "lookup_order", "arguments": {"order_id": "1234"}},
        {"name": "lookup_order", "arguments": {"_raw": "{oops"}},
    ]
    replies = dict((m["tool_call_id"], m["content"]) for m in server.requests[1].messages("tool"))
    assert replies["call_0"] == '{"id": "1234", "days_since_delivery": 45}'
    assert "arguments were malformed" in replies["call_1"]  # LangChain's own reply


def test_argument_names_langchain_reserves_reach_the_mock_as_sent(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    tools = [
        {
            "name": "deploy",
            "description": "deploy a service",
            "parameters": {"config": "string", "run_manager": "string", "callbacks": "string"},
            "returns": [{"when": {"config": "prod.yaml"}, "value": "deployed with prod.yaml"}],
        }
    ]
    cases = [
        case(
            "deploys",
            "deploy it",
            tools=tools,
            trajectory={"call_args": [{"tool": "deploy", "equals": {"config": "prod.yaml"}}]},
        )
    ]
    arguments = {"config": "prod.yaml", "run_manager": "me", "callbacks": "none"}
    script = {"deploy it": [tool_calls([("deploy", json.dumps(arguments))]), text("ok")]}

    result, outcomes = run(pytester, server, cases, script, runners=["langchain"])

    assert result.ret == 1  # equals compares the whole arguments, which carry three keys
    outcome = outcomes["deploys"]
    assert outcome["error"] is None
    assert outcome["tool_calls"] == [{"name": "deploy", "arguments": arguments}]
    (reply,) = server.requests[1].messages("tool")
    assert reply["content"] == "deployed with prod.yaml"


# create_agent compiles its graph with a recursion limit of 9,999 steps (about 5,000 model
# requests, each resending the whole history): far too many to reach in a test. This
# conftest lowers it, so the loop meets the limit after a few requests, as it would later.
LOW_RECURSION_LIMIT = """
from pytest_skill_lens.run.runners import langchain_agent

_create_agent = langchain_agent.create_agent


def _with_a_low_limit(*args, **kwargs):
    return _create_agent(*args, **kwargs).with_config({"recursion_limit": 9})


langchain_agent.create_agent = _with_a_low_limit


def pytest_unconfigure(config):
    # An in-process run: the test process keeps this module loaded for later runs.
    langchain_agent.create_agent = _create_agent
"""


def test_without_max_tokens_a_never_ending_loop_ends_at_the_recursion_limit_errored(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    pytester.makeconftest(LOW_RECURSION_LIMIT)
    tools = [{"name": "check", "description": "check again", "returns": "not yet"}]
    cases = [case("loops with no limit", "loop", tools=tools)]
    script = {"loop": [tool_calls([("check", "{}")])]}  # repeats for ever

    # In-process: the conftest puts the runner's module back as it found it when the run
    # ends (this process keeps the module loaded for later runs, tests/kept_imports.py).
    result, outcomes = run(pytester, server, cases, script, runners=["langchain"])

    # No declared limit explains the stop: an error, not a failure, and never retried.
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["loops with no limit"]
    assert outcome["status"] == "errored" and outcome["stop_note"] is None
    assert outcome["error"].startswith("GraphRecursionError: Recursion limit of 9 reached")
    # Every request belongs to the one attempt, and each one called the tool.
    assert len(server.requests) == len(outcome["tool_calls"]) > 1
    assert outcome["retry_cost_usd"] == 0


def test_an_unreachable_endpoint_is_an_errored_case_not_a_crash(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "order-support", [case("c", "t")])
    write_file(pytester.path / "skill-lens.toml", "retries = 1\nretry_backoff_seconds = 0.0\n")

    result = under_langchain(pytester, "--skill-lens-base-url", "http://127.0.0.1:9/v1")

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*error: OpenAIConnectionError: Connection error.*"])


# --- both frameworks in one session ---------------------------------------------------------


def test_both_runners_in_one_session_give_one_outcome_each(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [
        case(
            "checks the order first",
            "I want a refund for order 1234",
            tools=tools_block()[:1],
            trajectory={"called": ["lookup_order"]},
            assertions=[{"kind": "contains", "value": "outside the return window"}],
        )
    ]
    script = {
        "I want a refund for order 1234": [
            tool_calls([("lookup_order", '{"order_id": "1234"}')]),
            text("Order 1234 is outside the return window."),
        ]
        * 2  # a list per task: each runner's conversation takes the next two replies
    }

    result, outcomes = run(
        pytester, server, cases, script, "-v", runners=["pydantic-ai", "langchain"]
    )

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*SKILL.md::checks the order first?pydantic-ai? PASSED*",
            "*SKILL.md::checks the order first?langchain? PASSED*",
        ]
    )
    assert set(outcomes) == {
        "checks the order first (pydantic-ai)",
        "checks the order first (langchain)",
    }
    for runner in ("pydantic-ai", "langchain"):
        outcome = outcomes[f"checks the order first ({runner})"]
        assert outcome["status"] == "passed"
        assert outcome["runner"] == runner
        assert outcome["nodeid"].endswith(f"[{runner}]")
        assert outcome["tool_calls"] == [
            {"name": "lookup_order", "arguments": {"order_id": "1234"}}
        ]
        assert outcome["tokens"] == 30
    assert len(server.requests) == 4
    # Both frameworks opened their conversations with the same bytes.
    openings = [r for r in server.requests if len(r.body["messages"]) == 2]
    assert len(openings) == 2
    assert openings[0].body["messages"] == openings[1].body["messages"]
    assert json.dumps(openings[0].body["tools"]) == json.dumps(openings[1].body["tools"])


def test_both_runners_are_listed_by_collect_only(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "order-support", [case("c", "t")])

    result = LensRun(runner=("pydantic-ai", "langchain"))(pytester, "--collect-only", "-q")

    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "skills/order-support/SKILL.md::c[pydantic-ai]",
            "skills/order-support/SKILL.md::c[langchain]",
        ]
    )


# --- preflight: before any item runs ------------------------------------------------------------

# A run stopped by pytest.exit in pytest_configure needs a real pytest process (an
# in-process pytester run reports an internal error instead), as in test_config.py.


def _one_case(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "order-support", [case("c", "t")])


@pytest.mark.parametrize(
    ("model", "variable"),
    [("openai:gpt-4o-mini", "OPENAI_API_KEY"), ("anthropic:claude-haiku-4-5", "ANTHROPIC_API_KEY")],
)
def test_a_missing_api_key_stops_the_run_before_any_request(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    variable: str,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    _one_case(pytester)

    result = under_langchain(pytester, *served_by(server.url, model))

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            f"*the runner 'langchain' needs {variable} for the model '{model}'*",
            f"*fix: export {variable}=...*",
        ]
    )
    assert server.requests == []


@pytest.mark.parametrize(
    ("model", "said"),
    [
        ("gpt-4o-mini", "is not of the form provider:name"),
        ("openai:", "is not of the form provider:name"),
        ("   ", "is not of the form provider:name"),
        (
            "groq:llama-3.3-70b",
            "the langchain runner serves openai: and anthropic: models, not groq:",
        ),
        ("ollama:llama3.2", "reached as openai:<name> with base_url"),
    ],
)
def test_a_model_the_runner_cannot_serve_is_exit_2(
    pytester: pytest.Pytester, server: ScriptedModelServer, model: str, said: str
) -> None:
    _one_case(pytester)

    result = under_langchain(pytester, *served_by(server.url, model))

    assert result.ret == 2
    result.stderr.fnmatch_lines([f"*{said}*"])
    assert server.requests == []


def test_a_base_url_that_cannot_be_an_endpoint_is_exit_2(pytester: pytest.Pytester) -> None:
    _one_case(pytester)

    result = under_langchain(
        pytester, "--skill-lens-base-url", "https://user:s3cr3t@models.example/v1"
    )

    assert result.ret == 2
    result.stderr.fnmatch_lines(["*base_url cannot be used: it carries credentials*"])
    assert "s3cr3t" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("blocked", ["langchain", "langchain_openai"])
def test_without_the_extra_the_runner_is_exit_2_naming_the_install(
    pytester: pytest.Pytester, blocked: str
) -> None:
    _one_case(pytester)
    pytester.makeconftest(f"import sys\n\nsys.modules[{blocked!r}] = None  # not installed\n")

    result = LensRun(runner="langchain", subprocess=True)(pytester)

    assert result.ret == 2
    assert (
        "skill-lens: the runner 'langchain' needs the langchain extra, which is not "
        f"installed (no module named {blocked!r}); install it: "
        'pip install "pytest-skill-lens[langchain]"'
    ) in result.stderr.str()  # refused before collection


MODULES_CONFTEST = """
import json
import sys
from pathlib import Path


def pytest_sessionfinish(session):
    (Path(__file__).parent / "modules.json").write_text(json.dumps(sorted(sys.modules)))
"""


def test_collect_only_under_langchain_imports_no_framework(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")  # listing spends nothing, so needs no key
    _one_case(pytester)
    pytester.makeconftest(MODULES_CONFTEST)

    result = LensRun(runner="langchain", subprocess=True)(pytester, "--collect-only", "-q")

    assert result.ret == 0
    result.stdout.fnmatch_lines(["skills/order-support/SKILL.md::c[langchain]"])
    modules = set(json.loads((pytester.path / "modules.json").read_text()))
    assert "pytest_skill_lens.run.runners.langchain" in modules  # the check really ran
    heavy = ("langchain", "langchain_core", "langgraph", "langchain_openai", "openai")
    for name in (*heavy, "anthropic", "genai_prices"):
        assert name not in modules, f"{name} imported by --collect-only"


def test_an_undeclared_trajectory_name_is_exit_2_before_any_request(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [case("typo", "t", tools=tools_block()[:1], trajectory={"called": ["lookup_ordr"]})]

    result, _ = run(pytester, server, cases, {"t": [text("never")]}, runners=["langchain"])

    assert result.ret == 2
    result.stdout.fnmatch_lines(
        ["*the trajectory names 'lookup_ordr'*runner 'langchain' can never see such a call*"]
    )
    assert server.requests == []
