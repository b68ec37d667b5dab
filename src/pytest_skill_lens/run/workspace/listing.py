"""What a workspace holds: its entries, the files a ``file_glob`` matches, and the listing
a check's evidence quotes.

A wildcard stays within one directory level and ``*`` matches a leading dot (both
from :func:`~...suite.paths.segment_match`); a link to a directory is never entered;
a link counts when it reaches a regular file, even one outside the workspace, so the
read that follows refuses it with evidence.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...suite.paths import segment_match
from .containment import show

EVIDENCE_SHOWN = 20  # workspace entries named in a check's evidence


@dataclass(frozen=True)
class GlobMatch:
    """The files a ``file_glob`` matched; only exactly one is a usable match."""

    label: str  # the pattern(s) as the author wrote them, entries joined with " | "
    matches: tuple[str, ...]
    evidence: str

    @property
    def path(self) -> str | None:
        return self.matches[0] if len(self.matches) == 1 else None


def entries(root: Path, max_depth: int | None = None) -> Iterator[str]:
    """Every non-directory entry, as a '/'-joined relative path, sorted per level.

    Links to directories are listed by os.walk as directories and, with
    followlinks=False, never entered; they are not files, so not yielded.
    """
    top = str(root)
    for directory, dirnames, filenames in os.walk(top, followlinks=False):
        rel_dir = os.path.relpath(directory, top)
        parts = [] if rel_dir == "." else rel_dir.split(os.sep)
        dirnames.sort()
        if max_depth is not None and len(parts) + 1 >= max_depth:
            dirnames.clear()  # deeper levels cannot match a pattern this deep
        if max_depth is not None and len(parts) + 1 > max_depth:
            continue
        for name in sorted(filenames):
            yield "/".join([*parts, name])


def regular_target(root: Path, rel: str) -> bool:
    """Whether ``rel`` reaches a regular file (through links, wherever they point)."""
    try:
        return stat.S_ISREG(os.stat(os.path.join(root, rel)).st_mode)
    except (OSError, RuntimeError, ValueError):
        return False  # dangling link, loop, vanished file


def listing(root: Path) -> str:
    """The workspace's files, for a check's evidence."""
    try:
        found = list(entries(root))
    except Exception:
        return "the workspace cannot be listed"
    if not found:
        return "the workspace is empty"
    named = ", ".join(show(e) for e in found[:EVIDENCE_SHOWN])
    more = f" and {len(found) - EVIDENCE_SHOWN} more" if len(found) > EVIDENCE_SHOWN else ""
    noun = "file" if len(found) == 1 else "files"
    return f"the workspace holds {len(found)} {noun}: {named}{more}"


def glob(root: Path, patterns: str | Sequence[str]) -> GlobMatch:
    """The regular files ``patterns`` match under ``root``, pooled over a list's entries."""
    written = [patterns] if isinstance(patterns, str) else list(patterns)
    label = " | ".join(written)
    depth = max((len(p.removeprefix("./").split("/")) for p in written), default=0)
    matches = tuple(
        rel
        for rel in entries(root, depth)
        if any(segment_match(p, rel) for p in written) and regular_target(root, rel)
    )
    if len(matches) == 1:
        return GlobMatch(label, matches, f"{show(matches[0])} is the one file matching {label}")
    if not matches:
        return GlobMatch(label, matches, f"no file matches {label}: {listing(root)}")
    named = ", ".join(show(m) for m in matches[:EVIDENCE_SHOWN])
    more = f" and {len(matches) - EVIDENCE_SHOWN} more" if len(matches) > EVIDENCE_SHOWN else ""
    return GlobMatch(
        label,
        matches,
        f"{len(matches)} files match {label}, exactly one is required: {named}{more}",
    )
