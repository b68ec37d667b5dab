"""The ``pytest-skill-lens`` console script: ``init``, ``mcp-import``, ``convert``, ``merge``
and ``html``.

A top layer like ``plugin/``, which it never imports: none of these commands loads pytest,
so they run where only the package is installed (a merge job, an author's shell).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from ..merge.cli import html_main
from ..merge.cli import main as merge_main
from . import convert_command, init_command, mcp_import_command
from .output import EXIT_REFUSED

COMMANDS: dict[str, tuple[Callable[[Sequence[str]], int], str]] = {
    "init": (
        init_command.main,
        "write an eval-file scaffold for a skill (or every skill under PATH)",
    ),
    "mcp-import": (mcp_import_command.main, "print a tool library from an MCP tools/list listing"),
    "convert": (
        convert_command.main,
        "write the YAML eval file an evals.json in another layout means",
    ),
    "merge": (merge_main, "judge the JSON reports of a suite's shards as one run"),
    "html": (html_main, "draw the HTML page of a JSON report"),
}


def console(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names; its exit code (argparse's 2 for a usage error)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in COMMANDS:
        command, _ = COMMANDS[args[0]]
        try:
            return command(args[1:])
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            return exc.code if isinstance(exc.code, int) else EXIT_REFUSED
    if args and args[0] in ("-h", "--help"):
        print(_usage())
        return 0
    problem = f"unknown command {args[0]!r}" if args else "name a command"
    print(f"{_usage()}\npytest-skill-lens: {problem}", file=sys.stderr)
    return EXIT_REFUSED


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [f"usage: pytest-skill-lens {{{','.join(COMMANDS)}}} ...", ""]
    lines += [f"  {name:<{width}}  {about}" for name, (_, about) in COMMANDS.items()]
    lines += ["", "pytest-skill-lens COMMAND --help describes one command."]
    return "\n".join(lines)
