"""Paths under a guarded directory: resolved, contained, examined by ``stat``, never trusted.

The rules the workspace (and the skill's bundle) apply to every path, in this order:

1. lexical: an absolute path, ``..``, a NUL byte, a backslash or an empty path
   is refused before the filesystem is touched;
2. containment: the path resolved through its links must stay under the root,
   which the caller resolved once (on macOS ``/tmp`` is a link to ``/private/tmp``);
3. kind: only a regular file is read or replaced, judged by ``os.stat`` and
   never by ``open`` (opening a FIFO blocks until a writer comes, which never
   happens here); a link loop is refused whichever exception Python raises.

Every refusal is a :class:`Refused` whose message is the whole text a model or a
check's evidence shows.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Literal

from ..spec.paths import path_problem

# Flags that make a late swap (a FIFO or a link put in place after the stat) fail
# fast instead of blocking or escaping; absent on some platforms, hence getattr.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)

ReadFailure = Literal["missing", "too_large", "not_utf8", "refused"]


class Refused(Exception):
    """The directory will not serve this path; the message is the whole refusal."""

    def __init__(self, message: str, failure: ReadFailure = "refused") -> None:
        super().__init__(message)
        self.failure: ReadFailure = failure


def show(path: str) -> str:
    """A path for a message: as written when plain, quoted when it holds odd characters."""
    return path if path and re.fullmatch(r"[\w./@+,=:~-]+", path) else repr(path)


def kind_of(mode: int) -> str:
    """What a non-regular file is, for a refusal (``a FIFO (named pipe)``, ...)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def why(exc: BaseException) -> str:
    """An exception as a short reason: the OS's words when it gave some."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return f"{type(exc).__name__}: {exc}"


def too_large(path: str, size: int, cap: int) -> str:
    return f"refused: {show(path)} is {size:,} bytes; max_file_bytes is {cap:,}"


def resolve_within(root: Path, path: str) -> Path:
    """The real path of ``path`` under the resolved ``root``, or :class:`Refused`.

    Lexical rules first, so an absolute path or ``..`` never reaches the
    filesystem; then the path is resolved through its links and must stay
    under the root.
    """
    if not isinstance(path, str):
        raise Refused(f"refused: a path is text, not {type(path).__name__}")
    problem = path_problem(path)
    if problem is not None:
        raise Refused(f"refused: {show(path)}: {problem}")
    try:
        # strict=False: a missing file is fine here (write_file creates it). A link
        # loop is left unresolved by some Pythons and raised by others.
        real = Path(os.path.realpath(os.path.join(root, path)))
    except (OSError, RuntimeError, ValueError):
        raise Refused(f"refused: {show(path)} is a symbolic-link loop") from None
    if real != root and not real.is_relative_to(root):
        raise Refused(
            f"refused: {show(path)} resolves outside the workspace through a symbolic link"
        )
    return real


def stat_only(real: Path, path: str) -> os.stat_result | None:
    """``os.stat`` of a resolved path; ``None`` when nothing is there. Never opens it."""
    try:
        return os.stat(real)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(f"refused: {show(path)} is a symbolic-link loop") from None
        raise Refused(f"refused: {show(path)} cannot be examined: {why(exc)}") from None
    except (RuntimeError, ValueError):
        raise Refused(f"refused: {show(path)} is a symbolic-link loop") from None


def read_regular(real: Path, path: str, max_bytes: int) -> bytes:
    """Read a file already stat'ed as regular, re-checking on the open descriptor."""
    try:
        fd = os.open(real, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(f"refused: {show(path)} was replaced by a symbolic link") from None
        raise Refused(f"refused: {show(path)} cannot be read: {why(exc)}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"refused: {show(path)} is {kind_of(info.st_mode)}")
        if info.st_size > max_bytes:
            raise Refused(too_large(path, info.st_size, max_bytes), "too_large")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew after the stat
        raise Refused(too_large(path, len(data), max_bytes), "too_large")
    return data


def write_regular(real: Path, data: bytes) -> None:
    """Create or replace ``real``; a link or FIFO swapped in at the last moment fails the open."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
    fd = os.open(real, flags, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
