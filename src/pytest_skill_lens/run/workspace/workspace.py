"""A case's working directory: contained, capped, and never an exception to the agent.

One :class:`Workspace` serves one work item (skill, case, runner, arm, repeat). Its
root is resolved once, at creation, so every containment check compares one
spelling of the directory (on macOS ``/tmp`` is a link to ``/private/tmp``).

The rules every path obeys (lexical, then containment, then kind by ``stat``) are in
:mod:`.containment`; the caps on writes in :mod:`.caps`; listing and
``file_glob`` matching in :mod:`.listing`. This module puts them together.

The built-in tools (:meth:`list_files`, :meth:`read_file`, :meth:`write_file`)
return a string for every outcome, a refusal included: the model choosing a bad
path is a fact about the run to score, not an infrastructure failure.
"""

from __future__ import annotations

import re
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..process.leftovers import PREFIX, owner_mark, remove_tree
from ..process.temp_parent import make_dir, parent_of
from .caps import Limits, growth_refusal, size_refusal
from .caps import usage as _usage
from .containment import (
    ReadFailure,
    Refused,
    hard_linked,
    kind_of,
    read_regular,
    resolve_within,
    show,
    stat_only,
    too_large,
    why,
    write_within,
)
from .listing import GlobMatch, entries, regular_target
from .listing import glob as _glob
from .listing import listing as _listing

__all__ = [
    "CHECK_MAX_BYTES",
    "LIST_MAX_LINES",
    "FileRead",
    "GlobMatch",
    "Limits",
    "ReadFailure",
    "Refused",
    "Workspace",
    "WorkspaceError",
    "show",
    "workspace_label",
]

CHECK_MAX_BYTES = 1_000_000  # assertions and judge artifacts always read with this cap
LIST_MAX_LINES = 1_000  # list_files lines before "... N more"


class WorkspaceError(Exception):
    """The workspace could not be created or seeded: infrastructure, so the case is errored."""


@dataclass(frozen=True)
class FileRead:
    """A file read for a check: its text, or why there is none."""

    text: str | None
    problem: str = ""
    failure: ReadFailure | None = None


