"""``pytest-skill-lens mcp-import FILE|- [--tool NAME]... [--command CMD ...]``: a tool
library from an MCP server's ``tools/list`` listing, printed on stdout.

The listing is a captured JSON file, stdin (``-``), or, with ``--command``, a live stdio
server this command starts, asks page by page and kills. Exit 0 with the library on
stdout; exit 2 with the reason on stderr and nothing on stdout.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from ..authoring.json_input import InputError, parse_json
from ..authoring.mcp_listing import checked_tools, library_text, listing_entries
from ..authoring.yaml_emit import EmitError
from ..suite.errors import AuthoringError
from ..suite.regular_files import read_regular
from .mcp_client import list_tools
from .output import EXIT_OK, cause, print_document, refuse

PROG = "pytest-skill-lens mcp-import"
DEFAULT_TIMEOUT = 30.0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Print a tool library (a YAML tools: list) from an MCP tools/list "
        "listing: each inputSchema verbatim as input_schema, returns: left to fill in.",
    )
    parser.add_argument(
        "source", nargs="?", metavar="FILE|-", help="a captured listing (JSON), or - for stdin"
    )
    parser.add_argument(
        "--tool",
        action="append",
        default=[],
        metavar="NAME",
        help="keep only this tool (repeatable; listing order is kept)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help=f"with --command: seconds the whole exchange may take (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--command",
        nargs=argparse.REMAINDER,
        metavar="CMD",
        help="ask a live stdio MCP server instead: everything after --command is its command",
    )
    options = parser.parse_args(argv)
    if (options.source is None) == (not options.command):
        return refuse(
            PROG,
            "give a listing file (or -) or --command, and not both",
            "e.g. pytest-skill-lens mcp-import tools.json, or mcp-import --command npx -y server",
        )
    if not (math.isfinite(options.timeout) and options.timeout > 0):
        return refuse(
            PROG, f"--timeout must be a number above 0, got {options.timeout}", "e.g. --timeout 60"
        )
    try:
        if options.command:
            source = f"the server '{shlex.join(options.command)}'"
            entries = list_tools(options.command, options.timeout).tools
        else:
            source = "stdin" if options.source == "-" else options.source
            entries = listing_entries(parse_json(_read(options.source), source), source)
        tools = checked_tools(entries, source, options.tool)
        text = library_text(tools, source)
    except InputError as exc:
        return refuse(PROG, exc.message, exc.fix)
    except EmitError as exc:  # our bug, never the listing's: said, and nothing printed
        return refuse(PROG, f"internal error: {exc}", "report it, with the listing")
    print_document(text)
    return EXIT_OK


def _read(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    try:
        return read_regular(Path(source))  # a FIFO or a device is refused, never opened
    except AuthoringError as exc:
        raise InputError(f"{source} {exc.problem}", exc.fix or "give a listing file") from None
    except OSError as exc:
        raise InputError(f"cannot read {source}: {cause(exc)}", "give a readable file") from None
