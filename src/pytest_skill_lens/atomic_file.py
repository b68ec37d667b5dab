"""Writing a file so a reader sees the old text or the new, never half of either.

One helper for every file the plugin writes whole (reports, merged reports, parse-cache
slots, cassettes): a new temporary file of our own beside the target, renamed over it.
A report can come as a stream of text pieces, written as they are made, so a report of
50,000 outcomes is never one text in memory; the rename still comes after the last piece.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable
from pathlib import Path


def write_atomically(path: Path, content: str | bytes | Iterable[str | bytes]) -> None:
    """Replace ``path`` with ``content`` (text is UTF-8; an iterable of pieces is written
    piece by piece) in one rename; raises OSError, or what making a piece raised,
    and then ``path`` is as it was."""
    # Encoded before any file is touched: an encoding error changes nothing on disk.
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    # O_EXCL: a new file of our own (never one planted there), with the usual umask mode.
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            if isinstance(content, bytes):
                handle.write(content)
            else:
                for piece in content:
                    handle.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
        # Renaming replaces the entry itself: a link planted at the path is never followed.
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
