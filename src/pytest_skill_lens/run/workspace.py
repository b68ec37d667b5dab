"""A case's working directory: contained, capped, and never an exception to the agent.

One :class:`Workspace` serves one work item (skill, case, runner, arm, repeat). Its
root is resolved once, at creation, so every containment check compares one
spelling of the directory (on macOS ``/tmp`` is a link to ``/private/tmp``).

Rules every path obeys, in this order:

1. lexical: an absolute path, ``..``, a NUL byte, a backslash or an empty path
   is refused before the filesystem is touched;
2. containment: the path resolved through its links must stay under the root;
3. kind: only a regular file is read or replaced, judged by ``os.stat`` and
   never by ``open`` (opening a FIFO blocks until a writer comes, which never
   happens here); a link loop is refused whichever exception Python raises.

The built-in tools (:meth:`list_files`, :meth:`read_file`, :meth:`write_file`)
return a string for every outcome, a refusal included: the model choosing a bad
path is a fact about the run to score, not an infrastructure failure.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..settings import Settings
from ..spec.paths import path_problem, segment_match

CHECK_MAX_BYTES = 1_000_000  # assertions and judge artifacts always read with this cap
LIST_MAX_LINES = 1_000  # list_files lines before "... N more"
EVIDENCE_SHOWN = 20  # workspace entries named in a check's evidence

# Flags that make a late swap (a FIFO or a link put in place after the stat) fail
# fast instead of blocking or escaping; absent on some platforms, hence getattr.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


ReadFailure = Literal["missing", "too_large", "not_utf8", "refused"]


class WorkspaceError(Exception):
    """The workspace could not be created or seeded: infrastructure, so the case is errored."""


class Refused(Exception):
    """The workspace will not serve this path; the message is the whole refusal."""

    def __init__(self, message: str, failure: ReadFailure = "refused") -> None:
        super().__init__(message)
        self.failure: ReadFailure = failure


@dataclass(frozen=True)
class Limits:
    """What one case may write: the configured caps."""

    max_file_bytes: int = 1_000_000
    max_files: int = 200
    max_total_bytes: int = 5_000_000

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(settings.max_file_bytes, settings.max_files, settings.max_total_bytes)


@dataclass(frozen=True)
class FileRead:
    """A file read for a check: its text, or why there is none."""

    text: str | None
    problem: str = ""
    failure: ReadFailure | None = None


@dataclass(frozen=True)
class GlobMatch:
    """The files a ``file_glob`` matched; only exactly one is a usable match."""

    label: str  # the pattern(s) as the author wrote them, entries joined with " | "
    matches: tuple[str, ...]
    evidence: str

    @property
    def path(self) -> str | None:
        return self.matches[0] if len(self.matches) == 1 else None


def show(path: str) -> str:
    """A path for a message: as written when plain, quoted when it holds odd characters."""
    return path if path and re.fullmatch(r"[\w./@+,=:~-]+", path) else repr(path)


def workspace_label(*parts: object) -> str:
    """A directory-name-safe label from the item's identity (skill, case, runner, arm, run)."""
    text = "-".join(str(p) for p in parts if p not in (None, ""))
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")
    return text[:80].rstrip("-.") or "case"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class Workspace:
    """A contained directory with the three built-in tools and the check-side readers."""

    def __init__(self, root: Path, limits: Limits | None = None) -> None:
        # Callers pass a resolved root (see create/attach); every check compares against it.
        self.root = root
        self.limits = limits or Limits()

    @classmethod
    def create(
        cls,
        label: str,
        files: Mapping[str, str] | None = None,
        limits: Limits | None = None,
        *,
        parent: Path | None = None,
    ) -> Workspace:
        """A fresh directory under the system temp dir (or ``parent``), seeded with ``files``.

        Raises :class:`WorkspaceError` when it cannot be created or seeded; a
        half-seeded directory is removed first.
        """
        base = parent if parent is not None else Path(tempfile.gettempdir())
        try:
            made = tempfile.mkdtemp(prefix=f"skill-lens-{workspace_label(label)}-", dir=base)
            root = Path(made).resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise WorkspaceError(f"cannot create a workspace under {base}: {_why(exc)}") from None
        workspace = cls(root, limits)
        try:
            workspace._seed(files or {})
        except BaseException:
            workspace.cleanup()
            raise
        return workspace

    @classmethod
    def attach(cls, root: Path, limits: Limits | None = None) -> Workspace:
        """A workspace over an existing directory, e.g. the root a runner was handed.

        It does not own the directory: the plugin deletes it, not this object.
        """
        return cls(Path(root).resolve(strict=True), limits)

    def _seed(self, files: Mapping[str, str]) -> None:
        for name, text in files.items():
            try:
                target = self.resolve(name)
                target.parent.mkdir(parents=True, exist_ok=True)
                _write_bytes(target, text.encode("utf-8"))
            except Refused as exc:
                raise WorkspaceError(f"cannot seed {show(name)}: {exc}") from None
            except (OSError, UnicodeError) as exc:
                raise WorkspaceError(f"cannot seed {show(name)}: {_why(exc)}") from None

    def cleanup(self) -> None:
        """Delete the directory; an error here never changes a verdict, so it is swallowed."""

        def retry_writable(function: Callable[..., Any], path: str, _exc: Any) -> None:
            # A directory the run made read-only would otherwise survive.
            with contextlib.suppress(Exception):
                os.chmod(os.path.dirname(path) or path, 0o700)
                function(path)

        with contextlib.suppress(Exception):
            if sys.version_info >= (3, 12):
                shutil.rmtree(self.root, onexc=retry_writable)
            else:
                shutil.rmtree(self.root, onerror=retry_writable)

    # -- paths -------------------------------------------------------------------------

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` inside the workspace, or :class:`Refused`.

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
            real = Path(os.path.realpath(os.path.join(self.root, path)))
        except (OSError, RuntimeError, ValueError):
            raise Refused(f"refused: {show(path)} is a symbolic-link loop") from None
        if real != self.root and not real.is_relative_to(self.root):
            raise Refused(
                f"refused: {show(path)} resolves outside the workspace through a symbolic link"
            )
        return real

    def _stat(self, real: Path, path: str) -> os.stat_result | None:
        """``os.stat`` of a resolved path; ``None`` when nothing is there. Never opens it."""
        try:
            return os.stat(real)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise Refused(f"refused: {show(path)} is a symbolic-link loop") from None
            raise Refused(f"refused: {show(path)} cannot be examined: {_why(exc)}") from None
        except (RuntimeError, ValueError):
            raise Refused(f"refused: {show(path)} is a symbolic-link loop") from None

    # -- reading -----------------------------------------------------------------------

    def read_for_check(self, path: str, max_bytes: int = CHECK_MAX_BYTES) -> FileRead:
        """``path``'s text for an assertion or a judge artifact, or why it has none."""
        try:
            real = self.resolve(path)
            found = self._stat(real, path)
            if found is None:
                return FileRead(None, f"{show(path)} was not produced: {self.listing()}", "missing")
            if not stat.S_ISREG(found.st_mode):
                return FileRead(None, f"refused: {show(path)} is {_kind(found.st_mode)}", "refused")
            if found.st_size > max_bytes:
                return FileRead(None, _too_large(path, found.st_size, max_bytes), "too_large")
            data = _read_bytes(real, path, max_bytes)
        except Refused as exc:
            return FileRead(None, str(exc), exc.failure)
        try:
            return FileRead(data.decode("utf-8"))
        except UnicodeDecodeError:
            return FileRead(None, f"refused: {show(path)} is not valid UTF-8 text", "not_utf8")

    def produced(self, path: str) -> tuple[bool, str]:
        """Whether ``path`` is a file in the workspace; its size never matters."""
        try:
            real = self.resolve(path)
            found = self._stat(real, path)
        except Refused as exc:
            return False, str(exc)
        if found is None:
            return False, f"{show(path)} was not produced: {self.listing()}"
        if not stat.S_ISREG(found.st_mode):
            return False, f"refused: {show(path)} is {_kind(found.st_mode)}, not a file"
        return True, f"{show(path)} exists ({found.st_size:,} bytes)"

    # -- the built-in tools --------------------------------------------------------------

    def list_files(self) -> str:
        """Every file, one relative path per line; never raises."""
        try:
            entries = list(self._entries())
        except Exception as exc:  # a built-in tool answers, it never raises
            return f"error: cannot list the workspace: {_why(exc)}"
        if not entries:
            return "(the workspace is empty)"
        lines = [
            rel if self._regular_target(rel) else f"{rel} (not a regular file)"
            for rel in entries[:LIST_MAX_LINES]
        ]
        if len(entries) > LIST_MAX_LINES:
            lines.append(f"... {len(entries) - LIST_MAX_LINES} more")
        return "\n".join(lines)

    def read_file(self, path: str) -> str:
        """The file's text, or a refusal the model reads; never raises."""
        try:
            read = self.read_for_check(path, self.limits.max_file_bytes)
        except Exception as exc:
            return f"error: cannot read {show(str(path))}: {_why(exc)}"
        if read.text is not None:
            return read.text
        if read.failure == "missing":
            return (
                f"error: {show(path)} does not exist in the workspace; list_files shows what does"
            )
        return read.problem

    def write_file(self, path: str, content: str) -> str:
        """Create or replace a text file within the caps; never raises."""
        try:
            return self._write(path, content)
        except Refused as exc:
            return str(exc)
        except Exception as exc:
            return f"error: cannot write {show(str(path))}: {_why(exc)}"

    def _write(self, path: str, content: str) -> str:
        if not isinstance(content, str):
            raise Refused(f"refused: content is text, not {type(content).__name__}")
        real = self.resolve(path)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError:
            raise Refused("refused: the content is not valid Unicode text") from None
        limits = self.limits
        if len(data) > limits.max_file_bytes:
            raise Refused(
                f"refused: {show(path)} would be {len(data):,} bytes; "
                f"max_file_bytes is {limits.max_file_bytes:,}"
            )
        found = self._stat(real, path)
        if found is not None and not stat.S_ISREG(found.st_mode):
            raise Refused(f"refused: {show(path)} is {_kind(found.st_mode)}, not a file")
        files, total = self.usage()
        if found is None and files + 1 > limits.max_files:
            raise Refused(
                f"refused: writing {show(path)} would make {files + 1:,} files; "
                f"max_files is {limits.max_files:,}"
            )
        after = total - (found.st_size if found is not None else 0) + len(data)
        if after > limits.max_total_bytes:
            raise Refused(
                f"refused: writing {show(path)} would bring the workspace to {after:,} bytes; "
                f"max_total_bytes is {limits.max_total_bytes:,}"
            )
        real.parent.mkdir(parents=True, exist_ok=True)
        _write_bytes(real, data)
        return f"wrote {len(data):,} bytes to {show(path)}"

    def usage(self) -> tuple[int, int]:
        """(files, bytes) in the workspace: every non-directory entry, apparent sizes.

        A sparse file counts at its apparent size: that is what a read would hand on.
        """
        files = total = 0
        for rel in self._entries():
            files += 1
            try:
                info = os.lstat(os.path.join(self.root, rel))
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                total += info.st_size
        return files, total

    # -- patterns ----------------------------------------------------------------------

    def glob(self, patterns: str | Sequence[str]) -> GlobMatch:
        """The regular files ``patterns`` match, pooled over a list's entries.

        A wildcard stays within one directory level and ``*`` matches a leading
        dot (both from :func:`segment_match`); a link to a directory is never
        entered; a link counts when it reaches a regular file, even one outside
        the workspace, so the read that follows refuses it with evidence.
        """
        entries = [patterns] if isinstance(patterns, str) else list(patterns)
        label = " | ".join(entries)
        depth = max((len(p.removeprefix("./").split("/")) for p in entries), default=0)
        matches = tuple(
            rel
            for rel in self._entries(depth)
            if any(segment_match(p, rel) for p in entries) and self._regular_target(rel)
        )
        if len(matches) == 1:
            return GlobMatch(label, matches, f"{show(matches[0])} is the one file matching {label}")
        if not matches:
            return GlobMatch(label, matches, f"no file matches {label}: {self.listing()}")
        named = ", ".join(show(m) for m in matches[:EVIDENCE_SHOWN])
        more = f" and {len(matches) - EVIDENCE_SHOWN} more" if len(matches) > EVIDENCE_SHOWN else ""
        return GlobMatch(
            label,
            matches,
            f"{len(matches)} files match {label}, exactly one is required: {named}{more}",
        )

    def listing(self) -> str:
        """The workspace's files, for a check's evidence."""
        try:
            entries = list(self._entries())
        except Exception:
            return "the workspace cannot be listed"
        if not entries:
            return "the workspace is empty"
        named = ", ".join(show(e) for e in entries[:EVIDENCE_SHOWN])
        more = f" and {len(entries) - EVIDENCE_SHOWN} more" if len(entries) > EVIDENCE_SHOWN else ""
        noun = "file" if len(entries) == 1 else "files"
        return f"the workspace holds {len(entries)} {noun}: {named}{more}"

    def _regular_target(self, rel: str) -> bool:
        try:
            return stat.S_ISREG(os.stat(os.path.join(self.root, rel)).st_mode)
        except (OSError, RuntimeError, ValueError):
            return False  # dangling link, loop, vanished file

    def _entries(self, max_depth: int | None = None) -> Iterator[str]:
        """Every non-directory entry, as a '/'-joined relative path, sorted per level.

        Links to directories are listed by os.walk as directories and, with
        followlinks=False, never entered; they are not files, so not yielded.
        """
        root = str(self.root)
        for directory, dirnames, filenames in os.walk(root, followlinks=False):
            rel_dir = os.path.relpath(directory, root)
            parts = [] if rel_dir == "." else rel_dir.split(os.sep)
            dirnames.sort()
            if max_depth is not None and len(parts) + 1 >= max_depth:
                dirnames.clear()  # deeper levels cannot match a pattern this deep
            if max_depth is not None and len(parts) + 1 > max_depth:
                continue
            for name in sorted(filenames):
                yield "/".join([*parts, name])


def _too_large(path: str, size: int, cap: int) -> str:
    return f"refused: {show(path)} is {size:,} bytes; max_file_bytes is {cap:,}"


def _read_bytes(real: Path, path: str, max_bytes: int) -> bytes:
    """Read a file already stat'ed as regular, re-checking on the open descriptor."""
    try:
        fd = os.open(real, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(f"refused: {show(path)} was replaced by a symbolic link") from None
        raise Refused(f"refused: {show(path)} cannot be read: {_why(exc)}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"refused: {show(path)} is {_kind(info.st_mode)}")
        if info.st_size > max_bytes:
            raise Refused(_too_large(path, info.st_size, max_bytes), "too_large")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew after the stat
        raise Refused(_too_large(path, len(data), max_bytes), "too_large")
    return data


def _write_bytes(real: Path, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
    fd = os.open(real, flags, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return f"{type(exc).__name__}: {exc}"
