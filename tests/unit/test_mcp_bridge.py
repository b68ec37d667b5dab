"""The MCP bridge's pure parts: dispatch, the returns: rules over MCP, framing, spec, calls file."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.mcp_bridge import jsonrpc
from pytest_skill_lens.mcp_bridge.check import self_test
from pytest_skill_lens.mcp_bridge.dispatch import PROTOCOL_VERSIONS, Dispatcher
from pytest_skill_lens.mcp_bridge.lines import Oversized, read_lines
from pytest_skill_lens.mcp_bridge.serve import serve
from pytest_skill_lens.run.tools.bridge_calls import (
    BridgeCall,
    CallsFile,
    CallsFileError,
    parse_calls,
)
from pytest_skill_lens.run.tools.bridge_spec import (
    BridgeSpec,
    SpecError,
    encode_spec,
    load_spec,
    parse_spec,
)
from pytest_skill_lens.run.tools.mocktools import unscripted_reply
from pytest_skill_lens.suite.model import ToolSpec


class Memory:
    """A recorder that keeps every event, as the calls file would."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def initialized(self, protocol_version: str, client: Mapping[str, Any]) -> None:
        self.events.append(("initialize", protocol_version, dict(client)))

    def listed(self, names: Sequence[str]) -> None:
        self.events.append(("list", list(names)))

    def called(self, name: str, arguments: Any, *, answer: str | None, error: str | None) -> None:
        self.events.append(("call", name, arguments, answer, error))

    def refused(self, size: int) -> None:
        self.events.append(("refused", size))


def spec_of(*tools: dict[str, Any]) -> BridgeSpec:
    """The spec the bridge would load: through the harness's encoder and back."""
    models = [ToolSpec.model_validate(tool) for tool in tools]
    return parse_spec(json.loads(encode_spec(models)))


LOOKUP = {
    "name": "get_work_item",
    "description": "Fetch one work item",
    "parameters": {"id": "string"},
    "returns": [
        {"when": {"id": "A"}, "value": "item A"},
        {"when": {"id": "B"}, "value": "item B"},
    ],
}


def bridge(*tools: dict[str, Any]) -> tuple[Dispatcher, Memory]:
    memory = Memory()
    return Dispatcher(spec_of(*tools), memory), memory


def request(method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def call(dispatcher: Dispatcher, name: str, arguments: Any = None) -> Any:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return dispatcher.handle(request("tools/call", params))


def answer(dispatcher: Dispatcher, name: str, arguments: Any = None) -> str:
    reply = call(dispatcher, name, arguments)
    assert reply["result"]["isError"] is False
    [content] = reply["result"]["content"]
    assert content["type"] == "text"
    text = content["text"]
    assert isinstance(text, str)
    return text


def error_of(reply: Any) -> tuple[Any, int]:
    assert "result" not in reply
    return reply["id"], reply["error"]["code"]


# --- initialize, ping, notifications -------------------------------------------------


@pytest.mark.parametrize("version", PROTOCOL_VERSIONS)
def test_initialize_echoes_a_version_the_bridge_speaks(version: str) -> None:
    dispatcher, memory = bridge()
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "claude-code"}}
    reply = dispatcher.handle(request("initialize", {**params}))
    assert reply["id"] == 1
    assert reply["result"]["protocolVersion"] == version
    assert reply["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert reply["result"]["serverInfo"]["name"] == "skill-lens"
    assert memory.events == [("initialize", version, {"name": "claude-code"})]


@pytest.mark.parametrize("asked", ["2099-01-01", None, 20250618])
def test_initialize_offers_the_newest_version_when_the_clients_is_not_spoken(asked: Any) -> None:
    dispatcher, _ = bridge()
    reply = dispatcher.handle(request("initialize", {"protocolVersion": asked}))
    assert reply["result"]["protocolVersion"] == PROTOCOL_VERSIONS[0] == "2025-11-25"


def test_the_versions_of_the_products_in_use_are_spoken() -> None:
    assert {"2025-06-18", "2025-03-26", "2024-11-05"} <= set(PROTOCOL_VERSIONS)


def test_a_clients_self_description_is_kept_short_and_textual() -> None:
    dispatcher, memory = bridge()
    info = {"name": "x" * 5000, "version": 3, "extra": "dropped"}
    dispatcher.handle(request("initialize", {"protocolVersion": "2025-06-18", "clientInfo": info}))
    assert memory.events == [("initialize", "2025-06-18", {"name": "x" * 200})]


def test_ping_answers_an_empty_result() -> None:
    dispatcher, _ = bridge()
    assert dispatcher.handle(request("ping", request_id="p-1")) == {
        "jsonrpc": "2.0",
        "id": "p-1",
        "result": {},
    }


@pytest.mark.parametrize("method", ["notifications/initialized", "notifications/cancelled", "x"])
def test_a_notification_is_never_answered(method: str) -> None:
    dispatcher, memory = bridge(LOOKUP)
    assert dispatcher.handle({"jsonrpc": "2.0", "method": method, "params": {}}) is None
    assert memory.events == []


def test_a_response_from_the_client_is_ignored() -> None:
    dispatcher, _ = bridge()
    assert dispatcher.handle({"jsonrpc": "2.0", "id": 9, "result": {}}) is None
    assert dispatcher.handle({"jsonrpc": "2.0", "id": None, "error": {"code": 1}}) is None


# --- tools/list -----------------------------------------------------------------------


def test_tools_list_shows_every_tool_with_its_description_and_schema() -> None:
    verbatim = {
        "type": "object",
        "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["q"],
    }
    dispatcher, memory = bridge(
        LOOKUP, {"name": "search", "input_schema": verbatim, "returns": "[]"}
    )
    reply = dispatcher.handle(request("tools/list"))
    assert reply["result"] == {
        "tools": [
            {
                "name": "get_work_item",
                "description": "Fetch one work item",
                # The shorthand closed exactly as a framework runner registers it.
                "inputSchema": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}},
                    "required": ["id"],
                    "additionalProperties": False,
                },
            },
            {"name": "search", "description": "", "inputSchema": verbatim},
        ]
    }
    assert memory.events == [("list", ["get_work_item", "search"])]


