"""The ``previous`` baseline: the skill's earlier version, resolved from git.

The working copy is the candidate, so history is compared with it, not with HEAD.
When the working copy's SKILL.md declares ``version:``, the baseline is the newest
commit whose SKILL.md declares another version (or none); otherwise the newest
whose SKILL.md text differs (line endings aside). At most ``max_commits`` commits
that touched SKILL.md are read, across every path followed. A move is followed only
when git sees it as exact (``R100``): a copy, or a move that also edited SKILL.md,
ends the history there. We walk the path ourselves rather than ``git log --follow``,
whose rename guess is per file and cannot say which directory the skill had then.

The bundle comes from the same commit, out of the directory the skill had then, so
old instructions never meet new scripts; a bundle-only commit made after that
SKILL.md edit is invisible. It is extracted into a fresh directory under the system
temp directory, marked with its owner (:func:`..process.leftovers.owner_mark`) so a killed
run's copy is swept; :meth:`PreviousVersion.close` (or leaving its ``with``) removes it.

Every failure to resolve is a :class:`Unresolved`, never an exception.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from ...suite.errors import AuthoringError
from ...suite.skill import Skill, parse_skill_text
from ...suite.yamlload import read_text
from ..process.leftovers import PREFIX, owner_mark, remove_tree
from ..process.temp_parent import make_dir
from ..workspace.containment import why
from .previous_git import (
    GIT_TIMEOUT,
    SKILL_FILE,
    ExtractionRefused,
    Git,
    GitFailed,
    archive_into,
    find_git,
    list_tree,
)

MAX_COMMITS = 50
_COMMIT = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")  # SHA-1 or SHA-256


@dataclass(frozen=True)
class Unresolved:
    """Why the skill has no previous version to compare with (the report's baseline note)."""

    reason: str


@dataclass(frozen=True)
class PreviousVersion:
    """The skill at an earlier commit, its bundle extracted into :attr:`directory`.

    :attr:`skill` is that SKILL.md parsed, as the ``baseline`` variant, with its path
    inside :attr:`directory`, so its bundle is the extracted files. The directory is
    the caller's to remove: call :meth:`close`, or use the object in a ``with``.
    """

    commit: str  # full hash
    path: str  # SKILL.md's path in the repository at that commit
    text: str
    skill: Skill
    directory: Path

    def close(self) -> None:
        """Remove the extracted bundle; safe to call more than once."""
        remove_tree(self.directory)

    def __enter__(self) -> PreviousVersion:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


@dataclass(frozen=True)
class _Found:
    commit: str
    path: str
    text: str
    skill: Skill


def resolve_previous(
    skill_md: Path,
    *,
    max_commits: int = MAX_COMMITS,
    timeout: float = GIT_TIMEOUT,
    temp_dir: Path | None = None,
) -> PreviousVersion | Unresolved:
    """The previous version of the skill whose working-copy SKILL.md is ``skill_md``.

    ``temp_dir`` is where its bundle goes (default: the user's skill-lens parent in the
    system temp directory, :mod:`..process.temp_parent`).
    Never raises for anything the repository or git does; a note says why instead.
    """
    if max_commits < 1:
        raise ValueError(f"max_commits must be at least 1, got {max_commits}")
    try:
        current_text = read_text(skill_md)
        current = parse_skill_text(current_text, skill_md)
    except AuthoringError as exc:
        return Unresolved(f"cannot read {skill_md}: {exc.problem}")
    executable = find_git()
    if executable is None:
        return Unresolved("git is not installed")
    try:
        return _resolve(executable, skill_md, current, current_text, max_commits, timeout, temp_dir)
    except GitFailed as exc:
        return Unresolved(f"cannot read the git history of {skill_md}: {exc}")
    except Exception as exc:  # a note, whatever broke: resolving never fails the run
        return Unresolved(f"cannot resolve the previous version of {skill_md}: {why(exc)}")


def _resolve(
    executable: str,
    skill_md: Path,
    current: Skill,
    current_text: str,
    max_commits: int,
    timeout: float,
    temp_dir: Path | None,
) -> PreviousVersion | Unresolved:
    directory = skill_md.parent
    try:
        located = Git(executable, directory, timeout).run(
            "rev-parse", "--show-toplevel", "--show-prefix", "--is-shallow-repository"
        )
    except GitFailed as exc:
        if "dubious ownership" in str(exc):
            return Unresolved(
                f"git refuses the repository holding {directory}: it is owned by another "
                "user (git's safe.directory setting says which repositories to trust)"
            )
        if exc.timed_out:
            raise
        return Unresolved(f"{directory} is not inside a git repository")
    lines = located.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) != 4:  # a path holding a newline: nothing git says can be trusted to parse
        return Unresolved(f"cannot read the git history of {skill_md}: a path holds a newline")
    top, prefix, shallow = lines[0], lines[1], lines[2] == "true"
    git = Git(executable, Path(top), timeout)
    path = prefix + skill_md.name
    try:
        git.run("ls-files", "--error-unmatch", "--", path)
    except GitFailed as exc:
        if exc.timed_out:
            raise
        return Unresolved(f"{SKILL_FILE} is not tracked by git")
    found = _walk(git, path, current, current_text, max_commits)
    if found is None:
        reason = f"no earlier version of {SKILL_FILE} found in the last {max_commits} commits"
        if shallow:
            reason += "; the clone is shallow, fetch the whole history (fetch-depth: 0)"
        return Unresolved(reason)
    return _extract(git, found, temp_dir)


