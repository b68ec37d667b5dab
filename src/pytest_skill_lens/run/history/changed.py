"""``--skill-lens-changed [REF]``: which skills' runs could differ from REF, read from git.

REF defaults to the merge base of HEAD and the repository's default branch: the branch
``origin/HEAD`` points at, else ``main``, else ``master`` (a local branch before the
remote's), and :attr:`Baseline.how` says which was found. REF is compared with the
working copy, not with HEAD: the working copy is what runs, so uncommitted edits and
untracked files count; files git ignores do not (they are no part of a change anyone
could review). Renames are found with ``-M`` and followed: the skill's directory at
REF is given, and the skill counts as changed (its path, and the name taken from it,
moved with it).

Git is called as :mod:`.previous_git` calls it (a fixed argv, no shell, a timeout,
an environment the repository cannot steer), REF is resolved to a commit with
``--end-of-options`` before any other call sees it, and the output is capped. Every
way of not knowing is a :class:`ChangedError` with its fix: never a silent full run,
never a silent empty one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...suite.inputs import SkillInputs
from ...suite.quoting import escaped, shown
from .changed_diff import Change, Verdict, decide, parse_name_status, parse_untracked
from .previous_git import Git, GitFailed, find_git, git_streamed

MAX_OUTPUT = 64 * 1024 * 1024  # a diff's names past this is no pull request's
CHANGED_TIMEOUT = 60.0  # per call: a diff against a large working copy reads every file's stat
FLAG = "--skill-lens-changed"
_UNSHALLOW = (
    "fetch the whole history: git fetch --unshallow (in GitHub Actions, "
    "actions/checkout with fetch-depth: 0)"
)
_SLOW = f"retry on a less busy machine, or name a closer REF, or run without {FLAG}"


class ChangedError(Exception):
    """Why the changed skills cannot be known, and the fix."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}\n  fix: {fix}")
        self.problem = problem
        self.fix = fix


@dataclass(frozen=True)
class Baseline:
    """The commit the working copy is compared with, and how it was chosen."""

    ref: str  # as given, or the default branch found
    commit: str
    how: str  # "given", or which merge base and how its branch was found

    @property
    def short(self) -> str:
        return self.commit[:8]


@dataclass(frozen=True)
class Changes:
    """What differs between REF and the working copy: read once, matched to skills after."""

    baseline: Baseline
    top: Path  # the repository's top, resolved
    changes: tuple[Change, ...]

    @property
    def unchanged_reason(self) -> str:
        """What an unchanged skill's deselection says."""
        return f"unchanged since {self.baseline.ref} ({self.baseline.short})"

    def decide(
        self, skills: Sequence[SkillInputs], shared: Sequence[Path] = ()
    ) -> tuple[Verdict, ...]:
        """Each skill's verdict; ``shared`` are the configuration files every run reads."""
        return decide(self.top, skills, [path.resolve() for path in shared], self.changes)


@dataclass(frozen=True)
class ChangedSkills(Changes):
    verdicts: tuple[Verdict, ...] = ()


def read_changes(root: Path, ref: str | None, *, timeout: float = CHANGED_TIMEOUT) -> Changes:
    """The changes since ``ref`` (``None``: the default branch's merge base) of the
    repository holding ``root``; :class:`ChangedError` when they cannot be known."""
    executable = find_git()
    if executable is None:
        raise ChangedError("git is not installed", f"install git, or run without {FLAG}")
    folder = root if root.is_dir() else root.parent  # a skill path may name its SKILL.md
    if not folder.is_dir():
        raise ChangedError(f"{escaped(str(root))} does not exist", "name an existing skill path")
    top, shallow = _locate(Git(executable, folder, timeout), folder)
    git = Git(executable, top, timeout)
    baseline = _given(git, ref, shallow) if ref is not None else _default(git, shallow)
    return Changes(baseline, top.resolve(), tuple(_changes(git, baseline)))


def changed_skills(
    root: Path,
    skills: Sequence[SkillInputs],
    ref: str | None,
    *,
    shared: Sequence[Path] = (),
    timeout: float = CHANGED_TIMEOUT,
) -> ChangedSkills:
    """:func:`read_changes` and each skill's verdict, in one call.

    ``root`` is a directory in the repository (the suite's root); ``shared`` are the
    configuration files every skill's run reads (``skill-lens.toml``, pytest's ini file).
    """
    found = read_changes(root, ref, timeout=timeout)
    verdicts = found.decide(skills, shared)
    return ChangedSkills(found.baseline, found.top, found.changes, verdicts)


def _locate(git: Git, root: Path) -> tuple[Path, bool]:
    try:
        shallow = git.run("rev-parse", "--is-shallow-repository").strip() == b"true"
        out = git.run("rev-parse", "--show-toplevel")
    except GitFailed as exc:
        if exc.timed_out:
            raise ChangedError(str(exc), _SLOW) from None
        if "could not start" in str(exc):
            raise ChangedError(str(exc), f"install git, or run without {FLAG}") from None
        if "dubious ownership" in str(exc):
            raise ChangedError(
                f"git refuses the repository holding {escaped(str(root))}: it is owned by "
                "another user",
                "mark it as trusted with git config --global --add safe.directory <path>",
            ) from None
        raise ChangedError(
            f"{escaped(str(root))} is not inside a git repository ({exc})",
            f"run in the repository's working copy, or without {FLAG}",
        ) from None
    top = out.decode("utf-8", "surrogateescape").removesuffix("\n")  # a name may hold "\n"
    return Path(top), shallow


