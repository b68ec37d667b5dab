"""The framework adapters: a response reads back exactly, and a differing request is named."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pydantic_ai")
pytest.importorskip("langchain_core")

from pytest_skill_lens.run.cassettes import CassetteMiss
from pytest_skill_lens.run.cassettes import langchain as lc
from pytest_skill_lens.run.cassettes import pydantic_ai as pa


def pa_request(tool_answer: str, *, tools: tuple[str, ...] = ("lookup",)) -> dict[str, Any]:
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.tools import ToolDefinition

    messages = [
        ModelRequest(parts=[SystemPromptPart("sys"), UserPromptPart("refund 1234")]),
        ModelResponse(parts=[ToolCallPart("lookup", '{"id": "1"}', tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("lookup", tool_answer, tool_call_id="c1")]),
    ]
    parameters = ModelRequestParameters(
        function_tools=[ToolDefinition(name=n, parameters_json_schema={}) for n in tools]
    )
    return pa.request_record(messages, {"temperature": 0.0}, parameters)


def test_a_pydantic_ai_response_reads_back_as_the_same_response() -> None:
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.usage import RequestUsage

    response = ModelResponse(
        parts=[TextPart("checking"), ToolCallPart("lookup", {"id": "1"}, tool_call_id="c1")],
        usage=RequestUsage(input_tokens=10, output_tokens=5, cache_read_tokens=2),
        model_name="gpt-4o-mini-2024-07-18",
        provider_response_id="chatcmpl-1",
        finish_reason="tool_call",
    )

    stored = pa.response_record(response)
    again = pa.response_from(stored)

    assert "timestamp" not in stored and None not in stored.values()  # nulls left out
    assert again.parts == response.parts
    assert again.usage == response.usage
    assert (again.model_name, again.finish_reason) == (response.model_name, "tool_call")


def test_a_pydantic_ai_request_is_compared_without_what_changes_every_run() -> None:
    first, second = pa_request("ORDER"), pa_request("ORDER")
    assert first == second  # timestamps, run ids: left out
    for message in first["messages"]:
        assert "timestamp" not in message and "run_id" not in message
        assert all("timestamp" not in p for p in message["parts"])


def test_a_pydantic_ai_difference_is_named() -> None:
    before, now = pa_request("ORDER"), pa_request("OTHER")
    said = pa.explain(before["messages"], now["messages"], before, now)
    assert said == "the answer of tool lookup differs"
    more = pa_request("ORDER", tools=("lookup", "refund"))
    assert pa.explain([], [], before, more) == "the tool definitions sent differ (refund)"
    warmer = {**before, "settings": {"temperature": 1.0}}
    assert pa.explain([], [], before, warmer) == "the model settings sent differ"


def test_an_unreadable_pydantic_ai_response_is_a_miss_not_a_crash() -> None:
    with pytest.raises(CassetteMiss, match="cannot be read by pydantic-ai"):
        pa.response_from({"kind": "response", "parts": "not a list"})
    with pytest.raises(CassetteMiss, match="not a model response"):
        pa.response_from({"kind": "request", "parts": []})


def test_a_langchain_result_keeps_tool_calls_and_usage_exactly() -> None:
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    message = AIMessage(
        content="",
        tool_calls=[{"name": "lookup", "args": {"id": "1"}, "id": "c1", "type": "tool_call"}],
        invalid_tool_calls=[
            {
                "name": "refund",
                "args": '{"id": 1',
                "id": "c2",
                "error": None,
                "type": "invalid_tool_call",
            }
        ],
        usage_metadata={
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "input_token_details": {"cache_read": 2},
        },
        response_metadata={"model_name": "gpt-4o-mini"},
    )
    result = ChatResult(
        generations=[ChatGeneration(message=message, generation_info={"finish_reason": "stop"})],
        llm_output={"model_name": "gpt-4o-mini"},
    )

    again = lc.result_from(lc.result_record(result))

    (generation,) = again.generations
    assert generation.message == message
    assert generation.message.tool_calls == message.tool_calls
    assert generation.message.invalid_tool_calls == message.invalid_tool_calls
    assert generation.message.usage_metadata == message.usage_metadata
    assert generation.generation_info == {"finish_reason": "stop"}
    assert again.llm_output == {"model_name": "gpt-4o-mini"}


def lc_request(answer: str, message_id: str) -> dict[str, Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    call = {"name": "lookup", "args": {"id": "1"}, "id": "c1", "type": "tool_call"}
    messages = [
        SystemMessage("sys"),
        HumanMessage("refund 1234", id=message_id),  # LangGraph gives each a random id
        AIMessage("", tool_calls=[call], id=f"lc_run--{message_id}"),
        ToolMessage(answer, tool_call_id="c1", name="lookup", id=message_id),
    ]
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]
    return lc.request_record(messages, None, {"tools": tools})


def test_a_langchain_request_is_compared_without_message_ids_and_a_difference_named() -> None:
    assert lc_request("ORDER", "id-1") == lc_request("ORDER", "id-2")
    before, now = lc_request("ORDER", "id-1"), lc_request("OTHER", "id-1")
    options = {k: v for k, v in before.items() if k != "messages"}  # as the tape splits them
    said = lc.explain(before["messages"], now["messages"], options, dict(options))
    assert said == "the answer of tool lookup differs"
    other_tools = {**options, "arguments": {"tools": []}}
    assert lc.explain([], [], options, other_tools) == "the tool definitions sent differ (lookup)"


def test_an_unreadable_langchain_result_is_a_miss_not_a_crash() -> None:
    with pytest.raises(CassetteMiss, match="cannot be read by LangChain"):
        lc.result_from({"generations": [{"message": {"type": "nonsense"}}]})
    with pytest.raises(CassetteMiss, match="cannot be read by LangChain"):
        lc.result_from([])
