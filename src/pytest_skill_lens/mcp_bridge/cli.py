"""The command line: serve a spec over stdio, or ``--check`` that it can be served.

Exit codes: 0 after a clean EOF (or a passing check), 1 with one line on stderr
when the spec or the calls file is unusable, 2 for a wrong command line. Nothing
but protocol messages ever goes to standard output while serving.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ..run.tools.bridge_calls import CallsFile, CallsFileError
from ..run.tools.bridge_spec import BridgeSpec, SpecError, load_spec
from .check import self_test
from .dispatch import Dispatcher
from .serve import serve

PROG = "python -m pytest_skill_lens.mcp_bridge"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bridge; the process's exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.check and args.calls is None:
        parser.error("--calls is required unless --check is given")
    try:
        spec = load_spec(args.spec)
    except SpecError as exc:
        return _fail(str(exc))
    if args.check:
        return _check(spec, args.calls)
    try:
        calls = CallsFile.open(args.calls)
    except CallsFileError as exc:
        return _fail(str(exc))
    with calls:
        try:
            serve(Dispatcher(spec, calls), sys.stdin.buffer, sys.stdout.buffer)
        except CallsFileError as exc:
            return _fail(f"stopped serving: {exc}")
        except BrokenPipeError:
            _silence_stdout()  # the product stopped reading: that is its way to end us
        except KeyboardInterrupt:
            return 130
    return 0


def _check(spec: BridgeSpec, calls: Path | None) -> int:
    try:
        problem = self_test(spec)
    except Exception as exc:  # a check reports what broke, in one line, never a traceback
        problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        return _fail(f"self-test failed: {problem}")
    if calls is not None:
        try:
            CallsFile.open(calls).close()
        except CallsFileError as exc:
            return _fail(str(exc))
    count = len(spec.tools)
    print(f"skill-lens MCP bridge: ok, {count} tool{'s' if count != 1 else ''}")
    return 0


def _fail(message: str) -> int:
    print(f"skill-lens MCP bridge: {' '.join(message.split())}", file=sys.stderr)
    return 1


def _silence_stdout() -> None:
    # Python flushes stdout once more at exit; pointing it at devnull keeps that quiet.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Serve a case's mock tools to an agent product over MCP (stdio)."
    )
    parser.add_argument("--spec", type=Path, required=True, help="the spec file the harness wrote")
    parser.add_argument("--calls", type=Path, help="append every call served here (JSON lines)")
    parser.add_argument(
        "--check", action="store_true", help="answer one self-test and exit: 0 when it can serve"
    )
    return parser
