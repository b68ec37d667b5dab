"""The one directory of the system temp dir that holds every skill-lens temporary directory.

Workspaces, product calls' directories and homes, MCP bridge files, scripts' scratch
directories, extracted previous versions, the spend ledger and the sandbox probes of
every session of one user live in ``<temp>/skill-lens-<uid>`` (:func:`parent_of`). So a
product's sandbox hides them all, those made later included, with one tmpfs over that
directory, whatever else the temp directory holds (:mod:`..sandbox.product_sandbox`).

The system temp directory is shared by every user, so the parent is trusted only when
it is a real directory (not a link) owned by the current user and closed to everyone
else (no group or other bits), as ``tmux`` treats its socket directory; otherwise
nothing is made in it and the caller is told why (:class:`UnsafeParent`). A directory
made in it is checked again once made: the parent may have been removed meanwhile (an
empty one is removed at a session's end, or by a temp cleaner) and another user's put
in its place; then the check fails and nothing is used.
"""

from __future__ import annotations

import contextlib
import errno
import getpass
import os
import re
import stat
import tempfile
from pathlib import Path

PARENT_PREFIX = "skill-lens-"
_ATTEMPTS = 3  # the parent removed between its check and the mkdtemp, at most this often


FIX = "remove it, or set TMPDIR to a directory of your own"


class UnsafeParent(OSError):
    """The parent directory cannot be trusted; ``strerror`` says why and what to do."""

    def __init__(self, parent: Path, problem: str) -> None:
        self.problem = f"{parent} is {problem}"
        super().__init__(
            errno.EPERM,
            f"{self.problem}: skill-lens keeps your temporary directories there and will "
            f"not use it; {FIX}",
        )


def system_temp() -> Path:
    """The system temporary directory, resolved (macOS's /var is a link to /private/var)."""
    return Path(tempfile.gettempdir()).resolve()


def parent_of(base: Path | None = None) -> Path:
    """``<base>/skill-lens-<uid>`` (the user's name where there are no uids); made by
    :func:`own_parent`, not here."""
    base = base if base is not None else system_temp()
    if hasattr(os, "getuid"):
        return base / f"{PARENT_PREFIX}{os.getuid()}"
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", getpass.getuser())  # pragma: no cover - Windows
    return base / f"{PARENT_PREFIX}{name}"  # pragma: no cover - Windows


def own_parent(base: Path | None = None) -> Path:
    """The parent under ``base`` (default: the system temp dir), made if missing.

    Raises :class:`UnsafeParent` when it is a link, not a directory, another user's or
    open to others; :class:`OSError` when it cannot be made.
    """
    parent = parent_of(base)
    with contextlib.suppress(FileExistsError):
        os.mkdir(parent, 0o700)
    check_parent(parent)
    return parent


def check_parent(parent: Path) -> None:
    """Raise :class:`UnsafeParent` unless ``parent`` is a directory only this user can use."""
    info = os.lstat(parent)
    problem = None
    if stat.S_ISLNK(info.st_mode):
        problem = "a symbolic link"
    elif not stat.S_ISDIR(info.st_mode):
        problem = "not a directory"
    elif hasattr(os, "getuid") and info.st_uid != os.getuid():
        problem = f"owned by uid {info.st_uid}, not by you (uid {os.getuid()})"
    elif hasattr(os, "getuid") and info.st_mode & 0o077:
        problem = f"open to other users (mode {stat.S_IMODE(info.st_mode):04o})"
    if problem is not None:
        raise UnsafeParent(parent, problem)


def make_dir(prefix: str, suffix: str = "", base: Path | None = None) -> Path:
    """A new directory (mode 0700) in the parent under ``base``, resolved.

    Raises :class:`OSError` (:class:`UnsafeParent` among them) when none can be made safely.
    """
    for attempt in range(_ATTEMPTS):
        parent = own_parent(base)
        try:
            made = Path(tempfile.mkdtemp(prefix=prefix, suffix=suffix, dir=parent))
        except FileNotFoundError:
            if attempt + 1 == _ATTEMPTS:
                raise
            continue  # the (empty) parent was removed meanwhile: make it again
        try:
            # Made in the parent now at that path, which no one else can replace once it
            # is ours: the directory is where it was asked for, never in an impostor.
            check_parent(parent)
            if not stat.S_ISDIR(os.lstat(made).st_mode):
                raise UnsafeParent(made, "not the directory that was made (replaced)")
        except OSError:
            with contextlib.suppress(OSError):
                os.rmdir(made)
            raise
        return made.resolve()
    raise AssertionError("unreachable")  # pragma: no cover


def remove_parent_if_empty(base: Path | None = None) -> None:
    """Remove the parent when nothing is left in it (a session's end); never raises."""
    with contextlib.suppress(OSError):
        os.rmdir(parent_of(base))
