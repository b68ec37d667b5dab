"""Where a cassette file is read and written: under its root, never through a link.

A cassette's default home (``evals/cassettes/`` in the skill) is the skill's own tree,
which a skill ships: ``evals/cassettes -> /elsewhere`` would have cassettes written
(and read) wherever it points. So the path is trusted only down to a *root* (the
skill's directory, or the directory you named with ``--skill-lens-cassettes``), and
every entry below it is opened one at a time from its parent's descriptor with
``O_NOFOLLOW``: a link anywhere on the way, or as the file itself, is refused naming
it (:class:`LinkRefused`). The file is looked at with ``lstat`` before it is opened
(a FIFO or a device is never opened), opened without blocking, checked again on the
descriptor, and read no further than the cap. Writing goes through the workspace's
own :func:`~..workspace.containment.write_within` (directories by descriptor, a fresh file
renamed over the name).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from ..workspace.containment import Refused, hard_linked, kind_of, why, write_within

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_ROOT_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC  # the root: yours
_DIR_FLAGS = _ROOT_FLAGS | _NOFOLLOW
_FILE_FLAGS = (
    os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | _CLOEXEC
)
_LINK_FIX = (
    "a cassette is never read or written through a link (a skill could point it anywhere); "
    "make it a real directory or file, or name a cassettes directory with "
    "--skill-lens-cassettes"
)


class CassetteError(Exception):
    """A cassette that cannot be used as it is: unreadable, not JSON, or the wrong shape."""


class LinkRefused(CassetteError):
    """A symbolic link on the cassette's path below its root."""


def linked(path: Path) -> LinkRefused:
    return LinkRefused(f"{path} is a symbolic link: {_LINK_FIX}")


def read_under(path: Path, root: Path, max_bytes: int) -> bytes | None:
    """The file's bytes; ``None`` when there is none; :class:`CassetteError` else."""
    parts = _parts(path, root)
    directory = _descend(root, parts[:-1])
    if directory is None:
        return None
    try:
        info = _lstat(directory, parts[-1], path)
        if info is None:
            return None
        if stat.S_ISLNK(info.st_mode):
            raise linked(path)
        if not stat.S_ISREG(info.st_mode):  # never opened: a FIFO would block
            raise CassetteError(f"{path} is {kind_of(info.st_mode)}, not a regular file")
        try:
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=directory)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # swapped for a link since the lstat
                raise linked(path) from None
            raise CassetteError(f"{path} cannot be read: {why(exc)}") from None
    finally:
        os.close(directory)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise CassetteError(f"{path} is {kind_of(info.st_mode)}, not a regular file")
        if info.st_nlink > 1:
            raise CassetteError(hard_linked(str(path), info.st_nlink, "the cassettes directory"))
        if info.st_size > max_bytes:
            raise CassetteError(_too_large(path, info.st_size, max_bytes))
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew after the stat
        raise CassetteError(_too_large(path, len(data), max_bytes))
    return data


def check_place(path: Path, root: Path) -> None:
    """Raises :class:`LinkRefused` when a link stands on ``path`` below ``root`` now."""
    parts = _parts(path, root)
    directory = _descend(root, parts[:-1])
    if directory is None:
        return
    try:
        info = _lstat(directory, parts[-1], path)
    finally:
        os.close(directory)
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise linked(path)


def write_under(path: Path, root: Path, data: bytes) -> None:
    """Write ``data`` at ``path`` in one rename, never through a link below ``root``.

    Raises :class:`LinkRefused`, or ``OSError``.
    """
    check_place(path, root)
    root.mkdir(parents=True, exist_ok=True)  # a directory you named may not exist yet
    real = root.resolve(strict=True)  # opened with O_NOFOLLOW by write_within
    parts = _parts(path, root)
    try:
        write_within(real, real.joinpath(*parts), data, str(path))
    except Refused:  # a directory on the way was swapped for a link meanwhile
        raise LinkRefused(
            f"a directory on the way to {path} is a symbolic link: {_LINK_FIX}"
        ) from None


def _parts(path: Path, root: Path) -> Sequence[str]:
    parts = path.relative_to(root).parts  # lexical: nothing below the root is resolved
    if not parts or ".." in parts:
        raise CassetteError(f"{path} is not a file under {root}")
    return parts


def _descend(root: Path, parts: Sequence[str]) -> int | None:
    """A descriptor of ``root/parts`` opened one entry at a time without following a
    link; ``None`` when one is missing. The caller closes it."""
    try:
        directory = os.open(root, _ROOT_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise CassetteError(f"{root} cannot be opened: {why(exc)}") from None
    here = root
    for part in parts:
        here = here / part
        try:
            info = _lstat(directory, part, here)
            if info is None:
                os.close(directory)
                return None
            if stat.S_ISLNK(info.st_mode):
                raise linked(here)
            if not stat.S_ISDIR(info.st_mode):
                raise CassetteError(f"{here} is {kind_of(info.st_mode)}, not a directory")
            inner = os.open(part, _DIR_FLAGS, dir_fd=directory)
        except OSError as exc:
            os.close(directory)
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # swapped for a link since the lstat
                raise linked(here) from None
            raise CassetteError(f"{here} cannot be opened: {why(exc)}") from None
        except BaseException:
            os.close(directory)
            raise
        os.close(directory)
        directory = inner
    return directory


def _lstat(directory: int, name: str, shown: Path) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=directory, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise CassetteError(f"{shown} cannot be examined: {why(exc)}") from None


def _too_large(path: Path, size: int, cap: int) -> str:
    return f"{path} is {size:,} bytes, more than a cassette may be ({cap:,})"
