from __future__ import annotations

import threading
from typing import Any

from pytest_skill_lens.run.tools.mocktools import MockTool, build_mock_tools
from pytest_skill_lens.suite.model import ToolSpec


def tool(returns: Any, **extra: Any) -> MockTool:
    spec = ToolSpec.model_validate({"name": "get_work_item", "returns": returns, **extra})
    return build_mock_tools([spec])["get_work_item"]


LOOKUP = [
    {"when": {"id": "A"}, "value": "item A"},
    {"when": {"id": "B"}, "value": "item B"},
    {"value": "not found"},
]


def test_a_string_answers_every_call() -> None:
    mock = tool('{"ok": true}')
    assert [mock.call({}), mock.call({"x": 1}), mock.call({})] == ['{"ok": true}'] * 3


def test_an_empty_string_is_an_empty_reply() -> None:
    assert tool("").call({}) == ""


def test_a_sequence_is_consumed_in_call_order_and_its_last_entry_repeats() -> None:
    mock = tool(["A", "B"])
    assert [mock.call({"id": "z"}) for _ in range(4)] == ["A", "B", "B", "B"]
    assert mock.calls == 4


def test_every_build_starts_the_sequence_again() -> None:
    spec = ToolSpec.model_validate({"name": "poll", "returns": ["pending", "done"]})
    first = build_mock_tools([spec])["poll"]
    assert first.call({}) == "pending"
    assert first.call({}) == "done"
    again = build_mock_tools([spec])["poll"]
    assert again.call({}) == "pending"


def test_parallel_calls_each_take_a_distinct_entry() -> None:
    entries = [f"entry {n}" for n in range(40)]
    mock = tool(entries)
    answers: list[str] = []
    barrier = threading.Barrier(40)
    guard = threading.Lock()

    def call() -> None:
        barrier.wait()
        answer = mock.call({})
        with guard:
            answers.append(answer)

    threads = [threading.Thread(target=call) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == sorted(entries)


def test_a_lookup_answers_with_the_first_matching_entry() -> None:
    mock = tool(LOOKUP)
    assert mock.call({"id": "B"}) == "item B"
    assert mock.call({"id": "A", "extra": True}) == "item A"  # a subset is enough
    assert mock.call({"id": "C"}) == "not found"  # the fallback
    assert mock.call({}) == "not found"


def test_a_lookup_matches_nested_subsets_without_coercion() -> None:
    mock = tool(
        [
            {"when": {"filter": {"state": "open"}}, "value": "open ones"},
            {"when": {"limit": 1}, "value": "one"},
            {"when": {"limit": True}, "value": "flag"},
            {"when": {"id": "1"}, "value": "string one"},
        ]
    )
    assert mock.call({"filter": {"state": "open", "page": 2}}) == "open ones"
    assert mock.call({"limit": 1.0}) == "one"
    assert mock.call({"limit": True}) == "flag"
    assert mock.call({"id": "1"}) == "string one"
    assert mock.call({"id": 1}).startswith("no response is scripted")


def test_a_lookup_without_fallback_answers_a_fixed_reply() -> None:
    mock = tool(LOOKUP[:2])
    assert mock.call({"id": "C", "a": [1, None]}) == (
        'no response is scripted for get_work_item with arguments {"a": [1, null], "id": "C"}'
    )


def test_the_fixed_reply_renders_values_json_cannot_encode() -> None:
    class Weird:
        def __str__(self) -> str:
            return "weird-value"

    mock = tool(LOOKUP[:1])
    assert mock.call({"id": Weird()}) == (
        'no response is scripted for get_work_item with arguments {"id": "weird-value"}'
    )


def test_unparsed_arguments_reach_the_fallback_never_a_when() -> None:
    mock = tool(LOOKUP)
    assert mock.call({"_raw": '{"id": "A"', "id": "A"}) == "not found"


def test_a_mock_never_raises_on_odd_arguments() -> None:
    mock = tool(LOOKUP[:1])
    assert mock.call(None).startswith("no response is scripted")  # type: ignore[arg-type]
    assert mock.call(["id", "A"]).endswith('arguments ["id", "A"]')  # type: ignore[arg-type]


def test_name_description_and_a_private_copy_of_the_schema() -> None:
    schema = {"type": "object", "properties": {"ids": {"type": "array"}}}
    spec = ToolSpec.model_validate(
        {"name": "t", "description": "does t", "input_schema": schema, "returns": "x"}
    )
    mock = build_mock_tools([spec])["t"]
    assert (mock.name, mock.description) == ("t", "does t")
    assert mock.schema == schema
    mock.schema["properties"]["ids"]["type"] = "string"
    assert spec.json_schema()["properties"]["ids"]["type"] == "array"


def test_the_shorthand_schema_is_closed() -> None:
    spec = ToolSpec.model_validate({"name": "t", "parameters": {"order_id": "string"}})
    assert build_mock_tools([spec])["t"].schema == {
        "type": "object",
        "properties": {"order_id": {"type": "string"}},
        "required": ["order_id"],
        "additionalProperties": False,
    }


def test_build_keys_tools_by_name() -> None:
    specs = [ToolSpec(name="a"), ToolSpec(name="b", returns="B")]
    tools = build_mock_tools(specs)
    assert list(tools) == ["a", "b"]
    assert tools["b"].call({}) == "B"
