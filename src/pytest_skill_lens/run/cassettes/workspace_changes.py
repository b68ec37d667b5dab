"""What a product did to a case's workspace: kept in its cassette, made again on replay.

A framework runner writes files through the plugin's own workspace tools, so its
replay (the real agent loop on recorded responses) writes them again. A product
writes files itself, so its recording keeps what the checks read of the workspace
afterwards: every entry that was created, changed or deleted while the product ran,
measured against a listing taken just before it started (after the skill was
delivered). Regular files are kept as text, or as base64 when small and not UTF-8;
symbolic links as their target; deletions as such. Empty directories are not kept:
no check reads one.

What cannot be made again faithfully is refused rather than approximated: a hard
link, a FIFO or device, a name that is not UTF-8 or not a workspace path, a file
over :data:`MAX_FILE_BYTES` (no check reads more of one), a binary over
:data:`MAX_BINARY_BYTES`, more than :data:`MAX_ENTRIES` entries or
:data:`MAX_TOTAL_BYTES` in all. The run is still scored as it ran; only its
cassette is not written, and the summary says why (:class:`NotRecordable`).
"""

from __future__ import annotations

import base64
import contextlib
import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...suite.paths import path_problem
from ..process.leftovers import remove_tree
from ..workspace.containment import Refused, kind_of, resolve_within, write_within

MAX_ENTRIES = 200
MAX_FILE_BYTES = 1_000_000  # the most any check reads of one file (CHECK_MAX_BYTES)
MAX_BINARY_BYTES = 64 * 1024
MAX_TOTAL_BYTES = 8 * 1024 * 1024

Change = dict[str, Any]  # {"path": ..., and one of "text", "base64", "link", "deleted"}
_Signature = tuple[int, int, int, int]  # mode, size, mtime in ns, inode


class NotRecordable(Exception):
    """The workspace's end state cannot be kept faithfully; the message says what and why."""


class ChangeRefused(Exception):
    """A recorded change cannot be made in the workspace now; the message says why."""


@dataclass(frozen=True)
class Snapshot:
    """Every non-directory entry under a root, by its '/'-joined path, as ``lstat`` saw it."""

    entries: Mapping[str, _Signature]


def snapshot(root: Path) -> Snapshot:
    return Snapshot(dict(_walk(root)))


def _walk(root: Path) -> list[tuple[str, _Signature]]:
    found: list[tuple[str, _Signature]] = []
    top = str(root)
    for directory, dirnames, filenames in os.walk(top, followlinks=False):
        rel_dir = os.path.relpath(directory, top)
        prefix = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        dirnames.sort()
        # A link to a directory is listed with the directories and never entered.
        names = sorted(filenames) + [
            d for d in dirnames if os.path.islink(os.path.join(directory, d))
        ]
        for name in names:
            try:
                info = os.lstat(os.path.join(directory, name))
            except OSError:
                continue  # gone since it was listed
            found.append(
                (prefix + name, (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino))
            )
    return found


def changes_since(root: Path, before: Snapshot, secrets: Sequence[str] = ()) -> list[Change]:
    """The entries created, changed or deleted under ``root`` since ``before``, in path
    order, deletions first; ``secrets`` are replaced in what is kept. Raises
    :class:`NotRecordable`."""
    after = dict(_walk(root))
    changed = sorted(
        path for path, signature in after.items() if before.entries.get(path) != signature
    )
    deleted = sorted(path for path in before.entries if path not in after)
    if len(changed) + len(deleted) > MAX_ENTRIES:
        raise NotRecordable(
            f"the product changed {len(changed) + len(deleted):,} workspace entries, more than "
            f"a cassette keeps ({MAX_ENTRIES})"
        )
    kept: list[Change] = []
    for path in deleted:
        _check_name(path)
        kept.append({"path": path, "deleted": True})
    total = 0
    redactor = Redactor(secrets)
    for path in changed:
        _check_name(path)
        change = _kept(root, path, after[path][0], redactor)
        total += len(change.get("text", "").encode("utf-8")) + len(change.get("base64", ""))
        if total > MAX_TOTAL_BYTES:
            raise NotRecordable(
                f"the files the product wrote come to more than a cassette keeps "
                f"({MAX_TOTAL_BYTES:,} bytes)"
            )
        kept.append(change)
    return kept


def _check_name(path: str) -> None:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise NotRecordable(f"the product wrote {path!r}, a name that is not UTF-8") from None
    problem = path_problem(path)
    if problem is not None:
        raise NotRecordable(f"the product wrote {path!r}, which cannot be made again: {problem}")


def _kept(root: Path, path: str, mode: int, redactor: Redactor) -> Change:
    full = os.path.join(root, path)
    if stat.S_ISLNK(mode):
        target = os.readlink(full)
        try:
            target.encode("utf-8")
        except UnicodeEncodeError:
            raise NotRecordable(f"the link {path!r} points at a name that is not UTF-8") from None
        return {"path": path, "link": target}
    if not stat.S_ISREG(mode):
        raise NotRecordable(f"the product left {path!r}, which is {kind_of(mode)}")
    data = redactor.bytes(_read(full, path))
    change: Change = {"path": path}
    try:
        change["text"] = data.decode("utf-8")
    except UnicodeDecodeError:
        if len(data) > MAX_BINARY_BYTES:
            raise NotRecordable(
                f"the product wrote {path!r}, {len(data):,} bytes that are not UTF-8 text, "
                f"more than a cassette keeps of a binary file ({MAX_BINARY_BYTES:,})"
            ) from None
        change["base64"] = base64.b64encode(data).decode("ascii")
    if mode & 0o111:
        change["executable"] = True
    return change


