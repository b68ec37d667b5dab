"""Both framework runners and judges with ``anthropic:`` models, against a scripted Messages API.

The runners reach Anthropic through each framework's own Anthropic client
(pydantic-ai's ``AnthropicModel``, LangChain's ``ChatAnthropic``), pointed at
127.0.0.1 by ``--skill-lens-base-url``. The tests assert what the server received
(the system prompt, the tool definitions key for key as declared, the tool results)
and what the report says (tokens with cache reads and writes, the Anthropic price,
retries, the runaway stop, a judge's verdict and its price). pydantic-ai streams its
requests and LangChain does not, so both of the server's answers, a stream of events
and one JSON message, are read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.models.anthropic")
pytest.importorskip("langchain_anthropic")
pytest.importorskip("genai_prices")

from anthropic_server import MODEL, AnthropicServer, failure, text, tool_use
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

# slow: real agent frameworks against a local server (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.parametrize("runner", RUNNERS)]

ANTHROPIC_MODEL = "anthropic:claude-haiku-4-5"


@pytest.fixture
def server() -> Iterator[AnthropicServer]:
    with AnthropicServer() as running:
        yield running


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def anthropic_tool(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": schema}


def test_a_tool_using_case_passes_and_the_server_saw_prompt_tools_and_results(
    pytester: pytest.Pytester, server: AnthropicServer, runner: str
) -> None:
    cases = [
        case(
            "checks the order first",
            "I want a refund for order 1234",
            tools=tools_block(),
            trajectory={
                "called": ["lookup_order"],
                "call_args": [{"tool": "lookup_order", "equals": {"order_id": "1234"}}],
            },
            assertions=[{"kind": "contains", "value": "outside the return window"}],
            budget={"max_tokens": 1000, "max_cost_usd": 0.01},
        )
    ]
    script = {
        "I want a refund for order 1234": [
            tool_use([("lookup_order", {"order_id": "1234"})], usage=(100, 20)),
            text(
                "Order 1234 is outside the return window.",
                usage=(150, 30),
                cache_read=400,
                cache_write=50,
            ),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner], model=ANTHROPIC_MODEL)

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["checks the order first"]
    assert outcome["status"] == "passed"
    assert outcome["output"] == "Order 1234 is outside the return window."
    assert outcome["tool_calls"] == [{"name": "lookup_order", "arguments": {"order_id": "1234"}}]
    # Anthropic counts cache reads and writes apart from input_tokens; both runners add them in.
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (100 + 150 + 400 + 50, 50)
    assert outcome["model"] == MODEL
    expected = price(MODEL, 100, 20, "anthropic") + price(
        MODEL, 600, 30, "anthropic", cache_read_tokens=400, cache_write_tokens=50
    )
    assert outcome["cost_usd"] == pytest.approx(expected)
    assert outcome["cost_note"] is None and outcome["usage_note"] is None

    first, second = server.requests
    assert first.path == "/v1/messages"
    # The key from ANTHROPIC_API_KEY, in whichever header this SDK version sends it.
    sent = {first.headers.get("x-api-key"), first.headers.get("authorization")}
    assert sent & {"test-key", "Bearer test-key"}
    assert first.body["model"] == "claude-haiku-4-5"
    assert first.system == SYSTEM_PROMPT
    assert first.task == "I want a refund for order 1234"
    # pydantic-ai streams Anthropic requests; LangChain asks for one JSON message.
    assert bool(first.body.get("stream")) is (runner == "pydantic-ai")
    assert ordered(first.body["tools"]) == ordered(
        [
            anthropic_tool("lookup_order", "Look up an order by its id", LOOKUP_SCHEMA),
            anthropic_tool("issue_refund", "Issue a refund for an order", LOOKUP_SCHEMA),
            anthropic_tool(
                "get-pull-request", "Get details of a specific pull request", PULL_REQUEST_SCHEMA
            ),
        ]
    )
    assert all("strict" not in tool for tool in first.body["tools"])
    assert second.tool_results() == [("toolu_0", ORDER)]


def test_an_overloaded_api_is_retried_as_a_fresh_conversation(
    pytester: pytest.Pytester, server: AnthropicServer, runner: str
) -> None:
    tools = [{"name": "poll", "description": "poll a job", "returns": ["running", "done"]}]
    cases = [case("polls", "poll it", tools=tools, trajectory={"called": ["poll"]})]
    script = {
        "poll it": [
            tool_use([("poll", {})], usage=(100, 20)),
            failure(529, "Overloaded"),
            tool_use([("poll", {})], usage=(100, 20)),
            text("finished", usage=(120, 10)),
        ]
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner], model=ANTHROPIC_MODEL)

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["polls"]
    assert outcome["status"] == "passed"
    assert len(server.requests) == 4
    assert server.requests[2].body["messages"] == server.requests[0].body["messages"]
    # The retry's call has an id of its own, as a real API gives it.
    assert server.requests[3].tool_results() == [("toolu_1", "running")]
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (220, 30)
    assert outcome["retry_cost_usd"] == pytest.approx(price(MODEL, 100, 20, "anthropic"))


def test_a_runaway_tool_loop_stops_at_max_tokens(
    pytester: pytest.Pytester, server: AnthropicServer, runner: str
) -> None:
    tools = [{"name": "check", "description": "check again", "returns": "not yet"}]
    cases = [case("loops forever", "loop", tools=tools, budget={"max_tokens": 120})]
    script = {"loop": [tool_use([("check", {})], usage=(40, 10))]}  # repeats for ever

    result, outcomes = run(pytester, server, cases, script, runners=[runner], model=ANTHROPIC_MODEL)

    assert result.ret == 1
    assert len(server.requests) == 3  # 50, 100, then 150 > 120
    outcome = outcomes["loops forever"]
    assert outcome["status"] == "failed" and outcome["error"] is None
    note = f"{runner} stopped the run before the agent finished, at the case's max_tokens"
    assert checks(outcome, "budget")["max_tokens"] == (
        False,
        f"used 150 tokens, limit is 120; {note}",
    )


def test_a_refusal_is_errored_not_retried(
    pytester: pytest.Pytester, server: AnthropicServer, runner: str
) -> None:
    cases = [case("bad key", "auth")]
    script = {"auth": [failure(401, "invalid x-api-key"), text("never reached")]}

    result, outcomes = run(pytester, server, cases, script, runners=[runner], model=ANTHROPIC_MODEL)

    assert result.ret == 1
    assert len(server.requests) == 1
    assert outcomes["bad key"]["status"] == "errored"
    assert "401" in outcomes["bad key"]["error"]


def test_the_judge_grades_over_the_messages_api_with_the_inherited_model_and_endpoint(
    pytester: pytest.Pytester, runner: str
) -> None:
    from pytest_skill_lens.score.judges.prompt import INSTRUCTIONS

    answer = "Order 1234 is outside the return window."
    verdict = {
        "checks": [
            {"id": "r1", "passed": True, "evidence": "'order 1234' is named"},
            {"id": "r2", "passed": True, "evidence": "'outside the return window' is civil"},
        ]
    }
    # The judge's task is the whole judge prompt: its replies are keyed by the answer in it.
    judge_reply = tool_use([("JudgeOutput", verdict)], usage=(2_000, 100))
    judged = {"rubric": ["The reply names order 1234", "The reply is polite"]}
    cases = [case("graded", "I want a refund", judge=judged)]

    # The same framework runs the case and grades it, both on the runner's anthropic model.
    with AnthropicServer(by_content={answer: [judge_reply]}) as server:
        result, outcomes = run(
            pytester,
            server,
            cases,
            {"I want a refund": [text(answer, usage=(100, 20))]},
            runners=[runner],
            model=ANTHROPIC_MODEL,
            toml=f'judge = "{runner}"\nretry_backoff_seconds = 0.0\n',
        )

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["graded"]
    assert outcome["status"] == "passed"
    (score,) = [s for s in outcome["scores"] if s["evaluator"] == "judge"]
    assert [(c["id"], c["passed"], c["evidence"]) for c in score["checks"]] == [
        ("r1", True, "'order 1234' is named"),
        ("r2", True, "'outside the return window' is civil"),
    ]
    # Judge spend at Anthropic's price, reported apart from the run's own.
    assert score["cost_usd"] == pytest.approx(price(MODEL, 2_000, 100, "anthropic"))
    assert score["cost_note"] is None
    assert outcome["cost_usd"] == pytest.approx(price(MODEL, 100, 20, "anthropic"))

    run_request, judge_request = server.requests
    assert run_request.task == "I want a refund"
    assert judge_request.path == "/v1/messages"
    assert judge_request.body["model"] == "claude-haiku-4-5"  # inherited with the endpoint
    assert judge_request.system == INSTRUCTIONS
    assert answer in judge_request.task
    assert [t["name"] for t in judge_request.body["tools"]] == ["JudgeOutput"]
    forced = {
        "pydantic-ai": {"type": "any"},  # an output tool and nothing else
        "langchain": {"type": "tool", "name": "JudgeOutput"},
    }
    assert judge_request.body["tool_choice"] == forced[runner]
    # pydantic-ai streams its Anthropic requests, the judge's too; the verdict reads the same.
    assert bool(judge_request.body.get("stream")) is (runner == "pydantic-ai")
