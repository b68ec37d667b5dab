"""The spec file: the tools one bridge serves, written by the harness, read by the bridge.

It is JSON: ``{"skill_lens_bridge": 1, "tools": [...]}``, each tool with its name,
description, the schema the agent sees (a ``parameters:`` shorthand already
closed into a schema, so the bridge lists exactly what a framework runner
registers) and its ``returns:`` in any of the three shapes. The bridge validates it
with the eval files' own :class:`~pytest_skill_lens.suite.model.ToolSpec`, so a
``when:`` value reaches the matcher as the case declared it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

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
class BridgeSpec:
    """The tools one bridge process serves, in their declared order."""

    tools: tuple[ToolSpec, ...]


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
    tools: list[ToolSpec] = []
    for index, entry in enumerate(entries):
        try:
            tool = ToolSpec.model_validate(entry)
        except ValidationError as exc:
            raise SpecError(f"tools[{index}]: {_first_error(exc)}") from None
        if tool.input_schema is None:
            raise SpecError(f"tools[{index}] ({tool.name}): no input_schema")
        _check_tool(tool)
        tools.append(tool)
    _check_unique(tools)
    return BridgeSpec(tuple(tools))


def _check_tool(tool: ToolSpec) -> None:
    schema = tool.json_schema()
    if schema.get("type") != "object":
        raise SpecError(f"tool {tool.name}: its input schema must have type: object")
    try:
        # The schema goes to the product as strict JSON, which has no NaN or infinity.
        json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"tool {tool.name}: its input schema is not plain JSON: {exc}") from None


def _check_unique(tools: Sequence[ToolSpec]) -> None:
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise SpecError(f"tool {tool.name} is declared twice")
        seen.add(tool.name)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "(the entry)"
    return _one_line(f"{where}: {error['msg']}")


def _one_line(text: str) -> str:
    return " ".join(text.split())
