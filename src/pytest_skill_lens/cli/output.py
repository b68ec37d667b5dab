"""What every command shares: a refusal on stderr, console lines, and writing a file whole."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from ..atomic_file import write_atomically
from ..report.printable import one_line

EXIT_OK = 0
EXIT_REFUSED = 2


def refuse(prog: str, message: str, fix: str | None = None) -> int:
    """Say why on stderr, and what to do about it; exit code 2."""
    say([f"{prog}: {message}", *([f"  fix: {fix}"] if fix else [])], sys.stderr)
    return EXIT_REFUSED


def say(lines: Iterable[str], stream: TextIO | None = None) -> None:
    """Console lines; each made one printable line, and escaped where the console's
    encoding cannot show a character (an ASCII-only CI log)."""
    out = stream or sys.stdout
    encoding = getattr(out, "encoding", None) or "utf-8"
    for line in lines:
        print(one_line(line).encode(encoding, "backslashreplace").decode(encoding), file=out)


def print_document(text: str) -> None:
    """A generated document on stdout as UTF-8 bytes, whatever the console's encoding
    (it is meant for a redirect: ``> shared-tools/server.yaml``)."""
    sys.stdout.flush()
    out = getattr(sys.stdout, "buffer", None)
    if out is None:  # a text-only stream (a test's capture)
        sys.stdout.write(text)
        return
    out.write(text.encode("utf-8"))
    out.flush()


def write_new(path: Path, text: str, *, replace: bool) -> None:
    """Write ``text`` to ``path`` whole. Without ``replace`` an existing path is never
    touched (:class:`FileExistsError`, even for one that appears meanwhile); with it, the
    file is renamed over the path, so a link planted there is replaced, never followed."""
    data = text.encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file where a directory must go: not "the target exists"
        raise NotADirectoryError(errno.ENOTDIR, "a file is in the way", str(path.parent)) from None
    if not replace:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
        except BaseException:
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        return
    write_atomically(path, data)


def cause(exc: BaseException) -> str:
    """An OS error in words (``Permission denied``), anything else as its repr."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return repr(exc)
