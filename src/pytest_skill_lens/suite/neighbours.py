"""``neighbours:``: the other skills an offered case offers beside its own.

Each entry is a path or a glob naming skill directories (a directory holding
``SKILL.md``, or that file itself): in a case, relative to the skill's own directory; in
``skill-lens.toml`` (:class:`Configured`, for every offered case without ``neighbours:``
of its own), relative to that file's directory, or ``"suite"`` for every other skill of
the run (:func:`suite_neighbours`, once collection has seen them all). They are resolved
at collection, so a mistake is an authoring error before anything is spent: an entry
that matches nothing, a match that is not a skill, the skill itself (named alone in a
case; a glob or the file's list skips it), two neighbours of one name (or one offered
tool name), a neighbour without a description (the agent would see nothing to choose it
by), and a case tool of a neighbour's tool name.
"""

from __future__ import annotations

import glob
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .discovery import SKILL_FILE
from .errors import AuthoringError, Where
from .loaded import LoadedCase
from .quoting import shown
from .skill import Skill, load_skill
from .tool_rules import offered_tool_name

_MATCHES_SHOWN = 50  # neighbours one entry may add: an offered tool each, for every call
SUITE = "suite"


@dataclass(frozen=True)
class Configured:
    """``neighbours`` in ``skill-lens.toml``: the entries, and the file they are read from."""

    entries: tuple[str, ...]
    file: Path


def case_neighbours(
    skill: Skill, loaded: LoadedCase, configured: Configured | None = None
) -> tuple[tuple[Skill, ...], list[AuthoringError]]:
    """The case's neighbour skills in the order written, and every mistake found."""
    entries = loaded.case.neighbours
    if loaded.case.mode != "offered":
        return (), []  # neighbours: on a loaded case is its own error (suite/rules.py)
    if entries is None and configured is not None:
        return _found(skill, loaded, configured.entries, configured.file.parent, configured.file)
    if entries is None:
        return (), []
    return _found(skill, loaded, entries, skill.directory, None)


def _found(
    skill: Skill, loaded: LoadedCase, entries: Sequence[str], base: Path, config: Path | None
) -> tuple[tuple[Skill, ...], list[AuthoringError]]:
    found: list[Skill] = []
    errors: list[AuthoringError] = []
    for i, entry in enumerate(entries):
        field = f"neighbours[{i}]"
        if config is None:
            where = Where(loaded.file, loaded.line_of(field), loaded.name, loaded.index, field)
        else:
            where = Where(config, field=field)
        skills, error = _resolve(skill, entry, base, where, skip_self=config is not None)
        if error is not None:
            errors.append(error)
        found.extend(skills)
    if not errors:
        errors += _clashes(skill, found, loaded, config)
    return tuple(found), errors


def suite_neighbours(
    skill: Skill, loaded: LoadedCase, suite: Iterable[Skill], config: Path
) -> tuple[tuple[Skill, ...], list[AuthoringError]]:
    """``neighbours = "suite"``: every other skill of the run, in name order."""
    others = sorted((s for s in suite if s.path != skill.path), key=lambda s: s.name)
    return tuple(others), _clashes(skill, others, loaded, config)


def _resolve(
    skill: Skill, entry: str, base: Path, where: Where, *, skip_self: bool
) -> tuple[list[Skill], AuthoringError | None]:
    def fail(problem: str, fix: str) -> AuthoringError:
        return AuthoringError(problem, where=where, fix=fix)

    if not entry.strip() or Path(entry).is_absolute():
        return [], fail(
            f"a neighbour is a path relative to the skill's directory, got {shown(entry)}",
            "write it as ../other-skill (a skill directory beside this one), or a glob "
            "such as ../*",
        )
    matches = sorted(Path(p) for p in glob.glob(entry, root_dir=base))
    if not matches:
        return [], fail(
            f"the neighbour {shown(entry)} matches nothing under {base}",
            "name a directory holding SKILL.md, relative to the skill's own directory",
        )
    if len(matches) > _MATCHES_SHOWN:
        return [], fail(
            f"the neighbour {shown(entry)} matches {len(matches)} paths; at most "
            f"{_MATCHES_SHOWN} are offered",
            "narrow the glob",
        )
    skills: list[Skill] = []
    own = skill.directory.resolve()
    for match in matches:
        path = (base / match).resolve()
        directory = path.parent if path.name == SKILL_FILE else path
        if directory == own:
            if skip_self or _is_glob(entry):
                continue  # ../* names the skill's own directory too: the rest are meant
            return [], fail(
                f"the neighbour {shown(entry)} is the skill itself",
                "name only the other skills; the skill is always offered",
            )
        if not (directory / SKILL_FILE).is_file():
            return [], fail(
                f"the neighbour {shown(entry)} names {directory}, which holds no {SKILL_FILE}",
                "name a skill's directory (one holding SKILL.md)",
            )
        try:
            skills.append(load_skill(directory / SKILL_FILE))
        except AuthoringError as exc:
            return [], fail(
                f"the neighbour {shown(entry)} cannot be read: {exc.problem}",
                exc.fix or "fix that skill's SKILL.md",
            )
    return skills, None


def _is_glob(entry: str) -> bool:
    return glob.has_magic(entry)


def _clashes(
    skill: Skill, found: Sequence[Skill], loaded: LoadedCase, config: Path | None
) -> list[AuthoringError]:
    """Two offered skills the agent could not tell apart, or one it could not choose by."""
    errors: list[AuthoringError] = []
    if config is None:
        line = loaded.line_of("neighbours")
        where = Where(loaded.file, line, loaded.name, loaded.index, "neighbours")
    else:  # the file's list or "suite", for this case
        where = Where(config, field="neighbours", case_name=loaded.name)
    seen: dict[str, str] = {offered_tool_name(skill.name): skill.name}
    for neighbour in found:
        tool = offered_tool_name(neighbour.name)
        if tool in seen:
            errors.append(
                AuthoringError(
                    f"the neighbour {neighbour.name!r} ({neighbour.directory}) is offered as the "
                    f"tool {tool!r}, as the skill {seen[tool]!r} is",
                    where=where,
                    fix="list each skill once; two skills of one name cannot be told apart",
                )
            )
            continue
        seen[tool] = neighbour.name
        if not neighbour.description:
            errors.append(
                AuthoringError(
                    f"the neighbour {neighbour.name!r} has no description, the only thing "
                    "an offered skill is chosen by",
                    where=where,
                    fix=f"give {neighbour.path} a description: in its frontmatter",
                )
            )
    for i, spec in enumerate(loaded.case.tools):
        if spec.name in seen and spec.name != offered_tool_name(skill.name):
            field = f"tools[{i}].name"
            errors.append(
                AuthoringError(
                    f"the case tool {spec.name!r} has the tool name of the neighbour "
                    f"{seen[spec.name]!r}",
                    where=Where(
                        loaded.file, loaded.line_of(field), loaded.name, loaded.index, field
                    ),
                    fix="rename the case tool",
                )
            )
    return errors
