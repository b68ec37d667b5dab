"""What a skill's run reads, as the loader resolved it: the map ``--skill-lens-changed`` uses.

A path here stands for everything at or below it. The skill's directory covers SKILL.md,
its bundle and the eval files discovery finds in it; an eval file elsewhere
(``--skill-lens-evals``) and every tool library a case's file imports (a file, or a
directory whose new files would be read too) are named as well. Nothing is parsed again:
the paths are those :func:`.loader.load_suite` followed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .loaded import SkillSuite


@dataclass(frozen=True)
class SkillInputs:
    """One skill and the paths (files or directories, resolved) its run could read."""

    name: str
    directory: Path
    paths: frozenset[Path]
    # The directories of the skills its offered cases are offered beside it (neighbours:
    # their descriptions compete with its own), known once collection has ended.
    neighbours: frozenset[Path] = frozenset()


def skill_inputs(suite: SkillSuite, extra: Iterable[Path] = ()) -> SkillInputs:
    """The inputs of ``suite``'s run; ``extra`` adds paths the caller knows of (an
    ``--skill-lens-evals`` directory, whose new files would be read)."""
    directory = suite.skill.directory.resolve()
    libraries = {library for loaded in suite.cases for library in loaded.libraries}
    found = {directory, *libraries, *(path.resolve() for path in (*suite.eval_files, *extra))}
    return SkillInputs(suite.skill.name, directory, frozenset(found))
