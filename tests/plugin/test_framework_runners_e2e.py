"""Both framework runners, one measurement: every test here runs under pydantic-ai and langchain.

Each test runs pytest as a user does (``--skill-lens-runner <runner> --skill-lens-base-url
... --skill-lens-model openai:gpt-4o-mini``) with a real agent of that framework against
the scripted Chat Completions server on 127.0.0.1, and asserts the same outcomes, checks,
evidence and wire traffic for both: the system prompt, the tool schemas key for key as
declared, the tool results each mock shape returns. What differs between the frameworks
is tested in test_pydantic_ai_e2e.py and test_langchain_e2e.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

# Speed only: an in-process pytester run drops the modules first imported inside it, so
# each inner run would import the frameworks again. Imported once here, they stay.
pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("langchain.agents")
pytest.importorskip("langchain_openai")
pytest.importorskip("genai_prices")

from model_server import MODEL, ScriptedModelServer, dropped, failure, garbled, text, tool_calls
from runner_e2e import (
    LOOKUP_SCHEMA,
    ORDER,
    PULL_REQUEST_SCHEMA,
    RUNNERS,
    SYSTEM_PROMPT,
    case,
    checks,
    ordered,
    price,
    run,
    tools_block,
)
from runs import LensRun, Report, served_by
from skillfactory import make_skill, write_file

# slow: real agent frameworks against local servers (-m "not slow" skips it)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.parametrize("runner", RUNNERS),
    pytest.mark.usefixtures("openai_key"),
]


def function(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


# --- a run that goes well: what was sent, what was recorded ------------------------------------


def test_a_tool_using_case_passes_and_the_server_saw_prompt_tools_and_results(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        case(
            "checks the order first",
            "I want a refund for order 1234",
            tools=tools_block(),
            trajectory={
                "called": ["lookup_order"],
                "forbidden": ["issue_refund"],
                "call_args": [{"tool": "lookup_order", "equals": {"order_id": "1234"}}],
            },
            assertions=[{"kind": "contains", "value": "outside the return window"}],
            budget={"max_tokens": 1000, "max_cost_usd": 0.01},
        )
    ]
    script = {
        "I want a refund for order 1234": [
            tool_calls([("lookup_order", '{"order_id": "1234"}')], usage=(100, 20)),
            text("Order 1234 is outside the return window.", usage=(150, 30)),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)
    outcome = outcomes["checks the order first"]
    assert outcome["status"] == "passed"
    assert outcome["runner"] == runner
    assert outcome["output"] == "Order 1234 is outside the return window."
    assert outcome["tool_calls"] == [{"name": "lookup_order", "arguments": {"order_id": "1234"}}]
    assert (outcome["input_tokens"], outcome["output_tokens"], outcome["tokens"]) == (250, 50, 300)
    assert outcome["model"] == MODEL
    assert outcome["cost_usd"] == pytest.approx(price(MODEL, 100, 20) + price(MODEL, 150, 30))
    assert outcome["cost_usd"] > 0
    assert outcome["cost_note"] is None and outcome["usage_note"] is None
    assert outcome["stop_note"] is None and outcome["retry_cost_usd"] == 0
    assert outcome["latency_ms"] > 0
    assert checks(outcome, "budget")["max_tokens"] == (True, "used 300 tokens, limit is 1000")

    first, second = server.requests
    assert first.path == "/v1/chat/completions"  # Chat Completions, never the Responses API
    assert first.headers["authorization"] == "Bearer test"
    assert first.body["model"] == "gpt-4o-mini"
    assert first.body["temperature"] == 0.0
    assert first.body.get("stream") in (None, False)  # one JSON answer, usage in it
    assert first.body["messages"] == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "I want a refund for order 1234"},
    ]
    # Every schema exactly as declared, key for key and in the declared order: the
    # shorthand closed, input_schema verbatim (its title, $defs and default included),
    # and no strict flag the author did not ask for.
    assert ordered(first.body["tools"]) == ordered(
        [
            function("lookup_order", "Look up an order by its id", LOOKUP_SCHEMA),
            function("issue_refund", "Issue a refund for an order", LOOKUP_SCHEMA),
            function(
                "get-pull-request", "Get details of a specific pull request", PULL_REQUEST_SCHEMA
            ),
        ]
    )
    assert second.messages("tool") == [{"role": "tool", "tool_call_id": "call_0", "content": ORDER}]


def test_every_returns_shape_answers_through_the_agent(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    tools = [
        {"name": "fixed", "description": "one answer", "returns": "always this"},
        {
            "name": "get_work_item",
            "description": "a sequence",
            "parameters": {"id": "string"},
            "returns": ['{"id": "A", "parent": "B"}', '{"id": "B", "parent": null}'],
        },
        {
            "name": "find",
            "description": "a lookup without a fallback",
            "parameters": {"id": "string"},
            "returns": [{"when": {"id": "A"}, "value": "found A"}],
        },
        {
            "name": "find_or_default",
            "description": "a lookup with a fallback",
            "parameters": {"id": "string"},
            "returns": [{"when": {"id": "A"}, "value": "found A"}, {"value": "fallback"}],
        },
    ]
    cases = [case("walks the chain", "walk", tools=tools, trajectory={"max_calls": 10})]
    script = {
        "walk": [
            tool_calls([("get_work_item", '{"id": "A"}')]),
            tool_calls([("get_work_item", '{"id": "B"}')]),
            tool_calls([("get_work_item", '{"id": "B"}')]),
            tool_calls(
                [
                    ("fixed", "{}"),
                    ("find", '{"id": "A"}'),
                    ("find", '{"id": "C"}'),
                    ("find_or_default", '{"id": "Z"}'),
                ]
            ),
            text("done"),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    replies = [(m["tool_call_id"], m["content"]) for m in server.requests[-1].messages("tool")]
    assert replies == [
        ("call_0", '{"id": "A", "parent": "B"}'),
        ("call_1", '{"id": "B", "parent": null}'),
        ("call_2", '{"id": "B", "parent": null}'),  # the last entry repeats
        ("call_3", "always this"),
        ("call_4", "found A"),
        ("call_5", 'no response is scripted for find with arguments {"id": "C"}'),
        ("call_6", "fallback"),
    ]
    assert [c["name"] for c in outcomes["walks the chain"]["tool_calls"]] == [
        "get_work_item",
        "get_work_item",
        "get_work_item",
        "fixed",
        "find",
        "find",
        "find_or_default",
    ]


def test_parallel_calls_in_one_turn_each_take_their_own_sequence_entry(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    tools = [
        {
            "name": "next_ticket",
            "description": "hand out the next ticket",
            "returns": ["ticket 1", "ticket 2", "ticket 3"],
        }
    ]
    cases = [case("takes three at once", "three", tools=tools)]
    script = {
        "three": [
            tool_calls([("next_ticket", "{}"), ("next_ticket", "{}"), ("next_ticket", "{}")]),
            text("got them"),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    # The framework may run the calls concurrently: which call gets which entry is not
    # fixed, but no entry is handed out twice.
    replies = sorted(m["content"] for m in server.requests[-1].messages("tool"))
    assert replies == ["ticket 1", "ticket 2", "ticket 3"]
    assert len(outcomes["takes three at once"]["tool_calls"]) == 3


def test_several_cases_in_one_run_and_under_xdist(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        case(f"case {i}", f"task {i}", assertions=[{"kind": "contains", "value": f"answer {i}"}])
        for i in range(4)
    ]
    script = {f"task {i}": [text(f"answer {i}")] for i in range(4)}

    result, outcomes = run(
        pytester, server, cases, script, "-n", "2", runners=[runner], subprocess=True
    )

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=4)
    assert sorted(r.task for r in server.requests) == [f"task {i}" for i in range(4)]
    assert {o["status"] for o in outcomes.values()} == {"passed"}


# --- retries ---------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 429])
def test_a_transient_failure_is_retried_as_a_fresh_conversation(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str, status: int
) -> None:
    tools = [{"name": "poll", "description": "poll a job", "returns": ["running", "done"]}]
    cases = [case("polls", "poll it", tools=tools, trajectory={"called": ["poll"]})]
    script = {
        "poll it": [
            tool_calls([("poll", "{}")], usage=(100, 20)),
            failure(status),
            tool_calls([("poll", "{}")], usage=(100, 20)),
            text("finished", usage=(120, 10)),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["polls"]
    assert outcome["status"] == "passed"
    assert len(server.requests) == 4
    # The retry started over: same opening messages, and the sequence from its first entry.
    assert server.requests[2].body["messages"] == server.requests[0].body["messages"]
    assert server.requests[3].messages("tool")[0]["content"] == "running"
    # Figures are the last attempt's; the discarded one's cost is reported apart.
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (220, 30)
    assert outcome["tool_calls"] == [{"name": "poll", "arguments": {}}]
    assert outcome["retry_cost_usd"] == pytest.approx(price(MODEL, 100, 20))
    # The discarded attempt was paid for: the run's total counts it, the budget does not.
    summary = Report.read(pytester.path / "report.json").summary
    assert summary["total_cost_usd"] == pytest.approx(
        outcome["cost_usd"] + outcome["retry_cost_usd"]
    )
    assert summary["total_tokens"] == 250


@pytest.mark.parametrize("retries", [0, 1])
def test_a_dropped_connection_is_retried_as_a_fresh_conversation(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str, retries: int
) -> None:
    cases = [case("hung up on", "hang up", assertions=[{"kind": "contains", "value": "back"}])]
    script = {"hang up": [dropped(), text("back again", usage=(10, 5))]}
    toml = f"retries = {retries}\nretry_backoff_seconds = 0.0\n"

    result, outcomes = run(pytester, server, cases, script, runners=[runner], toml=toml)

    outcome = outcomes["hung up on"]
    # Ours are the only retries (the SDK's are switched off): none, one request.
    assert len(server.requests) == 1 + retries
    if not retries:
        assert result.ret == 1
        assert outcome["status"] == "errored"
        kind = {"pydantic-ai": "ModelConnectionError", "langchain": "OpenAIConnectionError"}
        # The endpoint that failed, and how often it was tried.
        assert outcome["error"] == (
            f"{kind[runner]}: Connection error. [endpoint {server.url} (base_url); "
            "1 attempt (retries = 0)]"
        )
        return
    assert result.ret == 0, result.stdout.str()
    assert outcome["status"] == "passed" and outcome["error"] is None
    assert server.requests[1].body["messages"] == server.requests[0].body["messages"]
    # Nothing answered the first attempt, so it cost nothing.
    assert outcome["retry_cost_usd"] == 0
    assert outcome["tokens"] == 15


def test_retries_run_out_and_the_case_is_errored(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [case("never answers", "down")]
    script = {"down": [failure(503, "overloaded")]}

    result, outcomes = run(
        pytester,
        server,
        cases,
        script,
        runners=[runner],
        toml="retries = 2\nretry_backoff_seconds = 0.0\n",
    )

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert len(server.requests) == 3  # 1 + retries
    outcome = outcomes["never answers"]
    assert outcome["status"] == "errored"
    assert "503" in outcome["error"] and "overloaded" in outcome["error"]
    assert outcome["error"].split(":")[0].isidentifier()  # "<ExcType>: <message>"
    # Nothing arrived, so nothing was spent, and a 0 that was never measured has no note.
    assert outcome["tokens"] == 0 and outcome["cost_usd"] == 0 and outcome["retry_cost_usd"] == 0
    assert outcome["cost_note"] is None
    result.stdout.fnmatch_lines(["*503*overloaded*"])


def test_a_failure_after_answers_keeps_what_the_attempt_spent(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    tools = [{"name": "check", "description": "check", "returns": "ok"}]
    cases = [case("fails late", "late", tools=tools)]
    script = {"late": [tool_calls([("check", "{}")], usage=(100, 20)), failure(400, "too long")]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 1
    outcome = outcomes["fails late"]
    assert outcome["status"] == "errored" and "400" in outcome["error"]
    assert len(server.requests) == 2  # a 400 is not retried
    assert outcome["tokens"] == 120
    assert outcome["cost_usd"] == pytest.approx(price(MODEL, 100, 20))


def test_a_refusal_is_not_retried(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [case("bad key", "auth")]
    script = {"auth": [failure(401, "invalid api key"), text("never reached")]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 1
    assert len(server.requests) == 1
    assert outcomes["bad key"]["status"] == "errored"
    assert "401" in outcomes["bad key"]["error"]


def test_a_reply_that_is_not_json_is_errored_at_once_never_a_crash(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [case("garbled", "garble")]
    script = {"garble": [garbled(), text("never reached")]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    # Not a busy provider but a broken answer: no retry, under either framework.
    assert len(server.requests) == 1
    said = {
        "pydantic-ai": "ModelAPIError: Failed to decode response as JSON: Expecting value: "
        "line 1 column 1 (char 0)",
        "langchain": "JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    }
    tried = f" [endpoint {server.url} (base_url); 1 attempt (retries = 2)]"
    assert outcomes["garbled"]["error"] == said[runner] + tried


# --- budgets: the runaway stop, unmeasured usage and prices ------------------------------------


def test_a_runaway_tool_loop_stops_at_max_tokens_and_fails_not_errors(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    tools = [{"name": "check", "description": "check again", "returns": "not yet"}]
    cases = [
        case(
            "loops forever",
            "loop",
            tools=tools,
            budget={"max_tokens": 120},
            assertions=[{"kind": "contains", "value": "done"}],
        )
    ]
    script = {"loop": [tool_calls([("check", "{}")], usage=(40, 10))]}  # repeats for ever

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 1
    result.assert_outcomes(failed=1)
    assert len(server.requests) == 3  # 50, 100, then 150 > 120: no fourth request
    outcome = outcomes["loops forever"]
    assert outcome["status"] == "failed" and outcome["error"] is None
    note = f"{runner} stopped the run before the agent finished, at the case's max_tokens"
    assert outcome["stop_note"] == note
    assert outcome["tokens"] == 150
    assert len(outcome["tool_calls"]) == 3
    assert checks(outcome, "budget")["max_tokens"] == (
        False,
        f"used 150 tokens, limit is 120; {note}",
    )
    # Scored as far as it got: the other evaluators read the stopped run too.
    assert checks(outcome, "assertion")["contains[0]"][0] is False
    result.stdout.fnmatch_lines([f"*used 150 tokens, limit is 120; {runner} stopped the run*"])


def test_the_token_limit_applies_to_each_attempt_on_its_own(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    tools = [{"name": "check", "description": "check", "returns": "ok"}]
    cases = [case("retried under a limit", "retry me", tools=tools, budget={"max_tokens": 100})]
    script = {
        "retry me": [
            tool_calls([("check", "{}")], usage=(40, 20)),  # attempt 1: 60 tokens, then a 503
            failure(503),
            tool_calls([("check", "{}")], usage=(40, 20)),  # attempt 2: 60 + 30 = 90
            text("ok", usage=(20, 10)),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    # 150 tokens were spent over both attempts, but each stayed under 100: no stop.
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["retried under a limit"]
    assert outcome["status"] == "passed" and outcome["stop_note"] is None
    assert outcome["tokens"] == 90
    assert outcome["retry_cost_usd"] == pytest.approx(price(MODEL, 40, 20))
    assert checks(outcome, "budget")["max_tokens"] == (True, "used 90 tokens, limit is 100")
    assert len(server.requests) == 4


def test_a_run_at_its_token_limit_is_not_stopped(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    tools = [{"name": "check", "description": "check", "returns": "ok"}]
    cases = [case("exactly at the limit", "edge", tools=tools, budget={"max_tokens": 100})]
    script = {"edge": [tool_calls([("check", "{}")], usage=(40, 10)), text("ok", usage=(40, 10))]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    assert outcomes["exactly at the limit"]["stop_note"] is None
    assert outcomes["exactly at the limit"]["tokens"] == 100


def test_a_response_without_usage_is_not_a_measurement(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [case("no usage", "quiet", budget={"max_tokens": 1000, "max_cost_usd": 1.0})]
    script = {"quiet": [text("hello", usage=None)]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 1
    outcome = outcomes["no usage"]
    assert outcome["status"] == "failed"
    note = f"{runner} received no token usage from the provider"
    assert outcome["usage_note"] == note and outcome["cost_note"] == note
    assert checks(outcome, "budget") == {
        "max_tokens": (False, f"token budget not evaluated: {note}"),
        "max_cost_usd": (False, f"cost budget not evaluated: {note}"),
    }


def test_cached_input_tokens_are_priced_as_cache_reads(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [case("cached", "cached prompt")]
    script = {"cached prompt": [text("hi", usage=(1000, 10), cached=800)]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["cached"]
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (1000, 10)
    cached = price(MODEL, 1000, 10, cache_read_tokens=800)
    assert outcome["cost_usd"] == pytest.approx(cached)
    assert cached < price(MODEL, 1000, 10)  # the cache discount really applied


def test_a_model_genai_prices_does_not_know_costs_zero_with_a_note(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [case("local model", "local", budget={"max_tokens": 1000, "max_cost_usd": 1.0})]
    script = {"local": [text("hi", model="my-local-llama")]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 1
    outcome = outcomes["local model"]
    assert outcome["model"] == "my-local-llama"
    assert outcome["cost_usd"] == 0.0
    assert (
        outcome["cost_note"]
        == "genai-prices has no price for model 'my-local-llama' from provider 'openai'"
    )
    assert checks(outcome, "budget")["max_tokens"] == (True, "used 15 tokens, limit is 1000")
    assert checks(outcome, "budget")["max_cost_usd"] == (
        False,
        "cost budget not evaluated: genai-prices has no price for model 'my-local-llama' "
        "from provider 'openai'",
    )
    result.stdout.fnmatch_lines(["*Total cost: not priced*"])


# --- the workspace: preamble, built-in tools, sessions -------------------------------------------

WORKSPACE_TOOLS = [
    function(
        "list_files",
        "List every file in the working directory, one relative path per line",
        {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
    ),
    function(
        "read_file",
        "Read a text file. `path` is relative to the working directory",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
    function(
        "write_file",
        "Create or replace a text file. `path` is relative to the working "
        "directory; `content` is the whole text of the file",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
            "additionalProperties": False,
        },
    ),
]


def test_a_workspace_case_writes_a_file_the_assertion_reads(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    from pytest_skill_lens.run.models.prompt import workspace_preamble

    cases = [
        case(
            "writes the report",
            "write the report",
            tools=tools_block()[:1],
            workspace={"files": {"orders.csv": "id\n1234\n"}},
            trajectory={"called": ["write_file"], "max_calls": 1},
            assertions=[
                {"kind": "contains", "value": "written"},
                {"kind": "contains", "value": "refund denied", "file": "report.md"},
            ],
        )
    ]
    write = json.dumps({"path": "report.md", "content": "Order 1234: refund denied\n"})
    script = {"write the report": [tool_calls([("write_file", write)]), text("Report written.")]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["writes the report"]
    assert outcome["status"] == "passed"
    assert outcome["tool_calls"] == [
        {
            "name": "write_file",
            "arguments": {"path": "report.md", "content": "Order 1234: refund denied\n"},
        }
    ]
    assertion = checks(outcome, "assertion")
    assert set(assertion) == {"contains[0]", "contains[1]"}
    assert all(passed for passed, _ in assertion.values()), assertion
    first, second = server.requests
    (system,) = first.messages("system")
    assert system["content"] == SYSTEM_PROMPT + "\n\n" + workspace_preamble()
    # The declared mock first, as written, then the three built-ins with closed schemas.
    assert [t["function"]["name"] for t in first.body["tools"]] == [
        "lookup_order",
        "list_files",
        "read_file",
        "write_file",
    ]
    assert ordered(first.body["tools"][1:]) == ordered(WORKSPACE_TOOLS)
    assert second.messages("tool") == [
        {"role": "tool", "tool_call_id": "call_0", "content": "wrote 26 bytes to report.md"}
    ]


def test_built_in_calls_count_toward_max_calls(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        case(
            "looks around too much",
            "look around",
            workspace={"files": {"a.txt": "alpha"}},
            trajectory={"max_calls": 1},
        )
    ]
    script = {
        "look around": [
            tool_calls([("list_files", "{}"), ("read_file", '{"path": "a.txt"}')]),
            text("a.txt says alpha"),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 1
    outcome = outcomes["looks around too much"]
    assert outcome["status"] == "failed"
    passed, evidence = checks(outcome, "trajectory")["max_calls"]
    assert not passed and "2 tool calls" in evidence
    replies = [m["content"] for m in server.requests[-1].messages("tool")]
    assert replies == ["a.txt", "alpha"]


def test_a_path_outside_the_workspace_is_refused_to_the_model_and_the_case_completes(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        case(
            "tries to escape",
            "read the secret",
            workspace={},
            trajectory={"called": ["read_file"]},
            assertions=[{"kind": "contains", "value": "cannot"}],
        )
    ]
    script = {
        "read the secret": [
            tool_calls([("read_file", '{"path": "../x"}')]),
            tool_calls([("read_file", "{}")]),
            text("I cannot read that file."),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["tries to escape"]
    assert outcome["status"] == "passed"
    assert outcome["error"] is None
    second, third = server.requests[1:]
    (refusal,) = second.messages("tool")
    assert refusal["content"].startswith("refused: ../x: ")
    assert "leave the workspace" in refusal["content"]
    # A call without its argument is refused too, never raised.
    assert third.messages("tool")[-1]["content"] == (
        "refused: read_file needs path (missing: path)"
    )


def test_session_two_reads_what_session_one_wrote(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    from pytest_skill_lens.run.models.prompt import workspace_preamble

    cases = [
        {
            "name": "remembers across sessions",
            "sessions": ["take a note", "what did you note?"],
            "workspace": {},
            "trajectory": {"order": ["write_file", "read_file"]},
            "assertions": [{"kind": "contains", "value": "the code is 7421"}],
        }
    ]
    note = json.dumps({"path": "notes/code.txt", "content": "the code is 7421"})
    script = {
        "take a note": [tool_calls([("write_file", note)]), text("Noted.")],
        "what did you note?": [
            tool_calls([("read_file", '{"path": "notes/code.txt"}')]),
            text("You told me: the code is 7421."),
        ],
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["remembers across sessions"]
    assert outcome["status"] == "passed"
    assert [c["name"] for c in outcome["tool_calls"]] == ["write_file", "read_file"]
    # Session 2 is a fresh conversation: no history, the same preamble, the file's text.
    opening = server.for_task("what did you note?")[0]
    assert [m["role"] for m in opening.body["messages"]] == ["system", "user"]
    assert opening.messages("system")[0]["content"].endswith(workspace_preamble())
    reply = server.for_task("what did you note?")[1].messages("tool")
    # Session 1's call was call_0: the scripted server never repeats an id.
    assert reply == [{"role": "tool", "tool_call_id": "call_1", "content": "the code is 7421"}]


def test_a_later_session_gets_what_is_left_of_max_tokens(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    tools = [{"name": "check", "description": "check", "returns": "not yet"}]
    cases = [
        {
            "name": "runs away in session two",
            "sessions": ["first", "second", "third"],
            "workspace": {},
            "tools": tools,
            "budget": {"max_tokens": 100},
        }
    ]
    script = {
        "first": [text("ok", usage=(40, 20))],  # 60 spent, 40 left
        "second": [tool_calls([("check", "{}")], usage=(30, 20))],  # 50 > 40: stopped
        "third": [text("never asked")],
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 1
    outcome = outcomes["runs away in session two"]
    assert outcome["status"] == "failed"
    assert [r.task for r in server.requests] == ["first", "second"]
    assert outcome["tokens"] == 110
    assert outcome["stop_note"] is not None and outcome["stop_note"].startswith(runner)


# --- settings read from the environment and skill-lens.toml --------------------------------------


DEAD_ENDPOINT = "http://127.0.0.1:9/v1"  # nothing listens there: a request to it fails


@pytest.mark.parametrize("where", ["flag", "file", "variable"])
def test_base_url_is_the_flag_then_the_file_then_the_providers_variable(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    monkeypatch: pytest.MonkeyPatch,
    runner: str,
    where: str,
) -> None:
    # The server sits at the level under test; every level above it is unset and
    # every level below it points nowhere, so only the right precedence reaches it.
    server.script["t"] = [text("reached")]
    make_skill(pytester.path / "skills", "order-support", [case("c", "t")])
    toml = "retries = 0\n"
    if where == "flag":
        toml += f'base_url = "{DEAD_ENDPOINT}"\n'
    elif where == "file":
        toml += f'base_url = "{server.url}"\n'
    write_file(pytester.path / "skill-lens.toml", toml)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url if where == "variable" else DEAD_ENDPOINT)
    flag = ("--skill-lens-base-url", server.url) if where == "flag" else ()

    result = LensRun(runner=runner)(pytester, *flag)

    assert result.ret == 0, result.stdout.str()
    assert [r.path for r in server.requests] == ["/v1/chat/completions"]


@pytest.mark.parametrize(("setting", "sent"), [("0.7", 0.7), ('"unset"', None)])
def test_temperature_is_sent_as_set(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    runner: str,
    setting: str,
    sent: float | None,
) -> None:
    result, _ = run(
        pytester,
        server,
        [case("c", "t")],
        {"t": [text("ok")]},
        runners=[runner],
        toml=f"temperature = {setting}\n",
    )

    assert result.ret == 0, result.stdout.str()
    (request,) = server.requests
    assert request.body.get("temperature") == sent
    assert ("temperature" in request.body) is (sent is not None)


# --- what the model sent reaches the mock as sent --------------------------------------------


def test_arguments_reach_the_mock_as_sent_never_validated_or_coerced(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    tools = [
        {
            "name": "find",
            "description": "find a record",
            "parameters": {"id": "string"},
            "returns": [{"when": {"id": "1"}, "value": "found 1"}],
        }
    ]
    cases = [
        case(
            "sends what it likes",
            "find it",
            tools=tools,
            trajectory={"call_args": [{"tool": "find", "contains": {"id": "1"}, "every": True}]},
        )
    ]
    # The closed schema says id is a string and nothing else is allowed; the model sends
    # an integer and an extra key anyway. Neither framework may refuse, coerce or drop it.
    script = {
        "find it": [
            tool_calls([("find", '{"id": 1, "extra": true}'), ("find", '{"id": "1"}')]),
            text("found it"),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 1
    outcome = outcomes["sends what it likes"]
    assert outcome["status"] == "failed" and outcome["error"] is None
    assert outcome["tool_calls"] == [
        {"name": "find", "arguments": {"id": 1, "extra": True}},
        {"name": "find", "arguments": {"id": "1"}},
    ]
    replies = [(m["tool_call_id"], m["content"]) for m in server.requests[1].messages("tool")]
    assert replies == [
        ("call_0", 'no response is scripted for find with arguments {"extra": true, "id": 1}'),
        ("call_1", "found 1"),
    ]
    passed, evidence = checks(outcome, "trajectory")["call_args[0]"]
    assert not passed
    assert evidence == (
        'call 1 of 2 to find does not match contains {"id": "1"}: $.id: expected "1" '
        '(string), got 1 (integer); arguments of each call: [{"extra": true, "id": 1}, '
        '{"id": "1"}]'
    )


def test_a_tool_nobody_declared_is_recorded_and_answered_by_the_framework(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [case("invents a tool", "invent", tools=tools_block()[:1])]
    script = {"invent": [tool_calls([("delete_everything", "{}")]), text("I could not.")]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["invents a tool"]
    assert outcome["tool_calls"] == [{"name": "delete_everything", "arguments": {}}]
    assert outcome["output"] == "I could not."
    (reply,) = server.requests[1].messages("tool")
    said = {
        "pydantic-ai": '{"error":"Unknown tool name: \'delete_everything\'. Available tools: '
        "'lookup_order'\"}",
        "langchain": "Error: delete_everything is not a valid tool",
    }
    assert reply["content"].startswith(said[runner])


def test_the_transcript_is_the_conversation_in_order_in_one_shape(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    from pytest_skill_lens.run.runners.langchain import LangChainRunner
    from pytest_skill_lens.run.runners.pydantic_ai import PydanticAIRunner
    from pytest_skill_lens.settings import Settings
    from pytest_skill_lens.suite.model import EvalCase
    from pytest_skill_lens.suite.skill import Skill

    server.script["refund"] = [
        tool_calls([("lookup_order", '{"order_id": "1234"}')]),
        text("Outside the window."),
    ]
    settings = Settings(model="openai:gpt-4o-mini", base_url=server.url)
    skill = Skill("s", "Handles refunds.", "Look it up.", pytester.path / "SKILL.md")
    spec = EvalCase.model_validate(case("c", "refund", tools=tools_block()[:1]))
    build = {"pydantic-ai": PydanticAIRunner, "langchain": LangChainRunner}[runner]

    result = build(settings, sleep=lambda _: None).run(skill, spec, None)

    assert result.error is None
    assert result.transcript == [
        {"role": "system", "content": "# s\n\nHandles refunds.\n\nLook it up."},
        {"role": "user", "content": "refund"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "1234"}}],
        },
        {"role": "tool", "name": "lookup_order", "content": ORDER},
        {"role": "assistant", "content": "Outside the window."},
    ]
    assert result.model == MODEL


def test_a_sequence_starts_over_in_every_session_and_every_repeat(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    tools = [
        {
            "name": "next_ticket",
            "description": "the next ticket",
            "returns": ["ticket 1", "ticket 2"],
        }
    ]
    cases = [
        {
            "name": "takes one ticket a session",
            "sessions": ["first", "second"],
            "workspace": {},
            "tools": tools,
            "trajectory": {"called": ["next_ticket"]},
        }
    ]
    one_ticket = [tool_calls([("next_ticket", "{}")]), text("got one")]
    # Two repeats of two sessions: each of the four conversations takes the next two replies.
    script = {"first": one_ticket * 2, "second": one_ticket * 2}

    result, _ = run(pytester, server, cases, script, "--skill-lens-repeat", "2", runners=[runner])

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
    answers = [(r.task, m["content"]) for r in server.requests for m in r.messages("tool")]
    # Every session of every repeat gets fresh tools: the first entry, never "ticket 2".
    assert answers == [
        ("first", "ticket 1"),
        ("second", "ticket 1"),
        ("first", "ticket 1"),
        ("second", "ticket 1"),
    ]


def test_a_skill_with_no_description_and_no_instructions_gets_the_neutral_prompt(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    server.script["hello"] = [text("hi")]
    # Frontmatter with a name only and an empty body: nothing of the skill to show.
    write_file(pytester.path / "skills" / "blank" / "SKILL.md", "---\nname: blank\n---\n")
    write_file(
        pytester.path / "skills" / "blank" / "evals" / "cases.yaml",
        "cases:\n  - name: c\n    task: hello\n",
    )

    result = LensRun(runner=runner)(pytester, *served_by(server.url))

    assert result.ret == 0, result.stdout.str()
    (request,) = server.requests
    # Exactly the neutral sentence: the skill's name is not leaked into it.
    assert request.messages("system") == [
        {"role": "system", "content": "You are a helpful assistant."}
    ]


# --- the skill's bundle and run_script: the same tools under both frameworks --------------------

FORMAT = "# Report\n\nOne line per level: LEVEL: count\n"
COUNT_LEVELS = """\
import collections
import sys