def test_tools_list_with_no_tools_is_an_empty_list() -> None:
    dispatcher, _ = bridge()
    assert dispatcher.handle(request("tools/list", {"cursor": "ignored"}))["result"] == {
        "tools": []
    }


# --- tools/call: the three returns: shapes --------------------------------------------


def test_one_string_answers_every_call() -> None:
    dispatcher, memory = bridge({"name": "status", "returns": '{"ok": true}'})
    answers = [answer(dispatcher, "status"), answer(dispatcher, "status", {"x": 1})]
    assert answers == ['{"ok": true}'] * 2
    assert memory.events == [
        ("call", "status", {}, '{"ok": true}', None),
        ("call", "status", {"x": 1}, '{"ok": true}', None),
    ]


def test_an_empty_string_is_an_empty_reply() -> None:
    dispatcher, _ = bridge({"name": "quiet", "returns": ""})
    assert answer(dispatcher, "quiet") == ""


def test_a_sequence_is_answered_in_call_order_and_its_last_entry_repeats() -> None:
    dispatcher, _ = bridge({"name": "poll", "returns": ["pending", "running", "done"]})
    assert [answer(dispatcher, "poll") for _ in range(5)] == [
        "pending",
        "running",
        "done",
        "done",
        "done",
    ]


def test_the_sequence_counter_belongs_to_the_process_so_a_new_bridge_starts_over() -> None:
    spec = spec_of({"name": "poll", "returns": ["first", "second"]})
    one = Dispatcher(spec, Memory())
    assert [answer(one, "poll"), answer(one, "poll")] == ["first", "second"]
    assert answer(Dispatcher(spec, Memory()), "poll") == "first"


def test_each_tool_keeps_its_own_sequence_position() -> None:
    dispatcher, _ = bridge(
        {"name": "a", "returns": ["a1", "a2"]}, {"name": "b", "returns": ["b1", "b2"]}
    )
    got = [answer(dispatcher, name) for name in ("a", "b", "a", "b")]
    assert got == ["a1", "b1", "a2", "b2"]


def test_a_lookup_answers_the_first_entry_whose_when_is_a_subset() -> None:
    dispatcher, _ = bridge(LOOKUP)
    assert answer(dispatcher, "get_work_item", {"id": "B"}) == "item B"
    assert answer(dispatcher, "get_work_item", {"id": "A", "expand": True}) == "item A"


