"""The pure half of ``--skill-lens-changed``: git's ``-z`` output read, changes matched to skills.

Paths are git's, relative to the repository's top and separated by ``/``; ``-z`` keeps a
name holding a newline, a tab or a leading dash whole, and a byte that is not UTF-8 is
kept as a surrogate, so it is compared exactly and printed escaped.

A skill is changed when a change touches (at its new path or its old one) the skill's
directory, any other path its run reads, a configuration file given as shared, or a
``conftest.py`` at or above its directory (pytest loads those for it). A path git cannot
see, outside the repository, is changed too: not knowing is never "unchanged".
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from ...suite.inputs import SkillInputs
from ...suite.quoting import shown

Status = Literal["added", "modified", "deleted", "renamed", "untracked"]
_STATUS: dict[str, Status] = {
    "A": "added",
    "M": "modified",
    "T": "modified",  # the file's type (a link made a file): its content changed
    "U": "modified",  # unmerged: whatever it holds now is not REF's
    "D": "deleted",
    "R": "renamed",
}
CONFTEST = "conftest.py"


@dataclass(frozen=True)
class Change:
    """One path that differs from REF; a rename also has the path it had there."""

    status: Status
    path: str
    old_path: str | None = None

    def describe(self) -> str:
        said = f"{_name(self.path)} {self.status}"
        return f"{said} from {_name(self.old_path)}" if self.old_path is not None else said

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.path,) if self.old_path is None else (self.path, self.old_path)


def _name(path: str) -> str:
    return path if path.isprintable() else shown(path)  # quoted only when it must be


def parse_name_status(data: bytes) -> list[Change]:
    """``git diff --name-status -z -M`` read exactly; :class:`ValueError` on anything else."""
    tokens = data.split(b"\0")
    if tokens and tokens[-1] == b"":
        tokens.pop()
    changes: list[Change] = []
    index = 0
    while index < len(tokens):
        letter = tokens[index][:1].decode("ascii", "replace")
        status = _STATUS.get(letter)
        wanted = 2 if status == "renamed" else 1
        if status is None or index + wanted >= len(tokens):
            raise ValueError(f"unexpected git diff output at record {len(changes) + 1}")
        paths = [_text(token) for token in tokens[index + 1 : index + 1 + wanted]]
        if status == "renamed":
            changes.append(Change(status, paths[1], paths[0]))
        else:
            changes.append(Change(status, paths[0]))
        index += 1 + wanted
    return changes


def parse_untracked(data: bytes) -> list[Change]:
    """``git ls-files --others -z``: each path a change (the working copy is the candidate)."""
    return [Change("untracked", _text(token)) for token in data.split(b"\0") if token]


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Why:
    """One reason a skill is changed: what changed, and what it is to the skill."""

    role: str
    change: Change | None = None
    outside: Path | None = None  # a path git cannot see (then ``role`` says where it is)

    def __str__(self) -> str:
        if self.change is None:
            where = _name(str(self.outside))
            return f"{where} is {self.role}: git cannot tell whether it changed"
        return f"{self.change.describe()} ({self.role})"


@dataclass(frozen=True)
class Verdict:
    """One skill: changed with its reasons, or unchanged (no reason)."""

    skill: SkillInputs
    reasons: tuple[Why, ...]
    moved_from: str | None = None  # the skill's directory at REF, when git saw it renamed

    @property
    def changed(self) -> bool:
        return bool(self.reasons)


def decide(
    top: Path, skills: Sequence[SkillInputs], shared: Sequence[Path], changes: Sequence[Change]
) -> tuple[Verdict, ...]:
    """Each skill's verdict; ``shared`` are the configuration files every skill reads."""
    return tuple(_verdict(top, skill, shared, changes) for skill in skills)


def _verdict(
    top: Path, skill: SkillInputs, shared: Sequence[Path], changes: Sequence[Change]
) -> Verdict:
    reasons: list[Why] = []
    outside = f"outside the repository at {_name(str(top))}"
    home = _relative(top, skill.directory)
    watched: list[tuple[str, str]] = []  # (path, role)
    inputs = [
        *(
            (path, "its own files" if path == skill.directory else "a file its cases read")
            for path in sorted(skill.paths, key=lambda p: (p != skill.directory, str(p)))
        ),
        *(
            (path, "a neighbour its cases offer")
            for path in sorted(skill.neighbours - skill.paths, key=str)
        ),
        *((path, "configuration") for path in shared),
    ]
    for path, role in inputs:
        rel = _relative(top, path)
        if rel is None:
            reasons.append(Why(outside, outside=path))
        else:
            watched.append((rel, role))
    for change in changes:
        found = next((role for rel, role in watched if _touches(change, rel)), None)
        if found is None and home is not None and any(_conftest(p, home) for p in change.paths):
            found = "a conftest.py above it"
        if found is not None:
            reasons.append(Why(found, change))
    return Verdict(skill, tuple(reasons), _moved_from(home, changes))


def _relative(top: Path, path: Path) -> str | None:
    """``path`` as git names it, or ``None`` when it is outside the repository."""
    try:
        rel = path.relative_to(top)
    except ValueError:
        return None
    return PurePosixPath(*rel.parts).as_posix() if rel.parts else ""


def _touches(change: Change, watched: str) -> bool:
    return any(_at_or_below(path, watched) for path in change.paths)


def _at_or_below(path: str, top: str) -> bool:
    return top == "" or path == top or path.startswith(top + "/")


def _conftest(path: str, home: str) -> bool:
    folder, name = posixpath.split(path)
    return name == CONFTEST and _at_or_below(home, folder)


def _moved_from(home: str | None, changes: Sequence[Change]) -> str | None:
    if home is None:
        return None
    skill_md = posixpath.join(home, "SKILL.md") if home else "SKILL.md"
    for change in changes:
        if change.status == "renamed" and change.path == skill_md and change.old_path:
            return posixpath.dirname(change.old_path)
    return None
