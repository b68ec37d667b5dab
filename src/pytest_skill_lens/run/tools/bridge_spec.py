"""The spec file: the tools one bridge serves, written by the harness, read by the bridge.

It is JSON: ``{"skill_lens_bridge": 1, "tools": [...]}``, each tool with its name,
description, the schema the agent sees (a ``parameters:`` shorthand already
closed into a schema, so the bridge lists exactly what a framework runner
registers) and its ``returns:`` in any of the three shapes, written from the eval
files' own :class:`~pytest_skill_lens.suite.model.ToolSpec`.

The bridge reads it back without pydantic: it starts for every product session with
tools, and importing the eval model costs it about 85 ms a start. Its reader holds each
entry to the model's rules for the fields the spec has (strict types, no other keys;
tests/unit/test_mcp_bridge_spec.py checks that what the model refuses it refuses, and
that both answer alike), so a ``when:`` value reaches the matcher as the case declared it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...suite.model import ToolSpec

SERVER_NAME = "skill-lens"
"""The bridge's name as an MCP server: in the product's config and in every tool name the
product shows its model (``mcp__skill-lens__lookup`` and the like), which its trace
reader takes apart."""
FORMAT_KEY = "skill_lens_bridge"
FORMAT = 1
MAX_SPEC_BYTES = 64 * 1024 * 1024
"""A spec larger than this is refused rather than read: the harness never writes one."""


class SpecError(Exception):
    """The spec cannot be served; the message is one line saying why."""


@dataclass(frozen=True)
class Rule:
    """One ``when:``/``value:`` entry of a lookup; no ``when`` is the fallback."""

    when: dict[str, Any] | None
    value: str


@dataclass(frozen=True)
class BridgeTool:
    """One served tool, as the spec holds it (what :class:`.mocktools.MockTool` takes)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    returns: str | list[str] | list[Rule]

    def json_schema(self) -> dict[str, Any]:
        return self.input_schema


@dataclass(frozen=True)
class BridgeSpec:
    """The tools one bridge process serves, in their declared order."""

    tools: tuple[BridgeTool, ...]


def encode_spec(tools: Sequence[ToolSpec]) -> str:
    """The spec file's text for ``tools``; :class:`SpecError` when one cannot be served."""
    entries: list[dict[str, Any]] = []
    for tool in tools:
        _check_tool(tool)
        entries.append(
            {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.json_schema(),
                # Python mode keeps a YAML .nan or .inf in a when: value; the JSON mode
                # of pydantic would turn it into null and change what the lookup matches.
                "returns": tool.model_dump(mode="python")["returns"],
            }
        )
    _check_unique(tools)
    return json.dumps({FORMAT_KEY: FORMAT, "tools": entries}, ensure_ascii=True, indent=1)


def load_spec(path: Path) -> BridgeSpec:
    """The spec at ``path``, validated; :class:`SpecError` with one line otherwise."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SPEC_BYTES + 1)
    except OSError as exc:
        raise SpecError(f"cannot read the spec {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_SPEC_BYTES:
        raise SpecError(f"the spec {path} is over {MAX_SPEC_BYTES} bytes")
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise SpecError(f"the spec {path} is not JSON: {_one_line(str(exc))}") from None
    return parse_spec(document)


def parse_spec(document: Any) -> BridgeSpec:
    """The spec from its decoded JSON; :class:`SpecError` naming the first problem."""
    if not isinstance(document, dict) or document.get(FORMAT_KEY) != FORMAT:
        raise SpecError(f"the spec is not a skill-lens bridge spec ({FORMAT_KEY}: {FORMAT})")
    entries = document.get("tools")
    if not isinstance(entries, list):
        raise SpecError("the spec has no tools list")
    tools: list[BridgeTool] = []
    for index, entry in enumerate(entries):
        try:
            tool = _tool(entry)
        except _Bad as exc:
            raise SpecError(f"tools[{index}]: {_one_line(str(exc))}") from None
        if tool is None:
            raise SpecError(f"tools[{index}] ({entry['name']}): no input_schema")
        _check_tool(tool)
        tools.append(tool)
    _check_unique(tools)
    return BridgeSpec(tuple(tools))


class _Bad(Exception):
    """One entry breaks the model's rules: ``where: what``."""


_FIELDS = ("name", "description", "input_schema", "returns")


def _tool(entry: Any) -> BridgeTool | None:
    """One entry read by ``ToolSpec``'s rules (``None``: it has no ``input_schema``)."""
    if not isinstance(entry, dict):
        raise _Bad("(the entry): must be an object")
    for key in entry:
        if key not in _FIELDS:
            raise _Bad(f"{key}: not a field of a bridge spec's tool")
    name = entry.get("name")
    if not isinstance(name, str):
        raise _Bad("name: must be a string")
    description = entry.get("description", "")
    if not isinstance(description, str):
        raise _Bad("description: must be a string")
    returns = _returns(entry.get("returns", ""))
    schema = entry.get("input_schema")
    if schema is None:
        return None
    return BridgeTool(name, description, _mapping(schema, "input_schema"), returns)


def _returns(value: Any) -> str | list[str] | list[Rule]:
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise _Bad("returns: must be a string or a list")
    if all(isinstance(item, str) for item in value):
        return list(value)
    rules = []
    for position, item in enumerate(value):
        where = f"returns.{position}"
        if not isinstance(item, dict):
            raise _Bad(f"{where}: a list of strings or of when/value entries, not a mix")
        for key in item:
            if key not in ("when", "value"):
                raise _Bad(f"{where}.{key}: not a field of a when/value entry")
        if not isinstance(item.get("value"), str):
            raise _Bad(f"{where}.value: must be a string")
        when = item.get("when")
        rules.append(Rule(None if when is None else _mapping(when, f"{where}.when"), item["value"]))
    return rules


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise _Bad(f"{where}: must be an object")
    return value


def _check_tool(tool: ToolSpec | BridgeTool) -> None:
    schema = tool.json_schema()
    if schema.get("type") != "object":
        raise SpecError(f"tool {tool.name}: its input schema must have type: object")
    try:
        # The schema goes to the product as strict JSON, which has no NaN or infinity.
        json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"tool {tool.name}: its input schema is not plain JSON: {exc}") from None


def _check_unique(tools: Sequence[ToolSpec | BridgeTool]) -> None:
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise SpecError(f"tool {tool.name} is declared twice")
        seen.add(tool.name)


def _one_line(text: str) -> str:
    return " ".join(text.split())