def workspace_label(*parts: object) -> str:
    """A directory-name-safe label from the item's identity (skill, case, runner, arm, run)."""
    text = "-".join(str(p) for p in parts if p not in (None, ""))
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")
    return text[:80].rstrip("-.") or "case"


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
        kept: bool = False,
    ) -> Workspace:
        """A fresh directory in the user's skill-lens parent (:mod:`..process.temp_parent`; or in
        ``parent``), seeded with ``files``.

        Its name ends with this process's mark (see :mod:`..process.leftovers`), so a later
        run removes it if this process dies before :meth:`cleanup`; a ``kept``
        directory is meant to outlive the run and carries no mark.

        Raises :class:`WorkspaceError` when it cannot be created or seeded; a
        half-seeded directory is removed first.
        """
        base = parent if parent is not None else parent_of()
        prefix = f"{PREFIX}{workspace_label(label)}-"
        suffix = "" if kept else owner_mark()
        try:
            if parent is None:  # the user's skill-lens parent, made and checked
                root = make_dir(prefix, suffix)
            else:
                made = tempfile.mkdtemp(suffix=suffix, prefix=prefix, dir=parent)
                root = Path(made).resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise WorkspaceError(f"cannot create a workspace under {base}: {why(exc)}") from None
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
                write_within(self.root, self.resolve(name), text.encode("utf-8"), name)
            except Refused as exc:
                raise WorkspaceError(f"cannot seed {show(name)}: {exc}") from None
            except (OSError, UnicodeError) as exc:
                raise WorkspaceError(f"cannot seed {show(name)}: {why(exc)}") from None

    def cleanup(self) -> None:
        """Delete the directory, never following a link; an error here never changes a
        verdict, so it is swallowed."""
        remove_tree(self.root)

    # -- paths -------------------------------------------------------------------------

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` inside the workspace, or :class:`Refused`.

        Lexical rules first, so an absolute path or ``..`` never reaches the
        filesystem; then the path is resolved through its links and must stay
        under the root (see :mod:`.containment`).
        """
        return resolve_within(self.root, path)

    # -- reading -----------------------------------------------------------------------

    def read_for_check(self, path: str, max_bytes: int = CHECK_MAX_BYTES) -> FileRead:
        """``path``'s text for an assertion or a judge artifact, or why it has none."""
        try:
            real = self.resolve(path)
            found = stat_only(real, path)
            if found is None:
                return FileRead(None, f"{show(path)} was not produced: {self.listing()}", "missing")
            if not stat.S_ISREG(found.st_mode):
                return FileRead(
                    None, f"refused: {show(path)} is {kind_of(found.st_mode)}", "refused"
                )
            if found.st_nlink > 1:
                return FileRead(None, hard_linked(path, found.st_nlink), "hard_link")
            if found.st_size > max_bytes:
                return FileRead(None, too_large(path, found.st_size, max_bytes), "too_large")
            data = read_regular(real, path, max_bytes)
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
            found = stat_only(real, path)
        except Refused as exc:
            return False, str(exc)
        if found is None:
            return False, f"{show(path)} was not produced: {self.listing()}"
        if not stat.S_ISREG(found.st_mode):
            return False, f"refused: {show(path)} is {kind_of(found.st_mode)}, not a file"
        if found.st_nlink > 1:  # it may be a file outside, so it proves nothing was produced
            return False, hard_linked(path, found.st_nlink)
        return True, f"{show(path)} exists ({found.st_size:,} bytes)"

    # -- the built-in tools --------------------------------------------------------------

    def list_files(self) -> str:
        """Every file, one relative path per line; never raises."""
        try:
            found = list(entries(self.root))
        except Exception as exc:  # a built-in tool answers, it never raises
            return f"error: cannot list the workspace: {why(exc)}"
        if not found:
            return "(the workspace is empty)"
        lines = [
            rel if regular_target(self.root, rel) else f"{rel} (not a regular file)"
            for rel in found[:LIST_MAX_LINES]
        ]
        if len(found) > LIST_MAX_LINES:
            lines.append(f"... {len(found) - LIST_MAX_LINES} more")
        return "\n".join(lines)

    def read_file(self, path: str) -> str:
        """The file's text, or a refusal the model reads; never raises."""
        try:
            read = self.read_for_check(path, self.limits.max_file_bytes)
        except Exception as exc:
            return f"error: cannot read {show(str(path))}: {why(exc)}"
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
            return f"error: cannot write {show(str(path))}: {why(exc)}"

    def _write(self, path: str, content: str) -> str:
        if not isinstance(content, str):
            raise Refused(f"refused: content is text, not {type(content).__name__}")
        real = self.resolve(path)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError:
            raise Refused("refused: the content is not valid Unicode text") from None
        problem = size_refusal(path, len(data), self.limits)
        if problem is not None:
            raise Refused(problem)
        found = stat_only(real, path)
        if found is not None and not stat.S_ISREG(found.st_mode):
            raise Refused(f"refused: {show(path)} is {kind_of(found.st_mode)}, not a file")
        replaced = found.st_size if found is not None else None
        problem = growth_refusal(path, len(data), replaced, self.usage(), self.limits)
        if problem is not None:
            raise Refused(problem)
        # A fresh file renamed over the name: a link planted there is replaced, not followed.
        write_within(self.root, real, data, path)
        return f"wrote {len(data):,} bytes to {show(path)}"

    def usage(self) -> tuple[int, int]:
        """(files, bytes) in the workspace: every non-directory entry, apparent sizes.

        A sparse file counts at its apparent size: that is what a read would hand on.
        """
        return _usage(self.root)

    # -- patterns ----------------------------------------------------------------------

    def glob(self, patterns: str | Sequence[str]) -> GlobMatch:
        """The regular files ``patterns`` match, pooled over a list's entries.

        A wildcard stays within one directory level and ``*`` matches a leading
        dot; a link to a directory is never entered; a link counts when it
        reaches a regular file, even one outside the workspace, so the read that
        follows refuses it with evidence (see :mod:`.listing`).
        """
        return _glob(self.root, patterns)

    def listing(self) -> str:
        """The workspace's files, for a check's evidence."""
        return _listing(self.root)