def _walk(
    git: Git, path: str, current: Skill, current_text: str, max_commits: int
) -> _Found | None:
    """The newest qualifying commit, following exact moves of SKILL.md; ``None`` if none."""
    try:
        git.run("rev-parse", "--quiet", "--verify", "HEAD^{commit}")
    except GitFailed as exc:
        if exc.timed_out:
            raise
        return None  # no commit yet
    start, remaining = "HEAD", max_commits
    while remaining > 0:
        history = _history(git, start, path, remaining)
        if not history:
            return None
        moved_from: str | None = None
        for commit, status in history:
            remaining -= 1
            found = _at(git, commit, path, current, current_text)
            if found is not None:
                return found
            if status == "A":
                moved_from = _exact_move_source(git, commit, path)
                if moved_from is not None:
                    start = f"{commit}^"
                    break
        if moved_from is None:
            return None
        path = moved_from
    return None


def _history(git: Git, start: str, path: str, count: int) -> list[tuple[str, str]]:
    """``(commit, status of path)`` newest first; a merge has the status ``""``."""
    out = git.run(
        "log",
        f"--max-count={count}",
        "--format=%H",
        "--name-status",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        "--no-show-signature",
        "-z",
        start,
        "--",
        path,
    )
    found: list[tuple[str, str]] = []
    tokens = [token.decode("utf-8", "surrogateescape").lstrip("\n") for token in out.split(b"\0")]
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if _COMMIT.fullmatch(token):
            found.append((token, ""))
        elif token and found and not found[-1][1]:
            found[-1] = (found[-1][0], token[:1])  # the status letter; its path follows
            index += 1
    return found


def _exact_move_source(git: Git, commit: str, path: str) -> str | None:
    """The path SKILL.md had before ``commit`` moved it, byte for byte, to ``path``."""
    out = git.run(
        "diff-tree", "-r", "-z", "--no-commit-id", "--find-renames=100%", "--name-status", commit
    )
    tokens = out.decode("utf-8", "surrogateescape").split("\0")
    index = 0
    while index < len(tokens):
        status = tokens[index]
        if status.startswith(("R", "C")):
            old, new = tokens[index + 1 : index + 3]
            if status == "R100" and new == path:
                return old
            index += 3
        else:
            index += 2
    return None


def _at(git: Git, commit: str, path: str, current: Skill, current_text: str) -> _Found | None:
    """SKILL.md at ``commit`` when it qualifies as the previous version, else ``None``."""
    try:
        data = git.run("cat-file", "blob", f"{commit}:{path}")
    except GitFailed as exc:
        if exc.timed_out:
            raise
        return None  # the commit deleted it
    try:
        text = data.decode("utf-8-sig")
        # Parsed where it lived then, so a name taken from the directory is the old one.
        earlier = parse_skill_text(text, Path(git.cwd, path))
    except (UnicodeDecodeError, AuthoringError):
        return None  # a broken historical SKILL.md is no version to compare with
    if current.version is not None:
        differs = earlier.version != current.version
    else:
        differs = _lines(text) != _lines(current_text)
    return _Found(commit, path, text, earlier) if differs else None


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n")  # a checkout's line endings are not a new version


def _extract(git: Git, found: _Found, temp_dir: Path | None) -> PreviousVersion | Unresolved:
    short = found.commit[:8]
    folder = posixpath.dirname(found.path)
    tree = f"{found.commit}:{folder}"
    try:
        files = list_tree(git, tree)
    except GitFailed as exc:
        return Unresolved(f"cannot archive commit {short}: {exc}")
    over = files.over_cap()
    if over is not None:
        return Unresolved(f"cannot extract the bundle at commit {short}: {over}")
    prefix = f"{PREFIX}previous-"
    if temp_dir is None:  # the user's skill-lens parent (:mod:`..process.temp_parent`)
        target = make_dir(prefix, owner_mark())
    else:
        target = Path(tempfile.mkdtemp(prefix=prefix, suffix=owner_mark(), dir=temp_dir))
    try:
        archive_into(git.without_filters(), tree, files, target)
    except GitFailed as exc:
        remove_tree(target)
        return Unresolved(f"cannot archive commit {short}: {exc}")
    except Exception as exc:  # refused, a broken tar, a full disk: the same note
        remove_tree(target)
        reason = str(exc) if isinstance(exc, ExtractionRefused) else why(exc)
        return Unresolved(f"cannot extract the bundle at commit {short}: {reason}")
    except BaseException:
        remove_tree(target)  # an interrupt leaves nothing behind either
        raise
    skill = dataclasses.replace(found.skill, path=target / SKILL_FILE, variant="baseline")
    return PreviousVersion(found.commit, found.path, found.text, skill, target)