def test_a_call_no_entry_answers_gets_the_same_text_as_under_every_runner() -> None:
    dispatcher, memory = bridge(LOOKUP)
    text = answer(dispatcher, "get_work_item", {"id": "C", "a": [1]})
    assert text == unscripted_reply("get_work_item", {"id": "C", "a": [1]})
    assert text == 'no response is scripted for get_work_item with arguments {"a": [1], "id": "C"}'
    assert memory.events[-1] == ("call", "get_work_item", {"id": "C", "a": [1]}, text, None)


def test_a_fallback_answers_every_other_call() -> None:
    returns = [*LOOKUP["returns"], {"value": '{"error": "not found"}'}]
    dispatcher, _ = bridge({**LOOKUP, "returns": returns})
    assert answer(dispatcher, "get_work_item", {"id": "Z"}) == '{"error": "not found"}'
    assert answer(dispatcher, "get_work_item") == '{"error": "not found"}'


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"id": 1}, "integer"),
        ({"id": 1.0}, "integer"),  # JSON does not tell 1 from 1.0
        ({"id": "1"}, "string"),
        ({"id": True}, "boolean"),
        ({"id": 0}, "none"),
    ],
)
def test_when_compares_json_values_without_coercion(arguments: Any, expected: str) -> None:
    returns = [
        {"when": {"id": 1}, "value": "integer"},
        {"when": {"id": "1"}, "value": "string"},
        {"when": {"id": True}, "value": "boolean"},
        {"value": "none"},
    ]
    dispatcher, _ = bridge({"name": "t", "input_schema": {"type": "object"}, "returns": returns})
    assert answer(dispatcher, "t", arguments) == expected


def test_when_matches_nested_mappings_by_subset_and_lists_by_element() -> None:
    returns = [
        {"when": {"filter": {"state": "open"}, "labels": ["a", "b"]}, "value": "open ab"},
        {"value": "other"},
    ]
    dispatcher, _ = bridge({"name": "t", "input_schema": {"type": "object"}, "returns": returns})
    hit = {"filter": {"state": "open", "owner": "me"}, "labels": ["a", "b"]}
    assert answer(dispatcher, "t", hit) == "open ab"
    assert answer(dispatcher, "t", {**hit, "labels": ["a", "b", "c"]}) == "other"
    assert answer(dispatcher, "t", {**hit, "filter": "open"}) == "other"


def test_a_nan_in_when_survives_the_spec_and_never_matches() -> None:
    returns = [{"when": {"x": float("nan")}, "value": "nan"}, {"value": "fallback"}]
    spec = spec_of({"name": "t", "input_schema": {"type": "object"}, "returns": returns})
    rule = spec.tools[0].returns[0]
    assert not isinstance(rule, str)
    assert rule.when is not None and rule.when["x"] != rule.when["x"]
    assert answer(Dispatcher(spec, Memory()), "t", {"x": 1}) == "fallback"


# --- tools/call: errors ---------------------------------------------------------------


def test_an_unknown_tool_is_an_invalid_params_error_and_is_recorded() -> None:
    dispatcher, memory = bridge(LOOKUP)
    assert error_of(call(dispatcher, "delete_everything", {"a": 1})) == (1, jsonrpc.INVALID_PARAMS)
    assert memory.events == [
        ("call", "delete_everything", {"a": 1}, None, "unknown tool: delete_everything")
    ]


@pytest.mark.parametrize("arguments", [["A"], "A", 3])
def test_arguments_that_are_not_an_object_are_refused_and_recorded(arguments: Any) -> None:
    dispatcher, memory = bridge(LOOKUP)
    assert error_of(call(dispatcher, "get_work_item", arguments))[1] == jsonrpc.INVALID_PARAMS
    [event] = memory.events
    assert event[:3] == ("call", "get_work_item", arguments) and event[3] is None


def test_refused_arguments_do_not_advance_a_sequence() -> None:
    dispatcher, _ = bridge({"name": "poll", "returns": ["first", "second"]})
    call(dispatcher, "poll", ["bad"])
    assert answer(dispatcher, "poll") == "first"


@pytest.mark.parametrize("params", [{}, {"name": 7}, {"name": None}])
def test_a_call_without_a_string_name_is_invalid_params(params: Any) -> None:
    dispatcher, memory = bridge(LOOKUP)
    assert error_of(dispatcher.handle(request("tools/call", params))) == (1, jsonrpc.INVALID_PARAMS)
    assert memory.events == []


