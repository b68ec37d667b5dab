"""A skill's bundle: every file it ships beside SKILL.md that an agent may read.

The bundle is the skill's directory minus what must never reach the agent, at any
depth and in any letter case: the top-level SKILL.md (the text under measurement),
the eval files (they hold the answers), version control, dependency and cache
directories, secret files and ``skill-lens.toml``. A link counts as the file it
resolves to, so a link onto a withheld file or out of the skill's directory is
withheld too; a link to a directory is never entered. A hard link onto a withheld
file is withheld, and a file with more than one hard link is read only while it
is the file the scan vetted (same device and inode).

Only regular files ship, judged by ``os.stat`` and never by ``open`` (opening a
FIFO blocks until a writer comes, which never happens here); a link loop is
refused whichever exception Python raises. A skill that ships more than
:data:`MAX_BUNDLE_FILES` files or :data:`MAX_BUNDLE_BYTES` bytes is refused as a
whole: that is almost always a SKILL.md at a repository root.

:meth:`Bundle.listing` and :meth:`Bundle.read` are what the ``list_skill_files`` and
``read_skill_file`` tools return; like every built-in tool they never raise, a
refusal is the text the model reads.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ...suite.paths import path_problem
from ...suite.skill import SCRIPTS_DIR as SCRIPTS_DIR
from .containment import Refused, kind_of, read_regular, show, too_large, why
from .workspace import CHECK_MAX_BYTES

MAX_BUNDLE_FILES = 1_000
MAX_BUNDLE_BYTES = 100_000_000
READ_MAX_BYTES = CHECK_MAX_BYTES  # read_skill_file always uses the built-in 1 MB cap

# Withheld wherever they appear as a path component, compared lower-cased.
_WITHHELD_NAMES = frozenset(
    {
        "evals",
        "evals.json",
        "evals.json.converted",  # where convert --replace moves one aside
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "__pycache__",
        ".env",
        ".npmrc",
        ".netrc",
        ".pypirc",
        "skill-lens.toml",
    }
)
_EVAL_SUFFIX = ".eval.yaml"
_ENV_PREFIX = ".env."
_SKILL_FILE = "skill.md"  # only at the top: a nested SKILL.md (a template, say) ships

NEVER_READABLE = (
    "SKILL.md, eval files (evals/, *.eval.yaml, evals.json), version control, "
    "dependency directories and secret files (.env, .npmrc, ...) are never readable"
)
OVER_CAP_HINT = (
    f"a bundle is at most {MAX_BUNDLE_FILES:,} files and 100 MB ({MAX_BUNDLE_BYTES:,} bytes); "
    "that is almost always a SKILL.md at a repository root, which would otherwise ship the "
    "whole repository"
)
TOO_MANY_FILES = f"refused: the skill ships more than {MAX_BUNDLE_FILES:,} files; {OVER_CAP_HINT}"
TOO_MANY_BYTES = f"refused: the skill ships more than 100 MB; {OVER_CAP_HINT}"
# Withheld directories that may be huge and hold no answer key: walked last for hard links.
_BULKY = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__"})


def withheld(parts: Sequence[str]) -> bool:
    """Whether a path inside the skill's directory (its components) is never shipped."""
    if len(parts) == 1 and parts[0].lower() == _SKILL_FILE:
        return True
    for part in parts:
        name = part.lower()
        if name in _WITHHELD_NAMES or name.startswith(_ENV_PREFIX) or name.endswith(_EVAL_SUFFIX):
            return True
    return False


def not_shipped(path: str) -> str:
    """The refusal for a withheld path, or a link onto one or out of the skill."""
    return f"refused: {path!r} is not a file the skill ships; {NEVER_READABLE}"


def not_in_bundle(path: str) -> str:
    return f"error: {path!r} is not in the skill's bundle; list_skill_files shows what is"


@dataclass(frozen=True)
class _Scan:
    files: dict[str, Path]  # shipped relative POSIX path -> its real path
    refusal: str | None
    # (device, inode) of each shipped file: a hard link is read only as the file scanned.
    identities: dict[str, tuple[int, int]] = field(default_factory=dict)


