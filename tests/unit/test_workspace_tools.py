from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.run.tools.workspace_tools import BuiltinTool, workspace_tools
from pytest_skill_lens.run.workspace.workspace import Limits, Workspace


@pytest.fixture
def tools(tmp_path: Path) -> dict[str, BuiltinTool]:
    workspace = Workspace.attach(tmp_path, Limits(max_file_bytes=10))
    return {tool.name: tool for tool in workspace_tools(workspace)}


def test_three_tools_in_order_with_closed_schemas(tmp_path: Path) -> None:
    built = workspace_tools(Workspace.attach(tmp_path))
    assert [t.name for t in built] == ["list_files", "read_file", "write_file"]
    for tool in built:
        assert tool.schema["type"] == "object"
        assert tool.schema["additionalProperties"] is False
        assert tool.schema["required"] == list(tool.schema["properties"])
        assert all(p == {"type": "string"} for p in tool.schema["properties"].values())
    assert [list(t.schema["properties"]) for t in built] == [[], ["path"], ["path", "content"]]


def test_calls_go_to_the_workspace(tools: dict[str, BuiltinTool], tmp_path: Path) -> None:
    write, read, listing = tools["write_file"], tools["read_file"], tools["list_files"]
    assert write.call({"path": "a/b.txt", "content": "hi"}) == "wrote 2 bytes to a/b.txt"
    assert (tmp_path / "a" / "b.txt").read_text() == "hi"
    assert read.call({"path": "a/b.txt"}) == "hi"
    assert listing.call({}) == "a/b.txt"


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("read_file", {}, "refused: read_file needs path (missing: path)"),
        (
            "write_file",
            {"path": "x"},
            "refused: write_file needs path and content (missing: content)",
        ),
        ("read_file", {"path": 3}, "refused: a path is text, not int"),
        ("write_file", {"path": "x", "content": None}, "refused: content is text, not NoneType"),
        ("write_file", {"path": "x", "content": "x" * 11}, "max_file_bytes is 10"),
        ("read_file", {"path": "../x"}, "which would leave the workspace"),
    ],
)
def test_a_bad_call_is_answered_never_raised(
    tools: dict[str, BuiltinTool], name: str, arguments: dict[str, object], said: str
) -> None:
    assert said in tools[name].call(arguments)