def _read(full: str, path: str) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    # Non-blocking, and judged again on the descriptor: something the product left
    # running may have put a FIFO there since the walk.
    flags |= getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(full, flags)
    except OSError as exc:
        raise NotRecordable(f"{path!r} cannot be read: {exc.strerror or exc}") from None
    with open(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise NotRecordable(f"the product left {path!r}, which is {kind_of(info.st_mode)}")
        if info.st_nlink > 1:
            raise NotRecordable(f"the product left {path!r} as a hard link, which proves nothing")
        if info.st_size > MAX_FILE_BYTES:
            raise NotRecordable(
                f"the product wrote {path!r}, {info.st_size:,} bytes, more than a cassette keeps "
                f"of one file ({MAX_FILE_BYTES:,})"
            )
        return handle.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]


def redacted_mark() -> str:
    return "[redacted by skill-lens]"


SECRET_MIN = 8  # shorter values ("1", "true") are no credential and would mangle the text


class Redactor:
    """Replaces each secret value with :func:`redacted_mark` in what a cassette keeps."""

    def __init__(self, secrets: Sequence[str]) -> None:
        # The longest first, so a secret inside another is never left half replaced.
        self._secrets = sorted({s for s in secrets if len(s) >= SECRET_MIN}, key=len, reverse=True)

    def text(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, redacted_mark())
        return text

    def bytes(self, data: bytes) -> bytes:
        for secret in self._secrets:
            data = data.replace(
                secret.encode("utf-8", errors="surrogatepass"), redacted_mark().encode()
            )
        return data


# -- on replay ---------------------------------------------------------------------------


def held_problem(changes: Sequence[Mapping[str, Any]]) -> str | None:
    """Why recorded ``changes`` are more than :func:`changes_since` keeps, or None: a
    cassette is input, held to the bounds its recording applies before any is made."""
    if len(changes) > MAX_ENTRIES:
        return (
            f"it holds {len(changes):,} workspace entries, more than a recording keeps "
            f"({MAX_ENTRIES})"
        )
    seen: set[str] = set()
    total = 0
    for change in changes:
        path = str(change.get("path"))
        if path in seen:
            return f"it names the workspace path {path!r} twice"
        seen.add(path)
        text, encoded = change.get("text"), change.get("base64")
        if isinstance(text, str):
            size = len(text.encode("utf-8", errors="surrogatepass"))
            if size > MAX_FILE_BYTES:
                return (
                    f"its file {path!r} is {size:,} bytes, more than a recording keeps of "
                    f"one file ({MAX_FILE_BYTES:,})"
                )
            total += size
        elif isinstance(encoded, str):
            size = len(encoded) * 3 // 4 - encoded[-2:].count("=")  # decoded, not decoding
            if size > MAX_BINARY_BYTES:
                return (
                    f"its binary file {path!r} is {size:,} bytes, more than a recording keeps "
                    f"of a binary file ({MAX_BINARY_BYTES:,})"
                )
            total += len(encoded)  # as changes_since counts it
        if total > MAX_TOTAL_BYTES:
            return (
                f"its files come to more than a recording keeps ({MAX_TOTAL_BYTES:,} bytes in all)"
            )
    return None


def apply_changes(root: Path, changes: Sequence[Mapping[str, Any]]) -> None:
    """Make ``changes`` again under ``root``: deletions, then files, then links, never
    through a link out of it. Raises :class:`ChangeRefused`."""
    root = Path(root).resolve()
    ordered = sorted(changes, key=lambda c: 0 if c.get("deleted") else 2 if "link" in c else 1)
    for change in ordered:  # every path first: a refused one leaves nothing half made
        path = str(change.get("path"))
        problem = path_problem(path)
        if problem is not None:
            raise ChangeRefused(f"the recorded workspace path {path!r} is refused: {problem}")
    for change in ordered:
        path = str(change.get("path"))
        try:
            _apply(root, path, change)
        except Refused as exc:
            raise ChangeRefused(f"{path!r}: {exc}") from None
        except (OSError, ValueError) as exc:
            raise ChangeRefused(f"{path!r} cannot be made again: {exc}") from None


def _apply(root: Path, path: str, change: Mapping[str, Any]) -> None:
    if change.get("deleted"):
        _remove(_entry(root, path))
        return
    if "link" in change:
        entry = _entry(root, path)
        _remove(entry)
        entry.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(str(change["link"]), entry)
        return
    text, encoded = change.get("text"), change.get("base64")
    data = (
        text.encode("utf-8")
        if isinstance(text, str)
        else base64.b64decode(str(encoded), validate=True)
    )
    real = resolve_within(root, path)
    write_within(root, real, data, path)
    if change.get("executable"):
        os.chmod(real, 0o755)


def _entry(root: Path, path: str) -> Path:
    """``path``'s own directory entry (a link itself, not what it points at)."""
    head, _, name = path.rpartition("/")
    parent = resolve_within(root, head) if head else root
    return parent / name


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        remove_tree(entry)
        return
    with contextlib.suppress(FileNotFoundError):
        os.unlink(entry)