def _commit(git: Git, name: str) -> str | None:
    # git's ":/<text>" (the youngest commit whose message matches) takes all the rest of the
    # name as its text, so a "^{commit}" added would be searched for; it names a commit anyway.
    spec = name if name.startswith(":/") else f"{name}^{{commit}}"
    try:
        out = git.run("rev-parse", "--verify", "--quiet", "--end-of-options", spec)
    except GitFailed as exc:
        if exc.timed_out:
            raise ChangedError(str(exc), _SLOW) from None
        return None
    return out.decode("ascii", "replace").strip() or None


def _given(git: Git, ref: str, shallow: bool) -> Baseline:
    commit = None if not ref or "\n" in ref or "\0" in ref else _commit(git, ref)
    if commit is None:
        problem = f"{FLAG} {shown(ref)} is not a commit in this repository"
        fix = "name a branch, tag or commit that exists; for a remote branch, git fetch it first"
        if shallow:
            problem += " (the clone is shallow)"
            fix = f"{_UNSHALLOW}; or git fetch origin <branch> and name it"
        if ref and "\0" not in ref and os.path.lexists(ref):
            fix = (
                f"{shown(ref)} is a path: the flag took it as its REF; put the flag after the "
                f"paths, or give the REF with '=': {FLAG}=REF"
            )
        raise ChangedError(problem, fix)
    return Baseline(ref, commit, "given")


def _default(git: Git, shallow: bool) -> Baseline:
    if shallow:
        raise ChangedError(
            "the clone is shallow, so the merge base with the default branch cannot be found",
            f"{_UNSHALLOW}; or name the commit to compare with: {FLAG} REF",
        )
    branch, full, how = _default_branch(git)
    head = _commit(git, "HEAD")
    if head is None:
        raise ChangedError(
            "the repository has no commit yet", f"commit first, or run without {FLAG}"
        )
    tip = _commit(git, full) or full  # found by _default_branch: it resolves
    try:
        base = git.run("merge-base", head, tip).decode("ascii", "replace").strip()
    except GitFailed as exc:
        if exc.timed_out:
            raise ChangedError(str(exc), _SLOW) from None
        raise ChangedError(
            f"HEAD and {branch} share no history, so there is no merge base",
            f"name the commit to compare with: {FLAG} REF",
        ) from None
    return Baseline(branch, base, f"the merge base of HEAD and {branch} ({how})")


def _default_branch(git: Git) -> tuple[str, str, str]:
    """The default branch as said, its full ref name, and how it was found."""
    try:
        target = git.run("symbolic-ref", "--quiet", "refs/remotes/origin/HEAD").decode().strip()
    except (GitFailed, UnicodeDecodeError):
        target = ""
    if target.startswith("refs/remotes/") and _commit(git, target) is not None:
        return target.removeprefix("refs/remotes/"), target, "origin/HEAD"
    for name in ("main", "master"):
        for ref, said in (
            (f"refs/heads/{name}", name),
            (f"refs/remotes/origin/{name}", f"origin/{name}"),
        ):
            if _commit(git, ref) is not None:
                return said, ref, f"no origin/HEAD; {said} exists"
    raise ChangedError(
        "no default branch found: origin/HEAD is not set and there is no main or master branch",
        f"name the commit to compare with: {FLAG} REF (for example {FLAG} origin/develop), "
        "or set origin/HEAD with git remote set-head origin --auto",
    )


def _changes(git: Git, baseline: Baseline) -> list[Change]:
    diff = _bounded(
        git, "diff", "--name-status", "-z", "-M", "--no-relative", "--no-color", "--no-ext-diff",
        "--no-textconv", baseline.commit, "--",
    )  # fmt: skip
    untracked = _bounded(git, "ls-files", "--others", "--exclude-standard", "-z", "--full-name")
    try:
        return [*parse_name_status(diff), *parse_untracked(untracked)]
    except ValueError as exc:
        raise ChangedError(
            f"cannot read git's list of changes: {exc}",
            "report it as a bug of pytest-skill-lens, with your git version",
        ) from None


def _bounded(git: Git, *args: str) -> bytes:
    """``git args``'s output, killed past :data:`MAX_OUTPUT` bytes or the timeout."""
    try:
        return _read_bounded(git, *args)
    except OSError as exc:  # git removed, or its directory, while the run started
        raise ChangedError(
            f"git {args[0]} could not start: {exc.strerror or exc}", "check git and the path"
        ) from None


def _read_bounded(git: Git, *args: str) -> bytes:
    with git_streamed(git, *args) as run:
        out = run.stdout.read(MAX_OUTPUT + 1)
        if len(out) > MAX_OUTPUT:
            run.kill()
    told = run.told.decode("utf-8", "replace").strip().partition("\n")[0]
    if run.timed_out:
        raise ChangedError(f"git {args[0]} timed out after {git.timeout:g} s", _SLOW)
    if len(out) > MAX_OUTPUT:
        raise ChangedError(
            f"git {args[0]} listed more than {MAX_OUTPUT:,} bytes of changed names",
            f"name a closer REF, or run without {FLAG}",
        )
    if run.returncode != 0:
        said = escaped(told, 300) or f"exited {run.returncode}"
        raise ChangedError(
            f"git {args[0]} failed: {said}", f"run git {args[0]} yourself to see why"
        )
    return out
