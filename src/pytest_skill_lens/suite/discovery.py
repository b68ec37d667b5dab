"""Where skills and their eval files are found (the seed's rules)."""

from __future__ import annotations

import collections
import itertools
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import AuthoringError, Where
from .names import hidden_problem
from .quoting import shown
from .regular_files import eval_like_files, not_regular, read_regular, special_kind

SKILL_FILE = "SKILL.md"


def is_skill_in_scope(skill_file: Path, roots: Sequence[Path]) -> bool:
    """Whether a ``SKILL.md`` met while walking belongs to the run.

    A root holding ``SKILL.md`` is that one skill (nested skills below it are
    not searched); any other root takes every ``SKILL.md`` below it.
    """
    for root in roots:
        if root.is_file():
            if skill_file == root:
                return True
            continue
        if root == skill_file.parent:
            return True
        if (root / SKILL_FILE).is_file():
            continue
        if root in skill_file.parents:
            return True
    return False


def holds_skill(directory: Path) -> bool:
    """Whether ``directory`` is a skill's directory (it holds a ``SKILL.md``)."""
    try:
        return (directory / SKILL_FILE).is_file()
    except OSError:  # unreadable: nothing can be collected from it either
        return False


def skill_home(path: Path) -> Path | None:
    """The outermost skill directory that is ``path`` or holds it, if any.

    Everything below a ``SKILL.md`` belongs to that skill, so the outermost one
    decides: the directory above it is where the project's own files begin.
    """
    home = None
    for directory in (path, *path.parents):
        if holds_skill(directory):
            home = directory
    return home


def reaches_scope(directory: Path, roots: Sequence[Path]) -> bool:
    """Whether a ``SKILL.md`` of the run can sit at or below ``directory``.

    It is on the way to a root, or below a root that takes every ``SKILL.md``
    under it (see :func:`is_skill_in_scope`); anything else need not be walked.
    """
    for root in roots:
        top = root.parent if root.is_file() else root
        if directory == top or directory in top.parents:
            return True
        if top in directory.parents and not root.is_file() and not holds_skill(top):
            return True
    return False


def eval_files_for(skill_dir: Path, override: Path | None = None) -> list[Path]:
    """The eval files of one skill, sorted.

    ``override`` (``--skill-lens-evals``) replaces discovery: a file is read as
    given, a directory's ``*.yaml``/``*.yml`` and its ``evals.json``.
    """
    if override is not None:
        if not override.exists():
            raise AuthoringError(
                "the eval path given with --skill-lens-evals does not exist",
                where=Where(override),
                fix="point it at an eval file or a directory of eval files",
            )
        if override.is_file():
            return [override]
        if not override.is_dir():  # a FIFO or /dev/null: refused before anything opens it
            kind = special_kind(override) or "not a file"
            raise AuthoringError(
                f"the eval path given with --skill-lens-evals is {kind}, "
                "not a regular file or a directory",
                where=Where(override),
                fix="point it at an eval file or a directory of eval files",
            )
        return _evals_in(override)
    evals_dir = skill_dir / "evals"
    if evals_dir.is_dir():
        return _evals_in(evals_dir)
    return eval_like_files(skill_dir, lambda name: name.endswith(".eval.yaml"))


_TOP_LEVEL_CASES = re.compile(rb"^cases[ \t]*:", re.MULTILINE)
_TOP_LEVEL_EVALS = re.compile(rb'"evals"\s*:')
_MISPLACED_READ_LIMIT = 1_000_000  # a file this large beside SKILL.md is data, not evals


@dataclass(frozen=True)
class MisplacedEvalFile:
    """A file beside ``SKILL.md`` that reads as eval cases, which discovery does not read."""

    path: Path
    fix: str

    def error(self, *, alone: bool) -> AuthoringError:
        """The file named with the rule it misses; ``alone``: the skill has no other eval
        file (then an error, else a warning's text)."""
        problem = (
            "this file holds eval cases, but discovery does not read it (eval files are "
            "evals/*.yaml, evals/*.yml and evals/evals.json, or *.eval.yaml beside SKILL.md "
            "when there is no evals/ directory)"
        )
        if alone:
            problem += (
                "; the skill has no eval file discovery reads, so none of its cases would run"
            )
        return AuthoringError(problem, where=Where(self.path), fix=self.fix)


