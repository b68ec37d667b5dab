"""A product call's directory is removed off the case's path (benchmarks/product_overhead.py
measured its removal at 30-250 ms a call, Codex's fresh home holding SQLite files and
installed skills), by one thread, and is gone once :func:`wait_removed` returns (the
session's end waits for it)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from pytest_skill_lens.run.products import process
from pytest_skill_lens.run.products.process import run_dir, wait_removed

SLOW = 0.6  # a removal this slow would show in the block's exit if it waited for it


@pytest.fixture
def slow_removal(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """remove_marked made slow; the names of the threads it ran on, in order."""
    real = process.remove_marked
    threads: list[str] = []

    def remove(path: Path) -> None:
        threads.append(threading.current_thread().name)
        time.sleep(SLOW)
        real(path)

    monkeypatch.setattr(process, "remove_marked", remove)
    return threads


def test_the_block_ends_before_the_removal_and_wait_removed_sees_it_done(
    slow_removal: list[str],
) -> None:
    began = time.monotonic()
    with run_dir("probe", sandbox=None) as run:
        (run.home / "state.sqlite").write_bytes(b"x" * 1000)
        root = run.root
    assert time.monotonic() - began < SLOW / 2  # not waited for here
    wait_removed()
    assert not root.exists()
    assert slow_removal == ["skill-lens-remover"]  # off the caller's thread


def test_several_calls_are_all_removed_and_a_failed_start_too(slow_removal: list[str]) -> None:
    roots = []
    for _ in range(3):
        with run_dir("probe", sandbox=None) as run:
            roots.append(run.root)
    with pytest.raises(RuntimeError), run_dir("probe", sandbox=None) as run:
        roots.append(run.root)
        raise RuntimeError("the start failed")
    wait_removed()
    assert [root.exists() for root in roots] == [False] * 4


def test_wait_removed_with_nothing_pending_returns_at_once() -> None:
    began = time.monotonic()
    wait_removed()
    assert time.monotonic() - began < 0.1
