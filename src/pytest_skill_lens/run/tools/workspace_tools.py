"""The three built-in workspace tools as a framework runner registers them.

Each is a name, a description, a closed JSON schema and a ``call`` that answers
one call's arguments with a string: the :class:`~..workspace.workspace.Workspace` methods
never raise, and neither does a call with a missing or mistyped argument (the
framework may hand arguments over unvalidated). One definition here, so every
framework runner offers the agent the same tools.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..workspace.workspace import Workspace

_PATH = {"type": "string"}


@dataclass(frozen=True)
class BuiltinTool:
    name: str
    description: str
    schema: dict[str, Any]
    call: Callable[[Mapping[str, Any]], str]


def _closed(*names: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: dict(_PATH) for name in names},
        "required": list(names),
        "additionalProperties": False,
    }


def _missing(tool: str, arguments: Mapping[str, Any], *names: str) -> str | None:
    absent = [name for name in names if name not in arguments]
    if not absent:
        return None
    wanted = " and ".join(names)
    return f"refused: {tool} needs {wanted} (missing: {', '.join(absent)})"


def workspace_tools(workspace: Workspace) -> list[BuiltinTool]:
    """``list_files``, ``read_file`` and ``write_file`` over ``workspace``, in that order."""

    def list_files(arguments: Mapping[str, Any]) -> str:
        return workspace.list_files()

    def read_file(arguments: Mapping[str, Any]) -> str:
        problem = _missing("read_file", arguments, "path")
        return problem or workspace.read_file(arguments["path"])

    def write_file(arguments: Mapping[str, Any]) -> str:
        problem = _missing("write_file", arguments, "path", "content")
        return problem or workspace.write_file(arguments["path"], arguments["content"])

    return [
        BuiltinTool(
            "list_files",
            "List every file in the working directory, one relative path per line",
            _closed(),
            list_files,
        ),
        BuiltinTool(
            "read_file",
            "Read a text file. `path` is relative to the working directory",
            _closed("path"),
            read_file,
        ),
        BuiltinTool(
            "write_file",
            "Create or replace a text file. `path` is relative to the working directory; "
            "`content` is the whole text of the file",
            _closed("path", "content"),
            write_file,
        ),
    ]
