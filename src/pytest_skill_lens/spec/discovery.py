"""Where skills and their eval files are found (the seed's rules)."""

from __future__ import annotations

from pathlib import Path

from .errors import AuthoringError, Where

SKILL_FILE = "SKILL.md"


def is_skill_in_scope(skill_file: Path, roots: list[Path]) -> bool:
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
        return _evals_in(override)
    evals_dir = skill_dir / "evals"
    if evals_dir.is_dir():
        return _evals_in(evals_dir)
    return sorted(p for p in skill_dir.glob("*.eval.yaml") if p.is_file())


def _evals_in(directory: Path) -> list[Path]:
    return sorted(
        p
        for p in directory.iterdir()
        if p.is_file() and (p.suffix in (".yaml", ".yml") or p.name == "evals.json")
    )
