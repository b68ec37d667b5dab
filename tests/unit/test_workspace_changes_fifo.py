"""A product's late swap never blocks the recording of its workspace changes.

The walk saw a regular file; by the time it is read, something still running (a
product's escaped child, without bwrap) put a FIFO there. The read must refuse it at
once instead of waiting for a writer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from no_hang import within
from pytest_skill_lens.run.cassettes import workspace_changes
from pytest_skill_lens.run.cassettes.workspace_changes import NotRecordable

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


def test_a_fifo_swapped_in_after_the_walk_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "out.txt"
    os.mkfifo(fifo)
    with pytest.raises(NotRecordable, match="FIFO"):
        within(
            30, lambda: workspace_changes._read(str(fifo), "out.txt"), "the read blocked on a FIFO"
        )