def misplaced_eval_files(skill_dir: Path, read: Sequence[Path]) -> list[MisplacedEvalFile]:
    """Files that look like eval files where discovery does not read them, and are not
    among ``read``.

    A ``*.yaml``/``*.yml`` with a top-level ``cases:`` key, or an ``evals.json`` with an
    ``"evals"`` key: beside ``SKILL.md``, a ``cases.yaml`` the author meant to run, a
    ``*.eval.yml``, a ``*.eval.yaml`` beside an ``evals/`` directory (which wins); and in
    a subdirectory of ``evals/`` (``evals/smoke/cases.yaml``), which discovery does not
    descend into. Only regular files are looked into, at most
    :data:`_MISPLACED_READ_LIMIT` bytes each, at most :data:`_MISPLACED_FILES` files
    beside ``SKILL.md`` and as many in the :data:`_MISPLACED_DIRS` directories looked into
    below ``evals/``; nothing is parsed.
    """
    evals_dir = skill_dir / "evals"
    has_evals_dir = evals_dir.is_dir()
    taken = {path.resolve() for path in read}
    found = [
        MisplacedEvalFile(path, _misplaced_fix(path.name, has_evals_dir))
        for path in _holding_cases(_unread([skill_dir], taken))
    ]
    if has_evals_dir and not evals_dir.is_symlink():
        found += [
            MisplacedEvalFile(path, _nested_fix(path, evals_dir))
            for path in _holding_cases(_unread(_directories_below(evals_dir), taken))
        ]
    return found


def _unread(directories: Iterable[Path], taken: set[Path]) -> Iterator[Path]:
    """The regular files named like eval files directly in each of ``directories`` (by
    name within one), ``taken`` left out."""
    for directory in directories:
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith((".yaml", ".yml")) and entry.name != "evals.json":
                continue
            path = Path(entry.path)
            if path.resolve() not in taken and special_kind(path) is None:
                yield path  # not read already, and a regular file (nothing else is opened)


def _holding_cases(candidates: Iterable[Path]) -> list[Path]:
    """Those of the first :data:`_MISPLACED_FILES` ``candidates`` that hold eval cases."""
    found: list[Path] = []
    for path in itertools.islice(candidates, _MISPLACED_FILES):
        try:
            if path.stat().st_size > _MISPLACED_READ_LIMIT:
                continue
            data = read_regular(path)
        except (OSError, AuthoringError):
            continue
        pattern = _TOP_LEVEL_EVALS if path.name == "evals.json" else _TOP_LEVEL_CASES
        if pattern.search(data):
            found.append(path)
    return found


_MISPLACED_DIRS = 100  # a tree this large below evals/ is data, not misplaced evals
_MISPLACED_FILES = 500  # files looked into beside SKILL.md, and below evals/


def _directories_below(top: Path) -> list[Path]:
    """The directories below ``top``, nearest first, symbolic links not followed."""
    found: list[Path] = []
    pending = collections.deque([top])
    while pending and len(found) < _MISPLACED_DIRS:
        try:
            entries = sorted(os.scandir(pending.popleft()), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and len(found) < _MISPLACED_DIRS:
                found.append(Path(entry.path))
                pending.append(Path(entry.path))
    return found


def _nested_fix(path: Path, evals_dir: Path) -> str:
    inside = path.relative_to(evals_dir).as_posix()
    return (
        f"move it to evals/{path.name} (discovery reads the files directly in evals/, "
        f"not evals/{inside.rpartition('/')[0]}/), renaming it if that name is taken"
    )


def _misplaced_fix(name: str, has_evals_dir: bool) -> str:
    if name == "evals.json":
        return "move it to evals/evals.json, where discovery reads it"
    stem = name.removesuffix(".yml").removesuffix(".yaml").removesuffix(".eval")
    if has_evals_dir:  # an evals/ directory wins over *.eval.yaml beside SKILL.md
        return f"move it into evals/ (evals/{name}), where discovery reads every .yaml file"
    return (
        f"move it to evals/{name} (discovery reads every .yaml in evals/), or rename it "
        f"{stem}.eval.yaml to keep it beside SKILL.md"
    )


def _evals_in(directory: Path) -> list[Path]:
    return eval_like_files(
        directory, lambda name: Path(name).suffix in (".yaml", ".yml") or name == "evals.json"
    )


def directory_problem(directory: Path, roots: Sequence[Path]) -> AuthoringError | None:
    """What keeps a directory pytest walks from being collected honestly, if anything.

    pytest collects regular files only, so a ``SKILL.md`` that is a FIFO, a device,
    a directory or a broken link would vanish ("no skills were found"); and a
    directory name becomes part of every node id below it, printed raw. Only
    directories in a skill root are judged.
    """
    if not any(directory == root or root in directory.parents for root in roots):
        return None
    # A path is what it is: only what acts on a terminal or hides itself is refused.
    hidden = hidden_problem(directory.name, spaces=False)
    if hidden is not None:
        return AuthoringError(
            f"the directory name {shown(directory.name)} holds {hidden}",
            where=Where(directory),
            fix="rename the directory: its name is part of the node id of every case below it",
        )
    skill_file = directory / SKILL_FILE
    if special_kind(skill_file) is not None and is_skill_in_scope(skill_file, roots):
        return not_regular(skill_file)
    return None