def test_params_that_are_not_an_object_are_invalid_params() -> None:
    dispatcher, _ = bridge(LOOKUP)
    assert error_of(dispatcher.handle(request("tools/list", ["x"])))[1] == jsonrpc.INVALID_PARAMS


def test_an_unknown_method_is_method_not_found() -> None:
    dispatcher, _ = bridge()
    reply = dispatcher.handle(request("resources/list", request_id="r"))
    assert error_of(reply) == ("r", jsonrpc.METHOD_NOT_FOUND)
    assert "resources/list" in reply["error"]["message"]


@pytest.mark.parametrize(
    ("message", "reply_id"),
    [
        ("a string", None),
        (42, None),
        ({"id": 3, "method": "ping"}, 3),  # no "jsonrpc": "2.0"
        ({"jsonrpc": "1.0", "id": 3, "method": "ping"}, 3),
        ({"jsonrpc": "2.0", "id": 3, "method": 5}, 3),
        ({"jsonrpc": "2.0", "id": 3}, 3),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None),
    ],
)
def test_a_message_that_is_not_a_request_is_invalid_request(message: Any, reply_id: Any) -> None:
    dispatcher, _ = bridge()
    assert error_of(dispatcher.handle(message)) == (reply_id, jsonrpc.INVALID_REQUEST)


def test_a_batch_is_answered_as_a_list_without_its_notifications() -> None:
    dispatcher, _ = bridge({"name": "poll", "returns": ["one", "two"]})
    batch = [
        request("ping", request_id=1),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        request("tools/call", {"name": "poll"}, request_id=2),
        "junk",
    ]
    replies = dispatcher.handle(batch)
    assert [reply["id"] for reply in replies] == [1, 2, None]
    assert replies[1]["result"]["content"][0]["text"] == "one"
    assert dispatcher.handle([{"jsonrpc": "2.0", "method": "notifications/x"}]) is None
    assert error_of(dispatcher.handle([])) == (None, jsonrpc.INVALID_REQUEST)


class Broken(Memory):
    def __init__(self, failure: Exception) -> None:
        super().__init__()
        self.failure = failure

    def listed(self, names: Sequence[str]) -> None:
        raise self.failure


def test_a_bug_costs_one_internal_error_reply_not_the_session() -> None:
    dispatcher = Dispatcher(spec_of(LOOKUP), Broken(RuntimeError("boom")))
    reply = dispatcher.handle(request("tools/list"))
    assert error_of(reply) == (1, jsonrpc.INTERNAL_ERROR)
    assert "RuntimeError: boom" in reply["error"]["message"]
    assert dispatcher.handle(request("ping"))["result"] == {}


def test_a_calls_file_that_cannot_be_written_stops_the_bridge() -> None:
    dispatcher = Dispatcher(spec_of(LOOKUP), Broken(CallsFileError("disk full")))
    with pytest.raises(CallsFileError):
        dispatcher.handle(request("tools/list"))


# --- framing --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [b"garbage", b"{", b'{"a": NaN}', b"[Infinity]", b"\xff\xfe\x00", b"[" * 100_000, b'"\xc3"'],
)
def test_decode_refuses_anything_strict_json_does_not_allow(line: bytes) -> None:
    with pytest.raises(jsonrpc.ParseError):
        jsonrpc.decode(line)


def test_a_huge_integer_is_a_parse_error_not_a_crash() -> None:
    with pytest.raises(jsonrpc.ParseError):
        jsonrpc.decode(b"1" * 5000)


def test_encode_is_one_ascii_line_even_for_a_lone_surrogate() -> None:
    line = jsonrpc.encode({"text": "caf\u00e9 \ud800 \n"})
    assert b"\n" not in line
    assert json.loads(line) == {"text": "caf\u00e9 \ud800 \n"}


def test_read_lines_splits_on_newlines_and_keeps_a_last_line_without_one() -> None:
    stream = io.BytesIO(b'{"a":1}\n\n{"b":2}\r\n{"c":3}')
    assert list(read_lines(stream, 100)) == [b'{"a":1}', b"", b'{"b":2}\r', b'{"c":3}']


def test_a_line_at_the_limit_is_read_and_one_byte_more_is_refused() -> None:
    stream = io.BytesIO(b"x" * 10 + b"\n" + b"y" * 11 + b"\nok\n")
    assert list(read_lines(stream, 10)) == [b"x" * 10, Oversized(11, None), b"ok"]


