"""``mcp-import``'s logic: an MCP ``tools/list`` listing checked, then written as a tool library.

The library holds each tool's ``name`` as the server spells it, its ``description`` and its
``inputSchema`` verbatim as ``input_schema``, so a mock has the real server's contract. The
server's ``outputSchema`` is shown as a comment only (nothing checks a mock's reply against
it), and ``returns:`` is the placeholder, because what a mock answers is the author's call.
Every listing problem is an :class:`InputError`: no half-written library. A live listing
is read within :class:`ListingBounds`, and one past them is refused the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..suite.schemas import schema_problem
from ..suite.tool_rules import TOOL_NAME
from .json_input import MAX_INPUT_BYTES, InputError, one_line_json
from .yaml_emit import Todo, check_round_trip, comment, mapping_lines, scalar

MAX_LIVE_PAGES = 1000
MAX_LIVE_TOOLS = 10_000
"""Far above any real server (the largest list a few hundred tools); far below what would
hold the client's memory: every tool is kept until the listing ends."""
_CUT = ": the listing was cut there, and nothing was written"
_NAME_THEM = (
    "name the tools you need with --tool (paging stops once each one is found), "
    "or fix the server's paging"
)

_SHAPES = (
    'a tools/list response {"result": {"tools": [...]}}, its result {"tools": [...]}, '
    "or the array of tools itself"
)


@dataclass(frozen=True)
class ListedTool:
    """One tool of a listing, checked."""

    name: str
    description: str | None  # None: missing or blank, written as the placeholder
    input_schema: dict[str, Any]
    output_schema: Any = None
    has_output_schema: bool = False


class ListingBounds:
    """How much of a live server's listing is read: pages, tools and bytes received, each
    capped (bytes as a captured listing file is). Past a cap the listing is cut, and the
    cut is an :class:`InputError` saying where, never a library quietly missing the rest:
    a mock library is read as the server's whole contract.
    """

    def __init__(
        self,
        pages: int = MAX_LIVE_PAGES,
        tools: int = MAX_LIVE_TOOLS,
        size: int = MAX_INPUT_BYTES,
    ) -> None:
        self.max_pages, self.max_tools, self.max_bytes = pages, tools, size
        self.pages = 0
        self.tools = 0
        self.received = 0
        self.listing = False  # False until the handshake is over

    def start_listing(self) -> None:
        self.listing = True

    def take_bytes(self, size: int) -> None:
        """``size`` more bytes arrived from the server."""
        self.received += size
        if self.received <= self.max_bytes:
            return
        if self.listing:
            where = f"by tools/list page {self.pages + 1}, after {self.tools:,} tools"
            fix = _NAME_THEM
        else:
            where, fix = "during the MCP handshake", "fix the server: no MCP answer is that large"
        raise InputError(
            f"the server sent more than {self.max_bytes:,} bytes (the cap, as for a listing "
            f"file) {where}{_CUT}",
            fix,
        )

    def take_page(self, count: int) -> None:
        """One more page of ``count`` tools arrived."""
        if self.pages >= self.max_pages:
            raise InputError(
                f"the server's listing runs past {self.max_pages:,} pages "
                f"({self.tools:,} tools read){_CUT}",
                _NAME_THEM,
            )
        self.pages += 1
        self.tools += count
        if self.tools > self.max_tools:
            raise InputError(
                f"the server's listing passed {self.max_tools:,} tools on tools/list page "
                f"{self.pages} ({self.tools:,} tools read, later pages unread){_CUT}",
                _NAME_THEM,
            )


def listing_entries(value: Any, source: str) -> list[Any]:
    """The tool entries of one captured listing, in any of the three accepted shapes."""
    if isinstance(value, list):
        return value
    if not isinstance(value, dict):
        raise InputError(f"{source} is not a tools/list listing", f"give {_SHAPES}")
    if "error" in value:
        raise InputError(
            f"{source} is an error response, not a listing: {_error_text(value['error'])}",
            "capture a successful tools/list response",
        )
    result = value.get("result", value) if "tools" not in value else value
    if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
        raise InputError(f"{source} is not a tools/list listing (no tools list)", f"give {_SHAPES}")
    if result.get("nextCursor"):
        raise InputError(
            f"{source} is one page of a longer listing (it has a nextCursor): tools on the "
            "other pages would be missing",
            "ask the live server with --command, which follows every page, or put every "
            "page's tools into one listing",
        )
    entries: list[Any] = result["tools"]
    return entries


