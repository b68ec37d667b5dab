"""Reading the author's files: regular files only, looked at before they are opened.

Opening a FIFO for reading waits for a writer for ever, a device is no eval file
(``/dev/zero`` never ends), and pytest's own walk skips whatever is not a regular
file, so a FIFO named ``SKILL.md`` would vanish without a word. Every file the
plugin reads from the author's tree is stat'ed first and refused, named, when it is
anything but a regular file; it is then opened without blocking and checked again
on the descriptor, so one swapped for a FIFO in between is refused the same way.
A symbolic link to a regular file is read as that file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from .errors import AuthoringError, Where
from .names import hidden_problem
from .quoting import shown

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the stat opens without waiting
    | getattr(os, "O_NOCTTY", 0)  # a terminal device never becomes our controlling terminal
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
REGULAR_FIX = (
    "replace it with a regular file (a symbolic link to one is fine); skill-lens never "
    "opens a FIFO, a device or a socket"
)
LINK_FIX = "point the link at an existing file, or remove it"


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words: ``a FIFO``, ``a directory``, ..."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a file")


def special_kind(path: Path) -> str | None:
    """What is at ``path`` when it is there but is no regular file; ``None`` otherwise.

    ``None`` means a regular file (or a link to one), or nothing at all: the caller
    says what a missing file means. A link to nothing is "a broken symbolic link".
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a broken symbolic link" if os.path.islink(path) else None
    except OSError:
        return None  # unreadable: the read that follows names the error
    return None if stat.S_ISREG(mode) else kind_of(mode)


def not_regular(path: Path, error: type[AuthoringError] = AuthoringError) -> AuthoringError:
    """The error for ``path``, which :func:`special_kind` found to be no regular file."""
    kind = special_kind(path)
    problem = f"is {kind}, not a regular file" if kind else "is not a regular file"
    fix = LINK_FIX if kind == "a broken symbolic link" else REGULAR_FIX
    return error(problem, where=Where(path), fix=fix)


def read_regular(path: Path, error: type[AuthoringError] = AuthoringError) -> bytes:
    """The bytes of the regular file at ``path``; ``error`` when it is anything else.

    A file that is not there, or cannot be read, raises :class:`OSError` as
    ``Path.read_bytes`` would, so callers keep their own message for it.
    """
    if special_kind(path) is not None:
        raise not_regular(path, error)
    fd = os.open(path, _OPEN_FLAGS)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):  # replaced between the stat and the open
            raise error(
                f"is {kind_of(mode)}, not a regular file", where=Where(path), fix=REGULAR_FIX
            )
        return handle.read()


def eval_like_files(directory: Path, wanted: Callable[[str], bool]) -> list[Path]:
    """The files in ``directory`` whose names ``wanted`` accepts, sorted.

    An entry with such a name that is not a regular file is refused, never
    skipped: a skipped eval file is a case that silently never runs.
    """
    found: list[Path] = []
    for entry in os.scandir(directory):
        if not wanted(entry.name):
            continue
        path = Path(entry.path)
        hidden = hidden_problem(entry.name, spaces=False)
        if hidden is not None:  # the name is shown wherever a case of the file is
            raise AuthoringError(
                f"the file name {shown(entry.name)} holds {hidden}",
                where=Where(directory),
                fix="rename the file to one line of visible text",
            )
        if not entry.is_file():  # follows links, like the stat in special_kind
            raise not_regular(path)
        found.append(path)
    return sorted(found)
