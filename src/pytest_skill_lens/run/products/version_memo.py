"""A product's ``--version`` answer, remembered across sessions when it is surely the same.

Starting a product only to print its version costs up to 1.5 s (Gemini CLI loads its whole
bundle), in every session and every pytest-xdist worker. So a successful answer is kept in
one file, ``product-versions.json`` in the user's skill-lens parent of the temp directory
(:mod:`..process.temp_parent`), keyed by a :class:`Question`: the preset, the executable
resolved through its links with its identity (device, inode, size, mtime and ctime in ns),
and the product sandbox decision as far as a start is concerned (backend, home isolation,
the bwrap executable the same way, the isolation flags). Anything else is a miss, and the
caller probes as before. The memo only ever spares the ``--version`` start: its answer is
the version printed, never part of a command line.

The file is read strictly (no link followed, a regular file of this user, at most
``MAX_BYTES``, an exact shape); anything off is a miss, and the next answer rewrites it
whole (a temp file beside it, then ``os.replace``: concurrent writers race, the last wins,
a reader never sees half a file). The leftovers sweep (:mod:`..process.leftovers`) removes
only directories named with an owner mark, never this file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..process.temp_parent import check_parent, own_parent, parent_of
from ..sandbox.product_sandbox import ProductSandbox

MEMO_NAME = "product-versions.json"
MAX_BYTES = 64 * 1024
MAX_ENTRIES = 32
MAX_ANSWER = 200  # the preflight keeps this much of the first line, for the report and here
# A file changed within this of its stat may change again with the same timestamps (coarse
# clocks; 1-2 s on some file systems): such an answer is not remembered.
SETTLED_NS = 2_000_000_000

Stamp = tuple[int, int, int, int, int]
_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)


class Question(BaseModel):
    """What makes two ``--version`` starts the same question."""

    model_config = _STRICT

    preset: str
    executable: str
    stat: Stamp
    backend: str
    home_isolated: bool
    bwrap: str | None
    bwrap_stat: Stamp | None
    isolation: tuple[str, ...]


class _Entry(BaseModel):
    model_config = _STRICT

    question: Question
    answer: Annotated[str, Field(min_length=1, max_length=MAX_ANSWER)]


class _Memo(BaseModel):
    model_config = _STRICT

    format: Literal[1]
    entries: Annotated[list[_Entry], Field(max_length=MAX_ENTRIES)]


def question(preset: str, found: str, sandbox: ProductSandbox | None) -> Question | None:
    """The question a ``--version`` start of ``found`` asks; ``None`` when a file cannot be
    looked at (then nothing is recalled or remembered)."""
    real, stamp = _identity(found)
    if stamp is None:
        return None
    bwrap, bwrap_stat = None, None
    if sandbox is not None and sandbox.executable is not None:
        bwrap, bwrap_stat = _identity(sandbox.executable)
        if bwrap_stat is None:
            return None
    return Question(
        preset=preset,
        executable=real,
        stat=stamp,
        backend=sandbox.backend if sandbox is not None else "none",
        home_isolated=sandbox.home_isolated if sandbox is not None else False,
        bwrap=bwrap,
        bwrap_stat=bwrap_stat,
        isolation=sandbox.isolation if sandbox is not None else (),
    )


def recall(asked: Question, base: Path | None = None) -> str | None:
    """The answer remembered for ``asked``, or ``None`` (a miss) for anything else."""
    memo = _read(base)
    found = [entry.answer for entry in memo if entry.question == asked]
    return found[-1] if found else None


def remember(asked: Question, answer: str, base: Path | None = None) -> None:
    """Keep ``answer`` (a successful probe's) for ``asked``; never raises."""
    if not answer or len(answer) > MAX_ANSWER or not _settled(asked):
        return
    kept = [entry for entry in _read(base) if entry.question != asked]
    kept.append(_Entry(question=asked, answer=answer))
    text = _Memo(format=1, entries=kept[-MAX_ENTRIES:]).model_dump_json()
    with contextlib.suppress(OSError):
        _write(own_parent(base), text)


def _identity(path: str) -> tuple[str, Stamp | None]:
    real = os.path.realpath(path)
    try:
        info = os.stat(real)
    except OSError:
        return real, None
    if not stat.S_ISREG(info.st_mode):
        return real, None
    return real, (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _settled(asked: Question) -> bool:
    """Every file of ``asked`` unchanged for ``SETTLED_NS``, checked again now."""
    now = time.time_ns()
    stamps = [asked.stat] if asked.bwrap_stat is None else [asked.stat, asked.bwrap_stat]
    if any(now - stamp[4] < SETTLED_NS for stamp in stamps):
        return False
    return _identity(asked.executable)[1] == asked.stat and (
        asked.bwrap is None or _identity(asked.bwrap)[1] == asked.bwrap_stat
    )


def _read(base: Path | None) -> list[_Entry]:
    """The memo's entries; none when the file is missing, unsafe or not exactly its shape."""
    parent = parent_of(base)
    try:
        check_parent(parent)  # checked, never made, to read: an unsafe parent has no memo
        fd = os.open(parent / MEMO_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return []
    try:
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
                return []
            if info.st_size > MAX_BYTES:
                return []
            data = handle.read(MAX_BYTES + 1)
    except OSError:
        return []
    if len(data) > MAX_BYTES:
        return []
    try:
        return list(_Memo.model_validate_json(data).entries)
    except ValidationError:
        return []


def _write(parent: Path, text: str) -> None:
    fd, temp = tempfile.mkstemp(prefix=f".{MEMO_NAME}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:  # mkstemp's mode: 0600
            handle.write(text)
        os.replace(temp, parent / MEMO_NAME)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
