"""What one case may write: the configured caps, the workspace's measured size, and the
refusal a write over a cap gets (naming the limit and its value)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ...settings import Settings
from .containment import show
from .listing import entries


@dataclass(frozen=True)
class Limits:
    """What one case may write: the configured caps."""

    max_file_bytes: int = 1_000_000
    max_files: int = 200
    max_total_bytes: int = 5_000_000

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(settings.max_file_bytes, settings.max_files, settings.max_total_bytes)


def usage(root: Path) -> tuple[int, int]:
    """(files, bytes) under ``root``: every non-directory entry, apparent sizes.

    A sparse file counts at its apparent size: that is what a read would hand on.
    """
    files = total = 0
    for rel in entries(root):
        files += 1
        try:
            info = os.lstat(os.path.join(root, rel))
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            total += info.st_size
    return files, total


def size_refusal(path: str, size: int, limits: Limits) -> str | None:
    """Why one file of ``size`` bytes at ``path`` is over ``max_file_bytes``, or ``None``."""
    if size > limits.max_file_bytes:
        return (
            f"refused: {show(path)} would be {size:,} bytes; "
            f"max_file_bytes is {limits.max_file_bytes:,}"
        )
    return None


def growth_refusal(
    path: str,
    size: int,
    replaced: int | None,
    measured: tuple[int, int],
    limits: Limits,
) -> str | None:
    """Why writing ``size`` bytes at ``path`` takes the workspace over a cap, or ``None``.

    ``replaced`` is the size of the file the write replaces (``None``: a new file);
    ``measured`` is :func:`usage` before the write.
    """
    files, total = measured
    if replaced is None and files + 1 > limits.max_files:
        return (
            f"refused: writing {show(path)} would make {files + 1:,} files; "
            f"max_files is {limits.max_files:,}"
        )
    after = total - (replaced or 0) + size
    if after > limits.max_total_bytes:
        return (
            f"refused: writing {show(path)} would bring the workspace to {after:,} bytes; "
            f"max_total_bytes is {limits.max_total_bytes:,}"
        )
    return None