class Bundle:
    """The files one skill directory ships; scanned once, on first use."""

    def __init__(self, root: Path | None, also_withheld: Iterable[Path] = ()) -> None:
        self.root = root  # resolved; None: nothing ships (no directory, or no skill at all)
        self._also_withheld = tuple(also_withheld)

    @classmethod
    def of(cls, skill_dir: Path, *, also_withheld: Iterable[Path] = ()) -> Bundle:
        """The bundle of the directory holding SKILL.md; cheap, the walk happens on first use.

        ``also_withheld`` names more eval files or directories to keep out (e.g. a
        ``--skill-lens-evals`` path inside the skill's directory).
        """
        try:
            root = Path(skill_dir).resolve()
        except (OSError, RuntimeError, ValueError):
            return cls(None)
        extra = []
        for path in also_withheld:
            try:
                extra.append(Path(path).resolve())
            except (OSError, RuntimeError, ValueError):
                continue
        return cls(root, extra)

    @classmethod
    def empty(cls) -> Bundle:
        """No bundle at all: what a ``--baseline none`` arm has, there being no skill."""
        return cls(None)

    # -- what ships --------------------------------------------------------------------

    @cached_property
    def _scan(self) -> _Scan:
        if self.root is None:
            return _Scan({}, None)
        try:
            return self._walk(self.root)
        except Exception as exc:  # the bundle tools answer, they never raise
            return _Scan({}, f"error: cannot list the skill's files: {why(exc)}")

    def files(self) -> list[str]:
        """Every shipped regular file, as sorted relative POSIX paths; empty when refused."""
        return sorted(self._scan.files)

    def scripts(self) -> list[str]:
        """The shipped files under ``scripts/`` (any extension), sorted."""
        return [f for f in self.files() if f.startswith(SCRIPTS_DIR + "/")]

    @property
    def refusal(self) -> str | None:
        """Why the whole bundle is refused (too many files or bytes), or ``None``."""
        return self._scan.refusal

    @property
    def exists(self) -> bool:
        """Whether the skill ships anything, so the bundle tools are offered.

        A refused bundle counts: ``list_skill_files`` then tells the model why.
        """
        return bool(self._scan.files) or self._scan.refusal is not None

    def __bool__(self) -> bool:
        return self.exists

    def resolve(self, relpath: str) -> Path | str:
        """The real path of shipped file ``relpath``, or the refusal text for it.

        The lexical rules and the withheld names are applied before the
        filesystem is touched, so asking for ``evals/whatever`` says nothing
        about whether it exists. A shipped file is examined again (by ``stat``)
        on every call, since the directory may have changed since the scan.
        """
        if not isinstance(relpath, str):
            return f"refused: a path is text, not {type(relpath).__name__}"
        problem = path_problem(relpath)
        if problem is not None:
            problem = problem.replace("the workspace", "the skill's directory")
            return f"refused: {relpath!r}: {problem}"
        norm = posixpath.normpath(relpath)
        parts = norm.split("/")
        if withheld(parts):
            return not_shipped(relpath)
        if self.root is None:
            return not_in_bundle(relpath)
        if self.refusal is not None:
            return self.refusal
        target = self._target(parts, relpath)
        if isinstance(target, str):
            return target
        if norm not in self._scan.files:
            # A regular file that is not shipped: under a linked directory (never
            # entered), a hard link onto a withheld file, or made after the scan.
            return not_in_bundle(relpath)
        return target[0]

    # -- the two tools -----------------------------------------------------------------

    def listing(self) -> str:
        """``list_skill_files``: one path per line, or the refusal; never raises."""
        try:
            if self.refusal is not None:
                return self.refusal
            return "\n".join(self.files()) or "(the skill ships no files)"
        except Exception as exc:
            return f"error: cannot list the skill's files: {why(exc)}"

    def read(self, relpath: str) -> str:
        """``read_skill_file``: the file's text, or a refusal the model reads; never raises."""
        try:
            return self._read(relpath)
        except Exception as exc:
            return f"error: cannot read {relpath!r}: {why(exc)}"

    def _read(self, relpath: str) -> str:
        real = self.resolve(relpath)
        if isinstance(real, str):
            return real
        try:
            info = os.stat(real)
        except OSError as exc:
            return f"refused: {show(relpath)} cannot be examined: {why(exc)}"
        if not stat.S_ISREG(info.st_mode):
            return f"refused: {show(relpath)} is {kind_of(info.st_mode)}"
        if info.st_size > READ_MAX_BYTES:
            return too_large(relpath, info.st_size, READ_MAX_BYTES)
        try:
            vetted = self._scan.identities.get(posixpath.normpath(relpath))
            data = read_regular(
                real, relpath, READ_MAX_BYTES, vetted=vetted, where="the skill's directory"
            )
        except Refused as exc:
            return str(exc)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            # Word for word what the workspace's read_file says of such a file.
            return f"refused: {show(relpath)} is not valid UTF-8 text"

    # -- the walk ----------------------------------------------------------------------

    def _walk(self, root: Path) -> _Scan:
        files: dict[str, Path] = {}
        sizes: dict[str, os.stat_result] = {}
        named_out: list[Path] = []  # withheld by name: a hard link onto one is withheld too
        total = 0
        for directory, dirnames, filenames in os.walk(root, followlinks=False):
            rel_dir = os.path.relpath(directory, root)
            base = [] if rel_dir == "." else rel_dir.split(os.sep)
            kept = []
            for name in sorted(dirnames):
                if withheld([*base, name]):
                    named_out.append(Path(directory, name))
                else:
                    kept.append(name)
            dirnames[:] = kept  # withheld directories are never entered
            for name in sorted(filenames):
                parts = [*base, name]
                if withheld(parts):
                    named_out.append(Path(directory, name))
                    continue
                rel = "/".join(parts)
                target = self._target(parts, rel)
                if isinstance(target, str):
                    continue  # a link out, a FIFO, a loop...: not a shipped file
                real, info = target
                files[rel] = real
                sizes[rel] = info
                total += info.st_size
                if len(files) > MAX_BUNDLE_FILES:
                    return _Scan({}, TOO_MANY_FILES)  # counting stops here: the walk is bounded
                if total > MAX_BUNDLE_BYTES:
                    return _Scan({}, TOO_MANY_BYTES)
        if any(info.st_nlink > 1 for info in sizes.values()):
            named_out.sort(key=lambda path: path.name.lower() in _BULKY)
            hidden = _identities(named_out)
            files = {
                rel: real
                for rel, real in files.items()
                if (sizes[rel].st_dev, sizes[rel].st_ino) not in hidden
            }
        identities = {rel: (sizes[rel].st_dev, sizes[rel].st_ino) for rel in files}
        return _Scan(files, None, identities)

    def _target(self, parts: Sequence[str], shown: str) -> tuple[Path, os.stat_result] | str:
        """The real path and stat of a candidate, or why it does not ship. Never opens it."""
        assert self.root is not None
        root = self.root
        try:
            # strict=False: a loop is left unresolved by some Pythons and raised by
            # others; the stat below refuses what is left.
            real = Path(os.path.realpath(os.path.join(root, *parts)))
        except (OSError, RuntimeError, ValueError):
            return f"refused: {show(shown)} is a symbolic-link loop"
        if real == root or not real.is_relative_to(root):
            return not_shipped(shown)
        if withheld(real.relative_to(root).parts) or self._extra_withheld(real):
            return not_shipped(shown)
        try:
            info = os.stat(real)
        except (FileNotFoundError, NotADirectoryError):
            return not_in_bundle(shown)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return f"refused: {show(shown)} is a symbolic-link loop"
            return f"refused: {show(shown)} cannot be examined: {why(exc)}"
        except (RuntimeError, ValueError):
            return f"refused: {show(shown)} is a symbolic-link loop"
        if not stat.S_ISREG(info.st_mode):
            return f"refused: {show(shown)} is {kind_of(info.st_mode)}"
        return real, info

    def _extra_withheld(self, real: Path) -> bool:
        return any(real == path or real.is_relative_to(path) for path in self._also_withheld)


def _identities(paths: Iterable[Path], limit: int = 10_000) -> set[tuple[int, int]]:
    """(device, inode) of every regular file at or under ``paths``, links not followed.

    Only asked for when a shipped file has more than one hard link, to keep a hard
    link onto an eval or secret file out. Past ``limit`` entries it stops; the
    eval and secret files come first, version control and dependencies last.
    """
    seen: set[tuple[int, int]] = set()
    count = 0
    for path in paths:
        for directory, _dirs, filenames in os.walk(path, followlinks=False):
            for name in filenames:
                count += 1
                if count > limit:
                    return seen
                _add_identity(seen, Path(directory, name))
        if not path.is_dir() or path.is_symlink():
            _add_identity(seen, path)
    return seen


def _add_identity(seen: set[tuple[int, int]], path: Path) -> None:
    try:
        info = os.lstat(path)
    except OSError:
        return
    if stat.S_ISREG(info.st_mode):
        seen.add((info.st_dev, info.st_ino))
