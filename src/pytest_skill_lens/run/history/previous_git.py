"""Read-only git calls and the bundle extraction behind :mod:`.previous`.

Git runs with a fixed argv (never a shell) and a timeout, in an environment the
repository cannot steer. Inherited ``GIT_*`` variables are dropped (a run started
from a git hook inherits ``GIT_DIR`` and ``GIT_INDEX_FILE``, which would point every
call elsewhere) except the three that say where the user's own configuration lives.
A repository's ``.git/config`` is not trusted to run anything: ``core.fsmonitor`` is
switched off on every call, ``git log`` runs without signatures, external diffs or
textconv, blobs are read with ``cat-file`` (plumbing: no filters), and the filter
drivers ``git archive`` would run as smudge commands are emptied by name. A
repository owned by another user is refused by git itself (``safe.directory``); that
is reported, never overridden.

A bundle is extracted from the archive stream: only the regular files the tree
listing selected, each through :mod:`tarfile`'s ``data`` filter. Links, devices and
anything unasked for are skipped, never followed; an absolute or escaping name
refuses the whole archive.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..workspace.bundle import MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES, withheld

GIT_TIMEOUT = 10.0
SKILL_FILE = "SKILL.md"

# Where the user's own configuration lives: theirs to choose (a CI's safe.directory).
_USER_CONFIG = frozenset({"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"})
_FIXED_ENV = {
    "GIT_TERMINAL_PROMPT": "0",  # never wait for a password
    "GIT_OPTIONAL_LOCKS": "0",  # a read never rewrites the index
    "GIT_NO_REPLACE_OBJECTS": "1",  # the history as committed, not as refs/replace says
    "GIT_LITERAL_PATHSPECS": "1",  # a path is a path, never a glob or magic
    "LC_ALL": "C",  # git's messages in one language, so a refusal can be recognised
}
# On every call: a repository's config may name a command to run on an index read.
_SAFE_CONFIG = ("core.fsmonitor=false", "log.showSignature=false")


class GitFailed(Exception):
    """A git call that exited non-zero, timed out or could not start."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


class ExtractionRefused(Exception):
    """An archive that will not be extracted; the message says why."""


def find_git() -> str | None:
    """The absolute path of ``git`` on PATH, or ``None``."""
    return shutil.which("git")


def git_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without inherited ``GIT_*`` steering, plus the fixed settings above."""
    env = {k: v for k, v in environ.items() if not k.startswith("GIT_") or k in _USER_CONFIG}
    env.pop("LANGUAGE", None)  # it outranks LC_ALL for gettext
    env.update(_FIXED_ENV)
    return env


@dataclass(frozen=True)
class Git:
    """One repository's git, run from ``cwd`` with a per-call timeout."""

    executable: str
    cwd: Path
    timeout: float = GIT_TIMEOUT
    config: tuple[str, ...] = ()  # more ``-c`` settings, after the fixed ones

    def argv(self, *args: str) -> list[str]:
        settings = [item for pair in _SAFE_CONFIG + self.config for item in ("-c", pair)]
        return [self.executable, "--no-pager", *settings, *args]

    def run(self, *args: str) -> bytes:
        """Standard output of ``git args``; :class:`GitFailed` otherwise."""
        try:
            done = subprocess.run(
                self.argv(*args),
                cwd=self.cwd,
                env=git_environment(os.environ),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=self.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            message = f"git {args[0]} timed out after {self.timeout:g} s"
            raise GitFailed(message, timed_out=True) from None
        except OSError as exc:
            raise GitFailed(f"git {args[0]} could not start: {exc.strerror or exc}") from None
        if done.returncode != 0:
            raise GitFailed(_first_line(done.stderr) or f"git {args[0]} exited {done.returncode}")
        return done.stdout

    def without_filters(self) -> Git:
        """This git with every configured filter driver emptied, for ``git archive``.

        Attributes name a driver (``filter=lfs``) and the effective config gives its
        command; an empty command and ``required=false`` make git copy the blob as
        committed, so archiving runs no program and reaches no network.
        """
        try:
            listed = self.run("config", "--null", "--get-regexp", r"^filter\.")
        except GitFailed:
            return self  # exit 1: no filter configured at all
        keys = (entry.partition(b"\n")[0] for entry in listed.split(b"\0"))
        names = {
            key[len("filter.") :].rpartition(".")[0]
            for key in (raw.decode("utf-8", "surrogateescape") for raw in keys)
            if key.startswith("filter.")
        }
        if any("=" in name or not name for name in names):
            # ``-c`` splits at the first '=': such a driver cannot be emptied by name.
            raise GitFailed("a configured filter driver's name cannot be overridden")
        overrides = tuple(
            f"filter.{name}.{setting}"
            for name in sorted(names)
            for setting in ("smudge=", "process=", "required=false")
        )
        return Git(self.executable, self.cwd, self.timeout, self.config + overrides)


def _first_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0].strip() if lines else ""


# -- the bundle ------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeFiles:
    """The regular files a skill directory's tree ships, with their sizes in bytes."""

    sizes: dict[str, int]

    @property
    def bundle_files(self) -> int:
        return sum(name != SKILL_FILE for name in self.sizes)

    @property
    def bundle_bytes(self) -> int:
        return sum(size for name, size in self.sizes.items() if name != SKILL_FILE)

    def over_cap(self) -> str | None:
        """Why the bundle is refused as a whole, with the bundle's own caps, or ``None``."""
        if self.bundle_files > MAX_BUNDLE_FILES:
            return f"it ships more than {MAX_BUNDLE_FILES:,} files"
        if self.bundle_bytes > MAX_BUNDLE_BYTES:
            return "it ships more than 100 MB"
        return None


