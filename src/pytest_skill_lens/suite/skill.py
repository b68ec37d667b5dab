"""A skill: ``SKILL.md`` frontmatter plus its instructions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import AuthoringError, Where
from .names import name_problem
from .quoting import escaped, shown
from .skill_md_errors import placeholder_errors
from .skill_md_rules import Frontmatter, skill_md_warnings
from .yamlload import load_yaml_text, read_text

# Where the Agent Skills layout puts a skill's runnable scripts (run_script runs only these).
SCRIPTS_DIR = "scripts"
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:^|\n)---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_OPENED = re.compile(r"\A---[ \t]*(?:\r?\n|\Z)")


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    instructions: str
    path: Path  # the SKILL.md file
    version: str | None = None
    variant: str = "candidate"
    meta: dict[str, object] = field(default_factory=dict, compare=False, hash=False)
    # More eval paths kept out of the skill's bundle: what --skill-lens-evals names,
    # which no name rule (evals/, *.eval.yaml) recognises.
    withheld: tuple[Path, ...] = field(default=(), compare=False, hash=False)
    # Where the frontmatter departs from the Agent Skills specification: warnings, or
    # errors under strict_skill_md (suite/skill_md_rules.py).
    departures: tuple[AuthoringError, ...] = field(default=(), compare=False, hash=False)
    # Each TODO(skill-lens) left in the file (a new skill from init): the run refuses it.
    unfinished: tuple[AuthoringError, ...] = field(default=(), compare=False, hash=False)
    # The line of each frontmatter key in SKILL.md.
    key_lines: dict[str, int] = field(default_factory=dict, compare=False, hash=False)
    # The other skills offered beside this one in a mode: offered case (``neighbours:``,
    # suite/neighbours.py): set per case at collection, empty otherwise.
    neighbours: tuple[Skill, ...] = field(default=(), compare=False, hash=False)

    @property
    def directory(self) -> Path:
        return self.path.parent

    @property
    def ships_scripts_dir(self) -> bool:
        """Whether the skill has a ``scripts/`` directory: one stat, no walk of its files."""
        return (self.directory / SCRIPTS_DIR).is_dir()


def parse_skill_text(text: str, path: Path) -> Skill:
    meta: dict[str, object] = {}
    lines: dict[str, int] = {}
    body = text
    match = _FRONTMATTER.match(text)
    if match is None and _OPENED.match(text):
        raise AuthoringError(
            "the frontmatter opened by '---' on line 1 is never closed: no line holding only "
            "'---' follows it",
            where=Where(path, 1),
            fix="add a line holding only '---' after the frontmatter's last key, before the "
            "instructions",
        )
    if match:
        loaded = load_yaml_text(match.group(1), path)
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise AuthoringError(
                "the frontmatter between the '---' lines must be a mapping of keys",
                where=Where(path, 2),
                fix="write it as 'name: my-skill' and 'description: ...' lines",
            )
        meta = dict(loaded)
        # Frontmatter lines, counted in the file: the fragment starts on line 2.
        lines = {key: line + 1 for key, line in getattr(loaded, "key_lines", {}).items()}
        body = text[match.end() :]
    name = meta.get("name", path.parent.name)
    if not isinstance(name, str) or not name.strip():
        raise AuthoringError(
            f"the skill name must be non-empty text, got {shown(name)}",
            where=Where(path, lines.get("name"), field="name"),
            fix='quote it, e.g. name: "my-skill"',
        )
    label = "the skill name" if "name" in meta else "the skill name (its directory's name)"
    _check_name(label, name, path, "name", lines.get("name"))
    description = meta.get("description", "")
    if not isinstance(description, str):
        raise AuthoringError(
            f"the description must be text, got {shown(description)}",
            where=Where(path, lines.get("description"), field="description"),
            fix="quote it",
        )
    version = meta.get("version")
    if version is not None and not isinstance(version, str):
        # Suggest the value as written: 1.20 has already been read as 1.2.
        raw = re.search(r"^version:[ \t]*([^\s#]+)", match.group(1), re.M) if match else None
        written = raw.group(1) if raw else str(version)
        raise AuthoringError(
            f"version must be a string, got {type(version).__name__} {shown(version)}",
            where=Where(path, lines.get("version"), field="version"),
            fix=f'quote it: version: "{escaped(written, 40)}" (unquoted, '
            f"{escaped(written, 40)} reads as {shown(version)})",
        )
    if version is not None:
        _check_name("the version", version, path, "version", lines.get("version"))
    front = Frontmatter(
        path, meta, lines, present=match is not None, text=match.group(1) if match else ""
    )
    body_line = text.count("\n", 0, match.end()) + 1 if match else 1
    return Skill(
        name=name.strip(),
        description=description.strip(),
        instructions=body.strip(),
        path=path,
        version=version,
        meta=meta,
        departures=tuple(skill_md_warnings(front)),
        unfinished=tuple(placeholder_errors(path, text, lines, body_line)),
        key_lines=lines,
    )


def _check_name(label: str, value: str, path: Path, field: str, line: int | None) -> None:
    found = name_problem(label, value)
    if found is not None:
        raise AuthoringError(found[0], where=Where(path, line, field=field), fix=found[1])


def load_skill(path: Path) -> Skill:
    return parse_skill_text(read_text(path), path)