counts = collections.Counter(line.split()[0] for line in open(sys.argv[1]) if line.strip())
for level, n in sorted(counts.items()):
    print(f"{level}: {n}")
"""
BUNDLE_TOOLS = [
    function(
        "list_skill_files",
        "List the bundled files, one path per line, relative to the skill's directory",
        {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
    ),
    function(
        "read_skill_file",
        "Read one bundled text file, e.g. `references/style.md`. `path` is relative to the "
        "skill's directory, as list_skill_files shows it",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
    function(
        "run_script",
        "Run a bundled script (a file under scripts/, e.g. `scripts/check.py`) with the "
        "working directory as its current directory. `path` is relative to the skill's "
        "directory, as list_skill_files shows it; `args` are its command-line arguments. "
        "Returns the exit code, stdout and stderr",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "args": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
]


def test_the_bundle_and_run_script_are_offered_and_answered_alike(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    skill = pytester.path / "skills" / "order-support"
    write_file(skill / "references" / "format.md", FORMAT)
    write_file(skill / "scripts" / "count_levels.py", COUNT_LEVELS)
    cases = [
        case(
            "triages with the bundle",
            "triage the log",
            workspace={"files": {"app.log": "ERROR a\nINFO b\nERROR c\n"}},
            trajectory={"order": ["list_skill_files", "read_skill_file", "run_script"]},
            assertions=[{"kind": "contains", "value": "ERROR: 2"}],
        )
    ]
    run_it = json.dumps({"path": "scripts/count_levels.py", "args": ["app.log"]})
    script = {
        "triage the log": [
            tool_calls([("list_skill_files", "{}")]),
            tool_calls(
                [
                    ("read_skill_file", '{"path": "references/format.md"}'),
                    ("read_skill_file", '{"path": "evals/cases.yaml"}'),
                ]
            ),
            tool_calls([("run_script", run_it)]),
            text("ERROR: 2, INFO: 1"),
        ]
    }

    result, outcomes = run(
        pytester, server, cases, script, "--skill-lens-allow-scripts", runners=[runner]
    )

    assert result.ret == 0, result.stdout.str()
    assert outcomes["triages with the bundle"]["status"] == "passed"
    first = server.requests[0]
    assert [t["function"]["name"] for t in first.body["tools"]] == [
        "list_files",
        "read_file",
        "write_file",
        "list_skill_files",
        "read_skill_file",
        "run_script",
    ]
    assert ordered(first.body["tools"][3:]) == ordered(BUNDLE_TOOLS)
    replies = [m["content"] for m in server.requests[-1].messages("tool")]
    assert replies == [
        "references/format.md\nscripts/count_levels.py",
        FORMAT,
        "refused: 'evals/cases.yaml' is not a file the skill ships; SKILL.md, eval files "
        "(evals/, *.eval.yaml, evals.json), version control, dependency directories and "
        "secret files (.env, .npmrc, ...) are never readable",
        "exit code: 0\nstdout:\nERROR: 2\nINFO: 1\nstderr:\n(empty)",
    ]
