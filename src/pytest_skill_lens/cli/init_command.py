"""``pytest-skill-lens init PATH [--force]``: an eval-file scaffold for one skill, or for
every skill under ``PATH`` that has none; when ``PATH`` does not exist, a new skill there
(its ``SKILL.md`` and its eval file).

Exit 0 when every scaffold was written (or there was nothing to do), 2 when ``PATH`` is no
skill and holds none, a new skill's directory name is not a valid skill name, a
``SKILL.md`` does not parse, a target exists without ``--force``, ``--force`` is given in
batch mode, or a file cannot be written.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path

from ..authoring.scaffold import (
    Pending,
    Skipped,
    new_skill_problem,
    new_skill_text,
    plan_batch,
    scaffold_target,
    scaffold_text,
)
from ..suite.discovery import SKILL_FILE
from ..suite.errors import AuthoringError
from ..suite.skill import Skill, load_skill
from .output import EXIT_OK, cause, refuse, say, write_new

PROG = "pytest-skill-lens init"


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Write an eval-file scaffold whose every author-supplied value is "
        "TODO(skill-lens): for the skill at PATH, or for each skill under PATH that has no "
        "eval file yet. A PATH that does not exist becomes a new skill: its SKILL.md and its "
        "eval file.",
    )
    parser.add_argument(
        "path",
        metavar="PATH",
        help="a skill's directory, one holding skills, or a new skill's directory",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite one skill's existing scaffold"
    )
    options = parser.parse_args(argv)
    path = Path(options.path)
    skill_file = path if path.name == SKILL_FILE and path.is_file() else path / SKILL_FILE
    if skill_file.is_file():
        return _one_skill(skill_file, options.path, force=options.force)
    if not _exists(path):
        return _new_skill(path, options.path)
    return _batch(path, options.path, force=options.force)


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()  # a dangling link is in the way, not absent


def _new_skill(directory: Path, shown: str) -> int:
    """A new skill in ``directory``, which does not exist: SKILL.md, then its eval file."""
    problem = new_skill_problem(directory)
    if problem is not None:
        return refuse(PROG, *problem)
    skill_file = directory / SKILL_FILE
    try:
        write_new(skill_file, new_skill_text(directory.name), replace=False)
    except OSError as exc:
        return refuse(
            PROG, f"cannot write {skill_file}: {cause(exc)}", "make the directory writable"
        )
    say([f"Wrote {skill_file}"])
    skill = load_skill(skill_file)  # what was just written: it parses
    target = scaffold_target(skill)
    written = _write(skill, target, force=False)
    if written is not None:
        return written
    say([f"Wrote {target}", _hint(shown)])
    return EXIT_OK


def _one_skill(skill_file: Path, shown: str, *, force: bool) -> int:
    try:
        skill = load_skill(skill_file)
    except AuthoringError as exc:
        return _refuse_authoring(exc)
    target = scaffold_target(skill)
    if (target.exists() or target.is_symlink()) and not force:
        return refuse(
            PROG,
            f"{target} already exists",
            "edit it, or pass --force to replace it with a fresh scaffold",
        )
    written = _write(skill, target, force=force)
    if written is not None:
        return written
    say([f"Wrote {target}", _hint(shown)])
    return EXIT_OK


def _batch(root: Path, shown: str, *, force: bool) -> int:
    if force:
        return refuse(
            PROG,
            "--force rewrites one skill's scaffold; it is refused for a directory of skills",
            f"name one skill's directory with --force, or drop --force to scaffold only the "
            f"skills under {shown} that have no eval file",
        )
    if not root.is_dir():
        return refuse(
            PROG,
            f"{shown} is not a directory",
            "name a skill's directory (it holds SKILL.md) or a directory of skills",
        )
    try:
        plan = plan_batch(root)
    except AuthoringError as exc:
        return _refuse_authoring(exc)
    except OSError as exc:
        return refuse(PROG, f"cannot read {shown}: {cause(exc)}", "make the directory readable")
    if not plan:
        return refuse(
            PROG,
            f"no {SKILL_FILE} under {shown}",
            "name a skill's directory, or a directory that holds skills",
        )
    wrote = False
    for item in plan:
        if isinstance(item, Skipped):
            say([f"Skipped {item.skill.name}: already has {item.eval_files} eval file(s)"])
            continue
        assert isinstance(item, Pending)
        written = _write(item.skill, item.target, force=False)
        if written is not None:
            return written
        say([f"Wrote {item.target}"])
        wrote = True
    if wrote:
        say([_hint(shown)])
    else:
        say([f"Nothing to do: every skill under {shown} already has an eval suite"])
    return EXIT_OK


def _write(skill: Skill, target: Path, *, force: bool) -> int | None:
    """``None`` once the scaffold is written; else the refusal's exit code."""
    try:
        write_new(target, scaffold_text(skill), replace=force)
    except FileExistsError:
        return refuse(PROG, f"{target} already exists", "edit it, or pass --force to replace it")
    except OSError as exc:
        return refuse(PROG, f"cannot write {target}: {cause(exc)}", "make the directory writable")
    return None


def _hint(shown: str) -> str:
    return (
        "Fill in every TODO(skill-lens), then run: "
        f"pytest --skill-lens {shlex.quote(shown)} --collect-only"
    )


def _refuse_authoring(exc: AuthoringError) -> int:
    place = exc.where.render()
    return refuse(PROG, f"{place}: {exc.problem}" if place else exc.problem, exc.fix)