def list_tree(git: Git, tree: str) -> TreeFiles:
    """The files of ``tree`` (``<commit>:<dir>``) that ship: SKILL.md and the bundle.

    Only regular blobs count: a symlink (mode 120000) or a submodule (160000) is
    never a file the bundle ships, and the withheld names (evals, VCS, secrets,
    dependency directories) are dropped here, before anything is archived.
    """
    sizes: dict[str, int] = {}
    for entry in git.run("ls-tree", "-r", "-l", "-z", tree).split(b"\0"):
        meta, _, raw_name = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) != 4 or not fields[0].startswith(b"100") or fields[1] != b"blob":
            continue
        name = raw_name.decode("utf-8", "surrogateescape")
        if name == SKILL_FILE or not withheld(name.split("/")):
            if not fields[3].isdigit():  # git prints no size for a blob it cannot read
                raise GitFailed(f"cannot read the blob of {name!r}")
            sizes[name] = int(fields[3])
    return TreeFiles(sizes)


@dataclass
class GitStream:
    """A git call whose stdout is read as it comes (:func:`git_streamed`): ``kill`` stops
    it early; once the ``with`` block is left, how it ended and the start of its stderr."""

    stdout: IO[bytes]
    kill: Callable[[], None]
    returncode: int = 0
    timed_out: bool = False
    told: bytes = b""


@contextmanager
def git_streamed(git: Git, *args: str) -> Iterator[GitStream]:
    """``git args`` with its stdout to read, killed at ``git.timeout``, waited for when the
    block is left (killed first if the block raised: nothing reads the pipe any more)."""
    fired = threading.Event()
    with (
        tempfile.TemporaryFile() as errors,  # a file: a full stderr pipe would stall git
        subprocess.Popen(
            git.argv(*args),
            cwd=git.cwd,
            env=git_environment(os.environ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
        ) as process,
    ):

        def stop() -> None:
            fired.set()
            process.kill()

        timer = threading.Timer(git.timeout, stop)
        timer.start()
        assert process.stdout is not None
        stream = GitStream(process.stdout, process.kill)
        try:
            yield stream
        except BaseException:
            process.kill()
            raise
        finally:
            stream.returncode = process.wait()
            timer.cancel()
        stream.timed_out = fired.is_set()
        stream.told = _read_start(errors)


def archive_into(git: Git, tree: str, wanted: TreeFiles, dest: Path) -> None:
    """Extract the ``wanted`` files of ``tree`` into the empty directory ``dest``.

    :class:`GitFailed` when git fails or times out (the stream is then cut short),
    :class:`ExtractionRefused`, :class:`tarfile.TarError` or :class:`OSError` when
    the archive cannot be extracted.
    """
    failure: Exception | None = None
    with git_streamed(git, "archive", "--format=tar", tree) as run:
        try:
            extract_members(run.stdout, dest, frozenset(wanted.sizes))
            while run.stdout.read(1 << 16):
                pass  # the end-of-archive padding: git exits once it is read
        except (ExtractionRefused, tarfile.TarError, OSError) as exc:
            failure = exc
            run.kill()
    told = _first_line(run.told)
    if run.timed_out:
        raise GitFailed(f"git archive timed out after {git.timeout:g} s", timed_out=True)
    if isinstance(failure, ExtractionRefused):
        raise failure
    if told and run.returncode != 0:
        raise GitFailed(told)  # git stopped first: a cut stream is its doing
    if failure is not None:
        raise failure
    if run.returncode != 0:
        raise GitFailed(f"git archive exited {run.returncode}")


def _read_start(errors: IO[bytes]) -> bytes:
    errors.seek(0)
    return errors.read(4096)


def extract_members(
    stream: IO[bytes],
    dest: Path,
    wanted: frozenset[str],
    *,
    max_files: int = MAX_BUNDLE_FILES + 1,  # the bundle's files and SKILL.md
    max_bytes: int = MAX_BUNDLE_BYTES + MAX_BUNDLE_BYTES // 100,
) -> int:
    """Extract the regular files named in ``wanted`` from a tar ``stream``; how many.

    Read as a stream, so nothing skipped is held in memory. A link, a device, a FIFO
    or a directory entry is skipped (parents are made as files need them), and so is
    a file not in ``wanted``. An absolute or escaping name, or a stream past the caps,
    raises :class:`ExtractionRefused`; the ``data`` filter is the second guard.
    """
    count = total = 0
    with tarfile.open(
        fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape"
    ) as archive:
        for member in archive:
            problem = _name_problem(member.name)
            if problem is not None:
                raise ExtractionRefused(f"{member.name!r}: {problem}")
            if not member.isreg() or member.name not in wanted:
                continue
            count += 1
            total += member.size
            if count > max_files or total > max_bytes:
                raise ExtractionRefused("the archive is larger than a bundle may be")
            archive.extract(member, dest, set_attrs=True, filter="data")
    return count


def _name_problem(name: str) -> str | None:
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "an absolute name"
    if ".." in name.split("/"):
        return "a name that leaves the directory"
    if "\x00" in name:
        return "a name holding a NUL byte"
    return None
