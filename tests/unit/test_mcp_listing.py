"""``mcp-import``'s reader and writer: the accepted shapes, every refusal, and a library the
loader reads back with each ``inputSchema`` verbatim."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.authoring.json_input import MAX_INPUT_BYTES, InputError, parse_json
from pytest_skill_lens.authoring.mcp_listing import (
    ListingBounds,
    checked_tools,
    library_text,
    listing_entries,
)
from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.loader import load_yaml_eval_file
from pytest_skill_lens.suite.rules import PLACEHOLDER
from pytest_skill_lens.suite.yamlload import load_yaml_text

PR_SCHEMA = {
    "type": "object",
    "properties": {
        "owner": {"type": "string", "description": "Who owns it: a user # or an org"},
        "pull_number": {"type": "integer", "minimum": 1},
        "labels": {"type": "array", "items": {"type": "string", "enum": ["yes", "no", "on"]}},
        "$defs-ish": {"$ref": "#/$defs/when"},
    },
    "required": ["owner", "pull_number"],
    "$defs": {"when": {"type": ["string", "null"], "default": None}},
    "additionalProperties": False,
}
TOOLS = [
    {
        "name": "get-pull-request",
        "description": "Get a pull request:\nits title, # and state",
        "inputSchema": PR_SCHEMA,
        "outputSchema": {"type": "object", "properties": {"title": {"type": "string"}}},
    },
    {"name": "list_orders", "inputSchema": {"type": "object"}},
    {"name": "blank", "description": "  ", "inputSchema": {"type": "object"}},
]


def _library(value: Any, names: tuple[str, ...] = ()) -> str:
    return library_text(checked_tools(listing_entries(value, "l.json"), "l.json", names), "l.json")


@pytest.mark.parametrize(
    "shape",
    [
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": TOOLS}},
        {"tools": TOOLS},
        TOOLS,
        {"result": {"tools": TOOLS, "nextCursor": ""}},  # an empty cursor: the last page
    ],
    ids=["response", "result", "array", "last-page"],
)
def test_each_accepted_shape_gives_the_same_library(shape: Any) -> None:
    assert _library(shape) == _library(TOOLS)


def test_the_library_holds_names_descriptions_and_schemas_verbatim() -> None:
    data = load_yaml_text(_library(TOOLS), Path("lib.yaml"))
    assert list(data) == ["tools"]
    first, second, third = data["tools"]
    assert first == {
        "name": "get-pull-request",
        "description": "Get a pull request:\nits title, # and state",
        "input_schema": PR_SCHEMA,
        "returns": PLACEHOLDER,
    }
    assert second["description"] == PLACEHOLDER  # missing
    assert third["description"] == PLACEHOLDER  # blank


def test_the_output_schema_is_two_comment_lines_of_sorted_json() -> None:
    text = _library(TOOLS)
    lines = text.splitlines()
    at = lines.index(
        "    # outputSchema, as the server declares it (not checked against returns:):"
    )
    assert lines[at + 1] == (
        '    # {"properties": {"title": {"type": "string"}}, "type": "object"}'
    )
    assert lines[at + 2].startswith("    returns: TODO(skill-lens)")
    assert text.startswith("# A tool library from the MCP tools/list listing of l.json")


def test_tool_picks_keep_listing_order_and_skip_broken_entries() -> None:
    listing = [*TOOLS, {"name": "bad name", "inputSchema": {"type": "object"}}, 7]
    data = load_yaml_text(_library(listing, ("list_orders", "get-pull-request")), Path("l"))
    assert [tool["name"] for tool in data["tools"]] == ["get-pull-request", "list_orders"]


def test_an_empty_selection_is_an_empty_list() -> None:
    assert _library([]).splitlines()[-1] == "tools: []"


@pytest.mark.parametrize(
    ("value", "names", "message"),
    [
        (
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}},
            (),
            "is an error response, not a listing: nope (code -32601)",
        ),
        ({"result": {"tools": TOOLS, "nextCursor": "page-2"}}, (), "it has a nextCursor"),
        ({"items": []}, (), "is not a tools/list listing (no tools list)"),
        ("tools", (), "is not a tools/list listing"),
        ([3], (), "l.json: tools[0] is not an object"),
        ([{"description": "x"}], (), "l.json: tools[0] has no name"),
        (
            [{"name": "a b", "inputSchema": {"type": "object"}}],
            (),
            "tools[0] ('a b'): the name is not accepted by providers",
        ),
        ([{"name": "x" * 65, "inputSchema": {"type": "object"}}], (), "not accepted by providers"),
        ([{"name": "a"}], (), "tools[0] ('a'): inputSchema is missing"),
        ([{"name": "a", "inputSchema": []}], (), "inputSchema is not an object"),
        (
            [{"name": "a", "inputSchema": {"type": "string"}}],
            (),
            "must have top-level type: object",
        ),
        (
            [{"name": "a", "inputSchema": {"type": "object", "required": "x"}}],
            (),
            "inputSchema is not a valid JSON Schema (Draft 2020-12)",
        ),
        (
            [{"name": "a", "description": 3, "inputSchema": {"type": "object"}}],
            (),
            "description is not text",
        ),
        ([{"name": "a", "inputSchema": {"type": "object"}}] * 2, (), "the name repeats tools[0]"),
        (
            TOOLS,
            ("nope",),
            "--tool 'nope' is not in l.json (its tools: blank, get-pull-request, list_orders)",
        ),
    ],
)
def test_every_listing_problem_is_refused(value: Any, names: tuple[str, ...], message: str) -> None:
    with pytest.raises(InputError) as refused:
        _library(value, names)
    assert message in refused.value.message
    assert refused.value.fix


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xff\xfe", "is not UTF-8 text"),
        (b"{", "is not valid JSON"),
        (b'[{"name": "a", "inputSchema": {"type": "object", "maximum": NaN}}]', "NaN is not JSON"),
        (b'["\\ud800"]', "lone surrogate"),
        (b"[" * 150 + b"]" * 150, "nested more than 100 levels"),
    ],
)
def test_unreadable_input_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_json(data, "l.json")
    assert message in refused.value.message


def test_a_byte_order_mark_is_skipped() -> None:
    assert parse_json(b"\xef\xbb\xbf[]", "l.json") == []


def test_the_library_loads_as_a_case_tools_list_and_as_a_library_once_filled(
    tmp_path: Path,
) -> None:
    text = _library(TOOLS).replace(f"description: {PLACEHOLDER}", "description: a mock tool")
    text = text.replace(f"returns: {PLACEHOLDER}", "returns: '{\"ok\": true}'")
    assert all(PLACEHOLDER not in line for line in text.splitlines() if line[:1] != "#")
    library = tmp_path / "shared" / "server.yaml"
    library.parent.mkdir()
    library.write_text(text, encoding="utf-8")
    eval_file = tmp_path / "cases.yaml"
    eval_file.write_text(
        "tool_libraries: [shared/server.yaml]\n"
        "cases:\n"
        "  - name: uses the library\n"
        "    task: t\n"
        "    tools:\n"
        "      - ref: get-pull-request\n"
        "      - ref: list_orders\n"
        "        returns: '[]'\n",
        encoding="utf-8",
    )
    (case,) = load_yaml_eval_file(eval_file, "s")
    assert case.case.tools[0].input_schema == PR_SCHEMA
    assert case.case.tools[1].returns == "[]"

    # The same block pasted under a case's tools: loads too.
    tools = load_yaml_text(text, library)["tools"]
    inline = tmp_path / "inline.yaml"
    inline.write_text(
        json.dumps({"cases": [{"name": "inline", "task": "t", "tools": tools}]}), encoding="utf-8"
    )
    (case,) = load_yaml_eval_file(inline, "s")
    assert [tool.name for tool in case.case.tools] == ["get-pull-request", "list_orders", "blank"]


def test_an_unfilled_library_is_refused_by_the_loader(tmp_path: Path) -> None:
    (tmp_path / "lib.yaml").write_text(_library(TOOLS), encoding="utf-8")
    eval_file = tmp_path / "cases.yaml"
    eval_file.write_text(
        "tool_libraries: [lib.yaml]\ncases:\n  - name: c\n    task: t\n"
        "    tools: [{ref: list_orders}]\n",
        encoding="utf-8",
    )
    with pytest.raises(AuthoringError) as refused:
        load_yaml_eval_file(eval_file, "s")
    assert PLACEHOLDER in refused.value.message


# A live listing's bounds (issue 29 item 10): pages, tools and bytes, each cut said where.


def test_a_listing_within_its_bounds_passes() -> None:
    bounds = ListingBounds(pages=3, tools=10, size=1000)
    bounds.take_bytes(400)
    bounds.start_listing()
    bounds.take_page(4)
    bounds.take_bytes(600)
    bounds.take_page(6)
    assert (bounds.pages, bounds.tools, bounds.received) == (2, 10, 1000)


@pytest.mark.parametrize(
    ("steps", "message", "fix"),
    [
        (
            [("page", 6), ("page", 5)],
            "the server's listing passed 10 tools on tools/list page 2 (11 tools read, later "
            "pages unread): the listing was cut there, and nothing was written",
            "name the tools you need with --tool",
        ),
        (
            [("page", 1)] * 4,
            "the server's listing runs past 3 pages (3 tools read): the listing was cut "
            "there, and nothing was written",
            "fix the server's paging",
        ),
        (
            [("page", 2), ("bytes", 1001)],
            "the server sent more than 1,000 bytes (the cap, as for a listing file) by "
            "tools/list page 2, after 2 tools: the listing was cut there, and nothing was written",
            "name the tools you need with --tool",
        ),
    ],
    ids=["tools", "pages", "bytes"],
)
def test_a_listing_past_a_bound_is_cut_and_says_where(
    steps: list[tuple[str, int]], message: str, fix: str
) -> None:
    bounds = ListingBounds(pages=3, tools=10, size=1000)
    bounds.start_listing()
    with pytest.raises(InputError) as cut:
        for kind, amount in steps:
            if kind == "page":
                bounds.take_page(amount)
            else:
                bounds.take_bytes(amount)
    assert cut.value.message == message
    assert fix in cut.value.fix


def test_a_flood_before_the_listing_is_cut_during_the_handshake() -> None:
    bounds = ListingBounds(pages=3, tools=10, size=1000)
    with pytest.raises(InputError) as cut:
        bounds.take_bytes(5000)
    assert cut.value.message.startswith(
        "the server sent more than 1,000 bytes (the cap, as for a listing file) during the "
        "MCP handshake"
    )


def test_the_live_bounds_are_the_file_cap_and_generous_counts() -> None:
    bounds = ListingBounds()
    assert (bounds.max_pages, bounds.max_tools, bounds.max_bytes) == (1000, 10_000, 16 << 20)
    assert bounds.max_bytes == MAX_INPUT_BYTES
