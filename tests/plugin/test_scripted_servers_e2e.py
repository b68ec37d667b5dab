"""The scripted model servers name every tool call apart, as a real provider does.

A product's trace reader takes a repeated call id for one call reported twice (a start
and an end event), so a server that numbered each reply's calls from 0 would make the
second call of a two-call script vanish from the report. Each server is asked twice
for a tool call over HTTP, and one real product (OpenCode, the quickest to start) is
driven through two tool-call replies in a row.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from anthropic_server import AnthropicServer, tool_use
from gemini_server import GeminiServer, function_calls
from model_server import ScriptedModelServer, text, tool_calls
from product_harness import ProductRun, opencode_env  # noqa: F401 (fixture)
from product_scenarios import ORDERS
from responses_server import ResponsesServer, calls
from scripted_server import ScriptedServer

TASK = "look twice"
OTHER = "look again, twice"  # another conversation, answered by content


def post(url: str, body: Mapping[str, Any]) -> str:
    """The raw response to a POST of ``body`` (JSON, or a server-sent stream)."""
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(response.read().decode())


def anthropic_ids(server: ScriptedServer, task: str = TASK) -> list[str]:
    assert isinstance(server, AnthropicServer)
    body = {"messages": [{"role": "user", "content": task}]}
    reply = json.loads(post(f"{server.url}/v1/messages", body))
    return [block["id"] for block in reply["content"]]


def anthropic_streamed_ids(server: ScriptedServer, task: str = TASK) -> list[str]:
    assert isinstance(server, AnthropicServer)
    body = {"messages": [{"role": "user", "content": task}], "stream": True}
    events = [
        json.loads(line.removeprefix("data: "))
        for line in post(f"{server.url}/v1/messages", body).splitlines()
        if line.startswith("data: ")
    ]
    return [e["content_block"]["id"] for e in events if e["type"] == "content_block_start"]


def chat_ids(server: ScriptedServer, task: str = TASK) -> list[str]:
    assert isinstance(server, ScriptedModelServer)
    body = {"messages": [{"role": "user", "content": task}]}
    reply = json.loads(post(f"{server.url}/chat/completions", body))
    return [call["id"] for call in reply["choices"][0]["message"]["tool_calls"]]


def responses_ids(server: ScriptedServer, task: str = TASK) -> list[str]:
    assert isinstance(server, ResponsesServer)
    body = {"input": [{"type": "message", "role": "user", "content": [{"text": task}]}]}
    events = [
        json.loads(line.removeprefix("data: "))
        for line in post(f"{server.url}/responses", body).splitlines()
        if line.startswith("data: ")
    ]
    return [e["item"]["call_id"] for e in events if e["type"] == "response.output_item.done"]


def gemini_ids(server: ScriptedServer, task: str = TASK) -> list[str]:
    assert isinstance(server, GeminiServer)
    body = {"contents": [{"role": "user", "parts": [{"text": task}]}]}
    reply = json.loads(post(f"{server.url}/v1beta/models/m:generateContent", body))
    parts = reply["candidates"][0]["content"]["parts"]
    return [part["functionCall"]["id"] for part in parts]


Asks = Callable[[ScriptedServer, str], list[str]]
TWO = [("look", {"at": 1}), ("look", {"at": 2})]
SERVERS: dict[str, tuple[Callable[[], ScriptedServer], Any, Asks]] = {
    "anthropic": (AnthropicServer, tool_use(TWO), anthropic_ids),
    "anthropic streamed": (AnthropicServer, tool_use(TWO), anthropic_streamed_ids),
    "chat completions": (
        ScriptedModelServer,
        tool_calls([(name, json.dumps(args)) for name, args in TWO]),
        chat_ids,
    ),
    "responses": (ResponsesServer, calls(TWO), responses_ids),
    "gemini": (GeminiServer, function_calls(TWO), gemini_ids),
}


@pytest.mark.parametrize("kind", list(SERVERS))
def test_each_reply_and_each_conversation_gets_call_ids_of_its_own(kind: str) -> None:
    make, reply, ids_of = SERVERS[kind]
    with make() as server:
        # The last reply repeats: the same script entry, served three times.
        server.script[TASK] = [reply]
        served = [ids_of(server, TASK) for _ in range(3)]
        # Another conversation, answered by content, is numbered apart from the first too.
        server.by_content["again"] = [reply]
        served.append(ids_of(server, OTHER))
    every = [call_id for ids in served for call_id in ids]
    assert [len(ids) for ids in served] == [2, 2, 2, 2]
    assert len(set(every)) == len(every), every


def test_an_id_the_script_sets_is_kept() -> None:
    reply = tool_use([("look", {})])
    reply["content"][0]["id"] = "toolu_mine"
    with AnthropicServer({TASK: [reply]}) as server:
        assert anthropic_ids(server) == anthropic_ids(server) == ["toolu_mine"]


@pytest.mark.slow  # starts the real OpenCode
@pytest.mark.usefixtures("products_on_path", "opencode_env")
def test_two_tool_call_replies_in_a_row_both_reach_the_report(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    def get_order(order_id: str) -> tuple[str, str]:
        # OpenCode names a bridged tool "skill-lens_<name>"; the report maps it back.
        return ("skill-lens_get_order", json.dumps({"id": order_id}))

    server.by_content["check two orders"] = [
        tool_calls([get_order("A-1")]),
        tool_calls([get_order("B-2")]),
        text("A-1 shipped; B-2 is unknown."),
    ]
    case = {
        "name": "checks both",
        "task": "check two orders: A-1 and B-2",
        "tools": [ORDERS],
        "trajectory": {"called": ["get_order"]},
    }
    result, outcomes = ProductRun("opencode", skill="orders")(pytester, [case])

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["checks both"]
    assert outcome["status"] == "passed"
    assert outcome["tool_calls"] == [
        {"name": "get_order", "arguments": {"id": "A-1"}},
        {"name": "get_order", "arguments": {"id": "B-2"}},
    ]
    last = [r for r in server.requests if "check two orders" in r.task][-1]
    answers = [m["content"] for m in last.messages("tool")]
    assert answers == ["order A-1 shipped", "no such order"]
