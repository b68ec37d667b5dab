"""Paths under a guarded directory: resolved, contained, examined by ``stat``, never trusted.

The rules the workspace (and the skill's bundle) apply to every path, in this order:

1. lexical: an absolute path, ``..``, a NUL byte, a backslash or an empty path
   is refused before the filesystem is touched;
2. containment: the path resolved through its links must stay under the root,
   which the caller resolved once (on macOS ``/tmp`` is a link to ``/private/tmp``);
3. kind: only a regular file is read or replaced, judged by ``os.stat`` and
   never by ``open`` (opening a FIFO blocks until a writer comes, which never
   happens here); a link loop is refused whichever exception Python raises;
4. one name: a regular file with more than one hard link is never read (one of
   its other names may be a file outside), checked by ``stat`` and again on the
   open descriptor. A write never goes through a link: it makes a fresh file
   beside the target and renames it over, which replaces the directory entry.

Every refusal is a :class:`Refused` whose message is the whole text a model or a
check's evidence shows.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Literal

from ...suite.paths import path_problem

# Flags that make a late swap (a FIFO or a link put in place after the stat) fail
# fast instead of blocking or escaping; absent on some platforms, hence getattr.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Opening each directory by descriptor pins it; without *at() calls, fall back to paths.
_BY_DESCRIPTOR = {os.open, os.mkdir, os.rename, os.unlink} <= os.supports_dir_fd

ReadFailure = Literal["missing", "too_large", "not_utf8", "hard_link", "refused"]


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


def hard_linked(path: str, links: int, where: str = "the workspace") -> str:
    """The refusal for a regular file with more than one hard link."""
    return (
        f"refused: {show(path)} has {links:,} hard links: another name for the same file "
        f"may lie outside {where}, so it is not trusted"
    )


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


def read_regular(
    real: Path,
    path: str,
    max_bytes: int,
    *,
    vetted: tuple[int, int] | None = None,
    where: str = "the workspace",
) -> bytes:
    """Read a file already stat'ed as regular, re-checking on the open descriptor.

    A file with more than one hard link is refused unless it is ``vetted``, the
    (device, inode) the caller already knows to be fine (a bundle's scanned file).
    """
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
        if info.st_nlink > 1 and (info.st_dev, info.st_ino) != vetted:
            raise Refused(hard_linked(path, info.st_nlink, where), "hard_link")
        if info.st_size > max_bytes:
            raise Refused(too_large(path, info.st_size, max_bytes), "too_large")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew after the stat
        raise Refused(too_large(path, len(data), max_bytes), "too_large")
    return data


def write_within(root: Path, real: Path, data: bytes, path: str) -> None:
    """Create or replace ``real`` (a resolved path under ``root``) without following a link.

    Each directory from the root down is opened with ``O_NOFOLLOW`` (and made when
    missing), so a directory swapped for a link after ``real`` was resolved fails
    the write instead of redirecting it. The data goes to a fresh name made with
    ``O_EXCL`` in that directory, then is renamed over the target: the directory
    entry is replaced, so a hard link (or anything else) planted at the target is
    never written through. Refused when a link got in the way; ``OSError`` else.
    """
    parts = real.relative_to(root).parts
    if not parts:
        raise Refused(f"refused: {show(path)} is a directory, not a file")
    if not _BY_DESCRIPTOR:  # pragma: no cover - every POSIX Python has the *at() calls
        real.parent.mkdir(parents=True, exist_ok=True)
        _replace_in(None, str(real.parent), real.name, data)
        return
    try:
        directory = os.open(root, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
        try:
            for part in parts[:-1]:
                inner = _open_directory(directory, part, path)
                os.close(directory)
                directory = inner
            _replace_in(directory, "", parts[-1], data)
        finally:
            os.close(directory)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(f"refused: {show(path)} was replaced by a symbolic link") from None
        raise


def _open_directory(parent: int, name: str, path: str) -> int:
    """``name`` in ``parent`` as a descriptor, made when missing; a link there is refused."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o755, dir_fd=parent)
    try:
        return os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=parent)
    except OSError as exc:
        # Linux says ENOTDIR for a link under O_DIRECTORY | O_NOFOLLOW, others ELOOP.
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(parent, name):
            raise Refused(f"refused: {show(path)} was replaced by a symbolic link") from None
        raise


def _is_link(parent: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _replace_in(directory: int | None, folder: str, name: str, data: bytes) -> None:
    """Write ``data`` to a fresh name, then rename it over ``name``.

    Names are relative to the ``directory`` descriptor, or (without one) to ``folder``.
    """
    # A random name made with O_EXCL: nothing planted beforehand can be written through.
    temporary = os.path.join(folder, f".skill-lens-write-{secrets.token_hex(8)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
    fd = os.open(temporary, flags, 0o644, dir_fd=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        target = os.path.join(folder, name)
        os.replace(temporary, target, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=directory)
        raise