def checked_tools(
    entries: Sequence[Any], source: str, names: Sequence[str] = ()
) -> list[ListedTool]:
    """The tools ``names`` picks (every one when empty), in listing order, each checked; the
    first problem is an :class:`InputError` naming the entry by its position and name.

    An entry that is not picked is not checked, so ``--tool`` can leave out a broken one.
    """
    picked = _picked(entries, names, source)
    tools: list[ListedTool] = []
    seen: dict[str, int] = {}
    for index, entry in picked:
        place = f"{source}: tools[{index}]"
        if not isinstance(entry, dict):
            raise InputError(f"{place} is not an object", "each tool is a JSON object")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(f"{place} has no name", 'each tool needs "name": "<its name>"')
        place = f"{place} ({name!r})"
        if not TOOL_NAME.match(name):
            raise InputError(
                f"{place}: the name is not accepted by providers (^[A-Za-z0-9_-]{{1,64}}$)",
                "skill-lens never renames a tool: leave it out by naming the tools you want "
                "with --tool, or rename it on the server",
            )
        if name in seen:
            raise InputError(
                f"{place}: the name repeats tools[{seen[name]}]",
                "a listing names each tool once; keep one of the two",
            )
        seen[name] = index
        description = entry.get("description")
        if description is not None and not isinstance(description, str):
            raise InputError(
                f"{place}: description is not text", "give the description as a string"
            )
        tools.append(
            ListedTool(
                name=name,
                description=description if description and description.strip() else None,
                input_schema=_input_schema(entry, place),
                output_schema=entry.get("outputSchema"),
                has_output_schema="outputSchema" in entry,
            )
        )
    return tools


def _picked(entries: Sequence[Any], names: Sequence[str], source: str) -> list[tuple[int, Any]]:
    if not names:
        return list(enumerate(entries))
    listed = [e.get("name") if isinstance(e, dict) else None for e in entries]
    known = {name for name in listed if isinstance(name, str)}
    unknown = [name for name in names if name not in known]
    if unknown:
        available = ", ".join(sorted(known)) or "none"
        raise InputError(
            f"--tool {unknown[0]!r} is not in {source} (its tools: {available})",
            "name a tool the listing holds, spelled as the server spells it",
        )
    wanted = set(names)
    return [(i, entries[i]) for i, name in enumerate(listed) if name in wanted]


def _input_schema(entry: dict[str, Any], place: str) -> dict[str, Any]:
    schema = entry.get("inputSchema")
    if not isinstance(schema, dict):
        missing = "missing" if "inputSchema" not in entry else "not an object"
        raise InputError(
            f"{place}: inputSchema is {missing}",
            'every MCP tool declares "inputSchema": {"type": "object", ...}',
        )
    problem = schema_problem(schema)
    if problem is not None:
        raise InputError(
            f"{place}: inputSchema is not a valid JSON Schema (Draft 2020-12): {problem}",
            "fix the schema on the server, or leave the tool out by naming the others with --tool",
        )
    if schema.get("type") != "object":
        raise InputError(
            f"{place}: inputSchema must have top-level type: object (every provider requires it)",
            "fix the schema on the server, or leave the tool out by naming the others with --tool",
        )
    return schema


def library_text(tools: list[ListedTool], source: str) -> str:
    """The tool library: a comment header, then one ``tools:`` list; read back before it is
    returned, so what is printed is what the loader will see."""
    lines = [
        f"# A tool library from the MCP tools/list listing of {comment(source)}",
        "# (pytest-skill-lens mcp-import). Each input_schema is the server's inputSchema,",
        "# verbatim. Fill in every TODO(skill-lens): the reply each mock gives (returns:) and",
        "# any description the server left out; the run refuses the library until then.",
        "# Use it from an eval file: tool_libraries: [<this file>], then '- ref: <name>'.",
    ]
    if not tools:
        lines.append("tools: []")
    else:
        lines.append("tools:")
        for tool in tools:
            lines.extend(_tool_lines(tool))
    text = "\n".join(lines) + "\n"
    check_round_trip(text, {"tools": [_tool_data(tool) for tool in tools]})
    return text


def _tool_data(tool: ListedTool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description if tool.description is not None else Todo(),
        "input_schema": tool.input_schema,
        "returns": Todo(),
    }


def _tool_lines(tool: ListedTool) -> list[str]:
    data = _tool_data(tool)
    head = {key: data[key] for key in ("name", "description", "input_schema")}
    lines = mapping_lines(head, 4)
    lines[0] = "  - " + lines[0][4:]
    if tool.has_output_schema:
        lines.append(
            "    # outputSchema, as the server declares it (not checked against returns:):"
        )
        lines.append(f"    # {comment(one_line_json(tool.output_schema))}")
    lines.append(f"    returns: {scalar(Todo())}  # what the mock answers, e.g. '{{}}'")
    return lines


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        code, message = error.get("code"), error.get("message")
        return comment(f"{message} (code {code})" if code is not None else str(message))
    return comment(one_line_json(error))