def test_an_oversized_line_is_skipped_and_the_id_at_its_end_is_kept() -> None:
    huge = b'{"method":"tools/call","params":{"arguments":{"x":"' + b"z" * 500_000
    lines = [huge + b'"}},"jsonrpc":"2.0","id":17}', huge + b'"}},"id":"req-9" }', huge]
    stream = io.BytesIO(b"\n".join(lines) + b"\n" + b'{"after":true}')
    found = list(read_lines(stream, 1000))
    assert found == [
        Oversized(len(lines[0]), 17),
        Oversized(len(lines[1]), "req-9"),
        Oversized(len(lines[2]), None),
        b'{"after":true}',
    ]


def test_an_id_inside_a_nested_object_is_not_taken_for_the_requests() -> None:
    line = b'{"jsonrpc":"2.0","id":1,"params":{"x":"' + b"a" * 2000 + b'","id":5}}'
    assert list(read_lines(io.BytesIO(line), 100)) == [Oversized(len(line), None)]


def run_serve(dispatcher: Dispatcher, data: bytes, limit: int = 1000) -> list[Any]:
    out = io.BytesIO()
    serve(dispatcher, io.BytesIO(data), out, limit=limit)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_serve_answers_a_parse_error_and_keeps_serving() -> None:
    dispatcher, _ = bridge(LOOKUP)
    data = b"this is not json\n\n" + jsonrpc.encode(request("ping", request_id=2)) + b"\n"
    replies = run_serve(dispatcher, data)
    assert [error_of(replies[0]), replies[1]] == [
        (None, jsonrpc.PARSE_ERROR),
        {"jsonrpc": "2.0", "id": 2, "result": {}},
    ]


def test_serve_refuses_an_oversized_line_by_its_id_and_records_it() -> None:
    dispatcher, memory = bridge(LOOKUP)
    # The id last, as the MCP SDKs write a request.
    params = {"name": "get_work_item", "arguments": {"id": "A" * 5000}}
    huge = jsonrpc.encode({"method": "tools/call", "params": params, "jsonrpc": "2.0", "id": 7})
    data = huge + b"\n" + jsonrpc.encode(request("ping", request_id=8)) + b"\n"
    replies = run_serve(dispatcher, data)
    assert error_of(replies[0]) == (7, jsonrpc.INVALID_REQUEST)
    assert "over the bridge's limit of 1000" in replies[0]["error"]["message"]
    assert replies[1]["id"] == 8
    assert memory.events == [("refused", len(huge))]


def test_serve_returns_at_eof() -> None:
    dispatcher, _ = bridge()
    assert run_serve(dispatcher, b"") == []


# --- the spec file --------------------------------------------------------------------


def test_the_spec_round_trips_every_returns_shape() -> None:
    tools = [
        {"name": "one", "returns": "x"},
        {"name": "seq", "returns": ["a", "b"]},
        LOOKUP,
    ]
    spec = spec_of(*tools)
    assert [tool.returns for tool in spec.tools][:2] == ["x", ["a", "b"]]
    declared = ToolSpec.model_validate(LOOKUP).returns
    assert isinstance(spec.tools[2].returns, list) and isinstance(declared, list)
    served = [
        (rule.when, rule.value) for rule in spec.tools[2].returns if not isinstance(rule, str)
    ]
    assert served == [(rule.when, rule.value) for rule in declared if not isinstance(rule, str)]
    assert spec.tools[2].json_schema() == ToolSpec.model_validate(LOOKUP).json_schema()


def test_load_spec_reads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(encode_spec([ToolSpec.model_validate(LOOKUP)]), encoding="utf-8")
    assert [tool.name for tool in load_spec(path).tools] == ["get_work_item"]


