"""``pytest-skill-lens mcp-import FILE|-|--url URL|--command CMD ... [--tool NAME]...``: a
tool library from an MCP server's ``tools/list`` listing, printed on stdout.

The listing is a captured JSON file, stdin (``-``), or a live server asked page by page
through the MCP SDK: a remote one at ``--url`` (streamable HTTP, or SSE with
``--transport sse``; headers only from environment variables, ``--header-env``), or a
stdio one that ``--command`` starts and kills. Exit 0 with the library on stdout; exit 2
with the reason on stderr and nothing on stdout.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from ..authoring.json_input import MAX_INPUT_BYTES, InputError, parse_json
from ..authoring.mcp_listing import checked_tools, library_text, listing_entries
from ..authoring.yaml_emit import EmitError
from ..suite.errors import AuthoringError
from ..suite.regular_files import read_regular
from .mcp_client import RemoteServer, StdioServer, list_tools
from .mcp_options import checked_url, display_url, headers_from_env
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
        help="keep only this tool (repeatable; listing order is kept); a live listing "
        "stops paging once each named tool is listed",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help="with --url or --command: seconds the whole exchange may take "
        f"(default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--url", help="ask a remote MCP server at this http(s) URL (needs the mcp extra)"
    )
    parser.add_argument(
        "--transport",
        choices=("http", "sse"),
        help="with --url: streamable HTTP (http, the default) or the older SSE transport",
    )
    parser.add_argument(
        "--header-env",
        action="append",
        default=[],
        metavar="NAME=ENVVAR",
        help="with --url: send the header NAME with the value of the environment variable "
        "ENVVAR (repeatable); a value itself is never taken from the command line",
    )
    parser.add_argument(
        "--command",
        nargs=argparse.REMAINDER,
        metavar="CMD",
        help="ask a live stdio MCP server instead: everything after --command is its command "
        "(needs the mcp extra)",
    )
    options = parser.parse_args(argv)
    given = [options.source is not None, bool(options.command), options.url is not None]
    if sum(given) != 1:
        return refuse(
            PROG,
            "give one source: a listing file (or -), --url or --command",
            "e.g. mcp-import tools.json, mcp-import --url https://host/mcp, "
            "or mcp-import --command npx -y server",
        )
    if options.url is None and (options.transport or options.header_env):
        return refuse(
            PROG, "--transport and --header-env go with --url", "add --url, or leave them out"
        )
    if not (math.isfinite(options.timeout) and options.timeout > 0):
        return refuse(
            PROG, f"--timeout must be a number above 0, got {options.timeout}", "e.g. --timeout 60"
        )
    try:
        if options.command or options.url is not None:
            server = _server(options)
            source = _describe(server)
            entries = list_tools(server, options.timeout, options.tool).tools
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


def _server(options: argparse.Namespace) -> StdioServer | RemoteServer:
    if options.command:
        return StdioServer(tuple(options.command))
    return RemoteServer(
        checked_url(options.url),
        options.transport or "http",
        headers_from_env(options.header_env, os.environ),
    )


def _describe(server: StdioServer | RemoteServer) -> str:
    """The server as the library's header and every message name it (never a secret)."""
    if isinstance(server, StdioServer):
        return f"the server '{shlex.join(server.command)}'"
    return f"the server at {display_url(server.url)}"


def _read(source: str) -> bytes:
    if source == "-":
        # One byte past the cap is enough for parse_json to refuse it: an endless pipe
        # is never held whole.
        return sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    try:
        return read_regular(Path(source))  # a FIFO or a device is refused, never opened
    except AuthoringError as exc:
        raise InputError(f"{source} {exc.problem}", exc.fix or "give a listing file") from None
    except OSError as exc:
        raise InputError(f"cannot read {source}: {cause(exc)}", "give a readable file") from None
