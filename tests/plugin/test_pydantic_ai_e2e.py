"""The pydantic-ai runner end to end, against a scripted Chat Completions server on 127.0.0.1.

Each test runs pytest the way a user does (``--skill-lens-runner pydantic-ai
--skill-lens-base-url ... --skill-lens-model openai:gpt-4o-mini``) with a real
PydanticAI agent, and asserts on the outcomes, the checks and their evidence, and on
what the server received: the system prompt, the tool schemas, the tool results.
Nothing leaves the machine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

# Speed only: an in-process pytester run drops the modules first imported inside it, so
# each inner run would import pydantic-ai again (about 3 s). Imported once here, they stay.
pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

from model_server import MODEL, ScriptedModelServer, failure, text, tool_calls
from skillfactory import QUIET_PLUGINS, make_skill, write_file

# --- the skill, its tools and its cases ------------------------------------------------------

SKILL_FRONTMATTER = "name: order-support\ndescription: Handles refund requests.\n"
SKILL_BODY = "Always look up the order before you answer.\n"
SYSTEM_PROMPT = (
    "# order-support\n\nHandles refund requests.\n\n"
    "# order-support\n\nAlways look up the order before you answer."
)

# A real server's schema: optional keys, a $ref into $defs, a title, a default, a format.
PULL_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "GetPullRequest",
    "$defs": {"Label": {"type": "string", "enum": ["bug", "docs"], "default": "bug"}},
    "properties": {
        "owner": {"type": "string", "title": "Owner", "minLength": 1},
        "pull_number": {"type": "integer"},
        "labels": {"type": "array", "items": {"$ref": "#/$defs/Label"}},
        "since": {"type": "string", "format": "date-time"},
    },
    "required": ["owner", "pull_number"],
}
LOOKUP_SCHEMA = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}},
    "required": ["order_id"],
    "additionalProperties": False,
}
ORDER = '{"id": "1234", "days_since_delivery": 45}'


def tools_block() -> list[dict[str, Any]]:
    return [
        {
            "name": "lookup_order",
            "description": "Look up an order by its id",
            "parameters": {"order_id": "string"},
            "returns": ORDER,
        },
        {
            "name": "issue_refund",
            "description": "Issue a refund for an order",
            "parameters": {"order_id": "string"},
            "returns": '{"ok": true}',
        },
        {
            "name": "get-pull-request",
            "description": "Get details of a specific pull request",
            "input_schema": PULL_REQUEST_SCHEMA,
            "returns": '{"number": 1}',
        },
    ]


def case(name: str, task: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "task": task, **more}


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as running:
        yield running


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def run(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    cases: Sequence[Mapping[str, Any]],
    script: Mapping[str, Sequence[Mapping[str, Any]]],
    *args: str,
    toml: str = "retry_backoff_seconds = 0.0\n",
    subprocess: bool = False,
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """Run skill ``order-support`` under pydantic-ai against ``server``; outcomes by case."""
    server.script.update({task: list(replies) for task, replies in script.items()})
    make_skill(
        pytester.path / "skills",
        "order-support",
        cases,
        frontmatter=SKILL_FRONTMATTER,
        body=SKILL_BODY,
    )
    write_file(pytester.path / "skill-lens.toml", toml)
    argv = [
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "pydantic-ai",
        "--skill-lens-base-url",
        server.url,
        "--skill-lens-model",
        "openai:gpt-4o-mini",
        "--skill-lens-json",
        "report.json",
        *QUIET_PLUGINS,
        *args,
    ]
    runner = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    result = runner(*argv)
    report_path = pytester.path / "report.json"
    outcomes: dict[str, dict[str, Any]] = {}
    if report_path.is_file():
        report = json.loads(report_path.read_text(encoding="utf-8"))
        outcomes = {o["case_name"]: o for o in report["outcomes"]}
    return result, outcomes


def checks(outcome: Mapping[str, Any], evaluator: str) -> dict[str, tuple[bool, str]]:
    (score,) = [s for s in outcome["scores"] if s["evaluator"] == evaluator]
    return {c["id"]: (c["passed"], c["evidence"]) for c in score["checks"]}


def price(model: str, input_tokens: int, output_tokens: int) -> float:
    import genai_prices

    usage = genai_prices.Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    return float(genai_prices.calc_price(usage, model, provider_id="openai").total_price)


# --- a run that goes well: what was sent, what was recorded ------------------------------------


def test_a_tool_using_case_passes_and_the_server_saw_prompt_tools_and_results(
    pytester: pytest.Pytester, server: ScriptedModelServer
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

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)
    outcome = outcomes["checks the order first"]
    assert outcome["status"] == "passed"
    assert outcome["runner"] == "pydantic-ai"
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
    assert first.body["messages"] == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "I want a refund for order 1234"},
    ]
    # Every schema exactly as declared: the shorthand closed, input_schema verbatim (its
    # title, $defs and default included), and no strict flag the author did not ask for.
    assert first.body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "lookup_order",
                "description": "Look up an order by its id",
                "parameters": LOOKUP_SCHEMA,
            },
        },
        {
            "type": "function",
            "function": {
                "name": "issue_refund",
                "description": "Issue a refund for an order",
                "parameters": LOOKUP_SCHEMA,
            },
        },
        {
            "type": "function",
            "function": {
                "name": "get-pull-request",
                "description": "Get details of a specific pull request",
                "parameters": PULL_REQUEST_SCHEMA,
            },
        },
    ]
    assert second.messages("tool") == [{"role": "tool", "tool_call_id": "call_0", "content": ORDER}]


def test_every_returns_shape_answers_through_the_agent(
    pytester: pytest.Pytester, server: ScriptedModelServer
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

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 0, result.stdout.str()
    replies = [(m["tool_call_id"], m["content"]) for m in server.requests[-1].messages("tool")]
    assert replies == [
        ("call_0", '{"id": "A", "parent": "B"}'),
        ("call_0", '{"id": "B", "parent": null}'),
        ("call_0", '{"id": "B", "parent": null}'),  # the last entry repeats
        ("call_0", "always this"),
        ("call_1", "found A"),
        ("call_2", 'no response is scripted for find with arguments {"id": "C"}'),
        ("call_3", "fallback"),
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


def test_several_cases_in_one_run_and_under_xdist(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [
        case(f"case {i}", f"task {i}", assertions=[{"kind": "contains", "value": f"answer {i}"}])
        for i in range(4)
    ]
    script = {f"task {i}": [text(f"answer {i}")] for i in range(4)}

    result, outcomes = run(pytester, server, cases, script, "-n", "2", subprocess=True)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=4)
    assert sorted(r.task for r in server.requests) == [f"task {i}" for i in range(4)]
    assert {o["status"] for o in outcomes.values()} == {"passed"}


# --- retries ---------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 429])
def test_a_transient_failure_is_retried_as_a_fresh_conversation(
    pytester: pytest.Pytester, server: ScriptedModelServer, status: int
) -> None:
    tools = [
        {
            "name": "poll",
            "description": "poll a job",
            "returns": ["running", "done"],
        }
    ]
    cases = [case("polls", "poll it", tools=tools, trajectory={"called": ["poll"]})]
    script = {
        "poll it": [
            tool_calls([("poll", "{}")], usage=(100, 20)),
            failure(status),
            tool_calls([("poll", "{}")], usage=(100, 20)),
            text("finished", usage=(120, 10)),
        ]
    }

    result, outcomes = run(pytester, server, cases, script)

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


def test_retries_run_out_and_the_case_is_errored(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [case("never answers", "down")]
    script = {"down": [failure(503, "overloaded")]}

    result, outcomes = run(
        pytester, server, cases, script, toml="retries = 2\nretry_backoff_seconds = 0.0\n"
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


def test_a_refusal_is_not_retried(pytester: pytest.Pytester, server: ScriptedModelServer) -> None:
    cases = [case("bad key", "auth")]
    script = {"auth": [failure(401, "invalid api key"), text("never reached")]}

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 1
    assert len(server.requests) == 1
    assert outcomes["bad key"]["status"] == "errored"
    assert "401" in outcomes["bad key"]["error"]


def test_an_unreachable_endpoint_is_an_errored_case_not_a_crash(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    make_skill(pytester.path / "skills", "order-support", [case("c", "t")])
    write_file(pytester.path / "skill-lens.toml", "retries = 1\nretry_backoff_seconds = 0.0\n")

    result = pytester.runpytest(
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "pydantic-ai",
        "--skill-lens-base-url",
        "http://127.0.0.1:9/v1",
        *QUIET_PLUGINS,
    )

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ModelConnectionError: *"])


# --- budgets: the runaway stop, unmeasured usage and prices ------------------------------------


def test_a_runaway_tool_loop_stops_at_max_tokens_and_fails_not_errors(
    pytester: pytest.Pytester, server: ScriptedModelServer
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

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 1
    result.assert_outcomes(failed=1)
    assert len(server.requests) == 3  # 50, 100, then 150 > 120: no fourth request
    outcome = outcomes["loops forever"]
    assert outcome["status"] == "failed" and outcome["error"] is None
    assert outcome["stop_note"] == (
        "pydantic-ai stopped the run before the agent finished, at the case's max_tokens"
    )
    assert outcome["tokens"] == 150
    assert len(outcome["tool_calls"]) == 3
    assert checks(outcome, "budget")["max_tokens"] == (
        False,
        "used 150 tokens, limit is 120; pydantic-ai stopped the run before the agent "
        "finished, at the case's max_tokens",
    )
    result.stdout.fnmatch_lines(["*used 150 tokens, limit is 120; pydantic-ai stopped the run*"])


def test_a_run_at_its_token_limit_is_not_stopped(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    tools = [{"name": "check", "description": "check", "returns": "ok"}]
    cases = [case("exactly at the limit", "edge", tools=tools, budget={"max_tokens": 100})]
    script = {"edge": [tool_calls([("check", "{}")], usage=(40, 10)), text("ok", usage=(40, 10))]}

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 0, result.stdout.str()
    assert outcomes["exactly at the limit"]["stop_note"] is None
    assert outcomes["exactly at the limit"]["tokens"] == 100


def test_a_response_without_usage_is_not_a_measurement(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [case("no usage", "quiet", budget={"max_tokens": 1000, "max_cost_usd": 1.0})]
    script = {"quiet": [text("hello", usage=None)]}

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 1
    outcome = outcomes["no usage"]
    assert outcome["status"] == "failed"
    note = "pydantic-ai received no token usage from the provider"
    assert outcome["usage_note"] == note and outcome["cost_note"] == note
    assert checks(outcome, "budget") == {
        "max_tokens": (False, f"token budget not evaluated: {note}"),
        "max_cost_usd": (False, f"cost budget not evaluated: {note}"),
    }


def test_a_model_genai_prices_does_not_know_costs_zero_with_a_note(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [case("local model", "local", budget={"max_tokens": 1000, "max_cost_usd": 1.0})]
    script = {"local": [text("hi", model="my-local-llama")]}

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 1
    outcome = outcomes["local model"]
    assert outcome["model"] == "my-local-llama"
    assert outcome["cost_usd"] == 0.0
    assert (
        outcome["cost_note"]
        == "genai-prices has no price for model 'my-local-llama' from provider 'openai'"
    )
    assert checks(outcome, "budget")["max_tokens"] == (True, "used 15 tokens, limit is 1000")
    assert checks(outcome, "budget")["max_cost_usd"][0] is False


# --- the workspace: preamble, built-in tools, sessions -------------------------------------------

WORKSPACE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list_files",
            "description": "List every file in the working directory, one relative path per line",
            "parameters": {
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a text file. `path` is relative to the working directory",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Create or replace a text file. `path` is relative to the working "
            "directory; `content` is the whole text of the file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
                "additionalProperties": False,
            },
        },
    },
]


def test_a_workspace_case_writes_a_file_the_assertion_reads(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    from pytest_skill_lens.run.prompt import workspace_preamble

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

    result, outcomes = run(pytester, server, cases, script)

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
    assert first.body["tools"][1:] == WORKSPACE_TOOLS
    assert second.messages("tool") == [
        {"role": "tool", "tool_call_id": "call_0", "content": "wrote 26 bytes to report.md"}
    ]


def test_built_in_calls_count_toward_max_calls(
    pytester: pytest.Pytester, server: ScriptedModelServer
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

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 1
    outcome = outcomes["looks around too much"]
    assert outcome["status"] == "failed"
    passed, evidence = checks(outcome, "trajectory")["max_calls"]
    assert not passed and "2 tool calls" in evidence
    replies = [m["content"] for m in server.requests[-1].messages("tool")]
    assert replies == ["a.txt", "alpha"]


def test_a_path_outside_the_workspace_is_refused_to_the_model_and_the_case_completes(
    pytester: pytest.Pytester, server: ScriptedModelServer
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

    result, outcomes = run(pytester, server, cases, script)

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
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    from pytest_skill_lens.run.prompt import workspace_preamble

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

    result, outcomes = run(pytester, server, cases, script)

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["remembers across sessions"]
    assert outcome["status"] == "passed"
    assert [c["name"] for c in outcome["tool_calls"]] == ["write_file", "read_file"]
    # Session 2 is a fresh conversation: no history, the same preamble, the file's text.
    opening = server.for_task("what did you note?")[0]
    assert [m["role"] for m in opening.body["messages"]] == ["system", "user"]
    assert opening.messages("system")[0]["content"].endswith(workspace_preamble())
    reply = server.for_task("what did you note?")[1].messages("tool")
    assert reply == [{"role": "tool", "tool_call_id": "call_0", "content": "the code is 7421"}]


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

    result = pytester.runpytest_subprocess(
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "pydantic-ai",
        "--skill-lens-base-url",
        server.url,
        *QUIET_PLUGINS,
    )

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

    result = pytester.runpytest(
        "--skill-lens", "skills", "--skill-lens-runner", "pydantic-ai", "--collect-only", "-q"
    )

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

    result = pytester.runpytest_subprocess(
        "--skill-lens", "skills", "--skill-lens-runner", "pydantic-ai", "--collect-only", "-q"
    )

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

    result = pytester.runpytest_subprocess(
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "pydantic-ai",
        "--skill-lens-base-url",
        url,
        *QUIET_PLUGINS,
    )

    assert result.ret == 2
    result.stderr.fnmatch_lines([f"*base_url cannot be used: {said}*"])
    assert "s3cr3t" not in result.stdout.str() + result.stderr.str()


def test_a_base_url_in_skill_lens_toml_is_read(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    server.script["t"] = [text("from the toml endpoint")]
    _one_case(pytester)
    write_file(
        pytester.path / "skill-lens.toml",
        f'default_runner = "pydantic-ai"\nbase_url = "{server.url}"\n',
    )

    result = pytester.runpytest("--skill-lens", "skills", *QUIET_PLUGINS)

    assert result.ret == 0, result.stdout.str()
    assert [r.path for r in server.requests] == ["/v1/chat/completions"]


@pytest.mark.parametrize(
    ("model", "said"),
    [
        ("gpt-4o-mini", "is not of the form provider:name"),
        ("groq:llama-3.3-70b", "pydantic-ai cannot send groq: models to base_url"),
    ],
)
def test_a_model_the_runner_cannot_serve_is_exit_2(
    pytester: pytest.Pytester, server: ScriptedModelServer, model: str, said: str
) -> None:
    _one_case(pytester)

    result = pytester.runpytest_subprocess(
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "pydantic-ai",
        "--skill-lens-base-url",
        server.url,
        "--skill-lens-model",
        model,
        *QUIET_PLUGINS,
    )

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

    result = pytester.runpytest_subprocess(
        "--skill-lens", "skills", "--skill-lens-runner", "pydantic-ai", *QUIET_PLUGINS
    )

    assert result.ret == 2
    assert (
        "skill-lens: the runner 'pydantic-ai' needs the pydantic-ai extra, which is not "
        "installed (no module named 'pydantic_ai'); install it: "
        'pip install "pytest-skill-lens[pydantic-ai]"'
    ) in result.stdout.str()


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


# --- settings read from the environment and skill-lens.toml --------------------------------------


@pytest.mark.parametrize(("setting", "sent"), [("0.7", 0.7), ('"unset"', None)])
def test_temperature_is_sent_as_set(
    pytester: pytest.Pytester, server: ScriptedModelServer, setting: str, sent: float | None
) -> None:
    result, _ = run(
        pytester, server, [case("c", "t")], {"t": [text("ok")]}, toml=f"temperature = {setting}\n"
    )

    assert result.ret == 0, result.stdout.str()
    (request,) = server.requests
    assert request.body.get("temperature") == sent
    assert ("temperature" in request.body) is (sent is not None)


def test_without_base_url_the_providers_own_variable_is_the_endpoint(
    pytester: pytest.Pytester, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    server.script["t"] = [text("via OPENAI_BASE_URL")]
    _one_case(pytester)

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "pydantic-ai")

    assert result.ret == 0, result.stdout.str()
    assert [r.path for r in server.requests] == ["/v1/chat/completions"]