@pytest.mark.parametrize(
    ("document", "says"),
    [
        ([], "not a skill-lens bridge spec"),
        ({"skill_lens_bridge": 2, "tools": []}, "not a skill-lens bridge spec"),
        ({"skill_lens_bridge": 1}, "no tools list"),
        ({"skill_lens_bridge": 1, "tools": [{"name": 1}]}, "tools[0]: name"),
        ({"skill_lens_bridge": 1, "tools": [{"name": "a", "typo": 1}]}, "tools[0]: typo"),
        ({"skill_lens_bridge": 1, "tools": [{"name": "a"}]}, "no input_schema"),
        (
            {"skill_lens_bridge": 1, "tools": [{"name": "a", "input_schema": {"type": "string"}}]},
            "must have type: object",
        ),
        (
            {
                "skill_lens_bridge": 1,
                "tools": [
                    {"name": "a", "input_schema": {"type": "object", "maximum": float("inf")}}
                ],
            },
            "not plain JSON",
        ),
        (
            {
                "skill_lens_bridge": 1,
                "tools": [{"name": "a", "input_schema": {"type": "object"}}] * 2,
            },
            "declared twice",
        ),
    ],
)
def test_a_bad_spec_is_one_line_naming_the_problem(document: Any, says: str) -> None:
    with pytest.raises(SpecError) as raised:
        parse_spec(document)
    assert says in str(raised.value)
    assert "\n" not in str(raised.value)


def test_load_spec_names_an_unreadable_or_broken_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="cannot read the spec"):
        load_spec(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"skill_lens_bridge": 1,')
    with pytest.raises(SpecError, match="is not JSON"):
        load_spec(broken)


def test_load_spec_refuses_a_file_over_its_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_skill_lens.run.tools.bridge_spec.MAX_SPEC_BYTES", 10)
    path = tmp_path / "spec.json"
    path.write_text(encode_spec([]), encoding="utf-8")
    with pytest.raises(SpecError, match="over 10 bytes"):
        load_spec(path)


def test_encode_spec_refuses_a_duplicate_tool() -> None:
    tool = ToolSpec.model_validate(LOOKUP)
    with pytest.raises(SpecError, match="declared twice"):
        encode_spec([tool, tool])


# --- the calls file -------------------------------------------------------------------


def test_the_calls_file_reads_back_what_was_written(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    with CallsFile.open(path) as calls:
        calls.initialized("2025-06-18", {"name": "claude-code"})
        calls.listed(["a"])
        calls.called("a", {"id": "\ud800"}, answer="x", error=None)
        calls.called("b", {}, answer=None, error="unknown tool: b")
        calls.refused(5_000_000)
    log = parse_calls(path.read_bytes())
    assert (log.started, log.listed, log.refused, log.complete) == (True, True, 1, True)
    assert log.calls == (
        BridgeCall("a", {"id": "\ud800"}, "x", None),
        BridgeCall("b", {}, None, "unknown tool: b"),
    )


def test_an_empty_calls_file_is_a_bridge_that_never_started() -> None:
    log = parse_calls(b"")
    assert (log.started, log.listed, log.calls, log.complete) == (False, False, (), True)


def test_damaged_lines_are_counted_never_read_as_calls(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    good = {"event": "call", "name": "a", "arguments": {}, "answer": "x", "error": None}
    lines = [
        json.dumps(good),
        "not json",
        json.dumps({"event": "call", "name": "a", "arguments": {}, "answer": "x", "error": "y"}),
        json.dumps({"event": "call", "name": 3, "arguments": {}, "answer": "x", "error": None}),
        json.dumps({"event": "surprise"}),
        json.dumps([1]),
    ]
    path.write_text("\n".join(lines) + '\n{"event": "call", "na', encoding="utf-8")
    log = parse_calls(path.read_bytes())
    assert log.calls == (BridgeCall("a", {}, "x", None),)
    assert (log.damaged, log.truncated, log.complete) == (6, False, False)


def test_a_calls_file_over_the_cap_is_read_up_to_it_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    with CallsFile.open(path) as calls:
        for _ in range(100):
            calls.called("a", {}, answer="x" * 50, error=None)
    log = parse_calls(path.read_bytes()[:1001], max_bytes=1000)
    assert 0 < len(log.calls) < 100
    assert (log.truncated, log.damaged, log.complete) == (True, 0, False)


def test_the_calls_file_refuses_a_planted_link(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("", encoding="utf-8")
    (tmp_path / "calls.jsonl").symlink_to(target)
    with pytest.raises(CallsFileError, match="cannot open the calls file"):
        CallsFile.open(tmp_path / "calls.jsonl")


# --- the self-test --------------------------------------------------------------------


def test_the_self_test_passes_a_servable_spec() -> None:
    assert self_test(spec_of(LOOKUP, {"name": "poll", "returns": ["a"]})) is None
    assert self_test(spec_of()) is None
