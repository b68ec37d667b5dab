"""The bridge's calls file, attacked by the product that shares its directory.

A product with ``tools:`` can write its own run directory, the bridge's files included:
it may put a FIFO, a link or another file where ``calls.jsonl`` was, or swap the
bridge's whole directory for a link. The harness reads back only the file it made,
through the descriptor it opened when it made it: it never blocks on a FIFO, never
reads through a link, reads at most its cap, and says when the file was replaced.

Each start runs in a daemon thread joined with a generous timeout, so a regression (a
read that blocks on a FIFO) fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from no_hang import within
from pytest_skill_lens.run.products.bridge import ToolRun, settle, start_with_tools
from pytest_skill_lens.run.products.claude_code import PRESET
from pytest_skill_lens.run.products.process import run_dir
from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.settings import ProductTable
from pytest_skill_lens.suite.model import ToolSpec

BLOCKED = "reading the calls file blocked (it opened a FIFO)"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")

TOOLS = [ToolSpec(name="lookup", returns="found")]
# What a forged log would say: the tools were listed, so a run would not be errored.
FORGED = json.dumps({"event": "list", "tools": ["lookup"], "pid": 1}) + "\n"
# The fake product's first lines: the calls file's path, from the config flag (last).
PROLOGUE = """\
for a; do last=$a; done
config=${last#--mcp-config=}
dir=$(dirname "$config")
calls="$dir/calls.jsonl"
"""


def start(tmp_path: Path, body: str) -> ToolRun:
    """A fake product (a shell script) that does ``body`` to its bridge's files, started
    with ``tools:`` the way a product runner starts one."""
    product = tmp_path / "product"
    product.write_text(f"#!/bin/sh\n{PROLOGUE}{body}\necho done\n")
    product.chmod(0o755)

    def run() -> ToolRun:
        with run_dir("probe", sandbox=None) as run:
            return start_with_tools(
                PRESET,
                ProductTable(),
                TOOLS,
                [str(product), "-p", "task"],
                run=run,
                cwd=run.work,
                env={"PATH": "/usr/bin:/bin"},
                timeout=60,
                max_output_bytes=10_000,
            )

    tooled: ToolRun = within(30, run, BLOCKED)
    return tooled


def secret_file(tmp_path: Path) -> Path:
    """A file the sandbox would hide, holding a log line that would turn the run green."""
    secret = tmp_path / "skill-lens-other-case" / "calls.jsonl"
    secret.parent.mkdir()
    secret.write_text(FORGED, encoding="utf-8")
    return secret


def test_a_fifo_put_in_place_of_the_calls_file_never_blocks_the_harness(tmp_path: Path) -> None:
    tooled = start(tmp_path, 'rm -f "$calls"; mkfifo "$calls"')

    assert tooled.ran.finished.stdout.data == b"done\n"
    assert tooled.log is not None
    assert (tooled.log.started, tooled.log.listed, tooled.log.replaced) == (False, False, True)
    assert tooled.calls_data == b""
    result = settle(PRESET, RunResult(output="ok"), tooled.log)
    assert result.error is not None and "without ever starting the MCP bridge" in result.error
    assert result.stop_note is not None
    assert "calls file was replaced during the run" in result.stop_note


def test_a_link_in_place_of_the_calls_file_is_never_read_through(tmp_path: Path) -> None:
    secret = secret_file(tmp_path)
    tooled = start(tmp_path, f'rm -f "$calls"; ln -s {secret} "$calls"')

    assert tooled.log is not None
    assert (tooled.log.listed, tooled.log.replaced) == (False, True)
    assert tooled.calls_data == b""  # nothing of the secret file reached the harness


def test_a_bridge_directory_swapped_for_a_link_is_never_read_through(tmp_path: Path) -> None:
    secret = secret_file(tmp_path)
    tooled = start(tmp_path, f'mv "$dir" "$dir.moved"; ln -s {secret.parent} "$dir"')

    assert tooled.log is not None
    assert (tooled.log.listed, tooled.log.replaced) == (False, True)
    assert tooled.calls_data == b""


def test_another_file_in_place_of_the_calls_file_is_not_read(tmp_path: Path) -> None:
    tooled = start(tmp_path, f"rm -f \"$calls\"; printf '%s' '{FORGED.strip()}' > \"$calls\"")

    assert tooled.log is not None
    assert (tooled.log.listed, tooled.log.replaced) == (False, True)


def test_what_the_product_writes_into_the_file_itself_is_read_capped(tmp_path: Path) -> None:
    # Writing into the harness's own file is not a replacement: it is read, at most the
    # cap, and a forged line is only as good as any line (the bridge is the product's).
    tooled = start(tmp_path, f"printf '%s\\n' '{FORGED.strip()}' >> \"$calls\"")

    assert tooled.log is not None
    assert (tooled.log.listed, tooled.log.replaced) == (True, False)
    assert tooled.calls_data == FORGED.encode()


@pytest.mark.skipif(sys.platform != "linux", reason="sparse files and /proc as on Linux")
def test_a_huge_calls_file_is_read_up_to_the_cap(tmp_path: Path) -> None:
    # A sparse terabyte: only the cap is read (the rest is never asked for).
    tooled = start(tmp_path, 'truncate -s 1T "$calls"')

    assert tooled.log is not None and tooled.log.truncated
    assert tooled.calls_data is not None and len(tooled.calls_data) <= 64 * 1024 * 1024 + 1
