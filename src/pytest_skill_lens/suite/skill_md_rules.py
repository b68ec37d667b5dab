"""SKILL.md against the Agent Skills specification (agentskills.io/specification).

A departure is a warning, never an error: the products that load a skill read keys and
names this plugin does not model, and public skills depart from the specification in
ways their products accept (a capitalised ``name``, ``allowed-tools`` as a list). Each
warning is an :class:`AuthoringError` (file, line, field, value, fix), so
``strict_skill_md`` can raise it as one. What stops a run is decided elsewhere: a
frontmatter that does not parse or is never closed (:mod:`.skill`), a placeholder left in
the file and an offered case of a skill with no description (:mod:`.skill_md_errors`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import AuthoringError, Where
from .quoting import shown

SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
# Read by skill-lens itself (the previous version under --skill-lens-baseline previous).
OWN_KEYS = ("version",)
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
_NAME_CHARACTERS = re.compile(r"[a-z0-9-]")
_NOT_NAME = re.compile(r"[^a-z0-9]+")
_SHOWN_CHARACTERS = 5
NAME_RULE = "lowercase a-z, 0-9 and single hyphens, at most 64 characters"
DESCRIBE = "<what the skill does and when to use it>"


@dataclass(frozen=True)
class Frontmatter:
    """What the rules read: the frontmatter's keys and, per key, its line in SKILL.md."""

    path: Path
    meta: Mapping[Any, Any]
    lines: Mapping[str, int]
    present: bool  # whether SKILL.md opens with a frontmatter block at all
    text: str = ""  # the frontmatter's own text (a value's spelling, as written)
    first_line: int = 2  # the line in SKILL.md the frontmatter's text starts on

    def line(self, key: str) -> int:
        """The key's line; the file's first line for a key it does not have."""
        return self.lines.get(key, 1)

    def written(self, line: int, key: str) -> str | None:
        """The value of ``key`` as spelled on SKILL.md's ``line`` (``1.20``, not ``1.2``)."""
        index = line - self.first_line
        rows = self.text.splitlines()
        if not 0 <= index < len(rows):
            return None
        found = re.match(rf"\s*{re.escape(key)}\s*:\s*([^#]*?)\s*(?:#.*)?$", rows[index])
        return found.group(1) if found and found.group(1) else None


def slug(text: str) -> str:
    """``text`` as a name the specification accepts: ``Release Notes`` -> ``release-notes``."""
    return _NOT_NAME.sub("-", text.lower()).strip("-")[:MAX_NAME].rstrip("-")


def spec_name_problems(name: str) -> list[str]:
    """How ``name`` breaks the specification's name rule, in words; empty when it keeps it."""
    problems: list[str] = []
    others = list(dict.fromkeys(c for c in name if not _NAME_CHARACTERS.fullmatch(c)))
    if others:
        listed = ", ".join(repr(c) for c in others[:_SHOWN_CHARACTERS])
        more = ", ..." if len(others) > _SHOWN_CHARACTERS else ""
        problems.append(
            f"it holds characters other than lowercase a-z, 0-9 and '-' ({listed}{more})"
        )
    if len(name) > MAX_NAME:
        problems.append(f"it is {len(name):,} characters, over {MAX_NAME}")
    if name.startswith("-"):
        problems.append("it starts with '-'")
    if name.endswith("-"):
        problems.append("it ends with '-'")
    if "--" in name:
        problems.append("it holds '--'")
    return problems


def skill_md_warnings(front: Frontmatter) -> list[AuthoringError]:
    """Each departure of the frontmatter from the specification, in the order of its keys."""
    directory = front.path.parent.name
    if not front.present:
        return [_no_frontmatter(front.path, directory)]
    unknown = [key for key in front.meta if str(key) not in (*SPEC_KEYS, *OWN_KEYS)]
    guesses = {str(key): _guess(str(key)) for key in unknown}
    warnings = [
        *_name_warnings(front, directory, "name" in guesses.values()),
        *_description_warnings(front, "description" in guesses.values()),
        *_compatibility_warnings(front),
        *_license_warnings(front),
        *_metadata_warnings(front),
        *_allowed_tools_warnings(front),
    ]
    for key in unknown:
        warnings.append(_unknown(front, key, guesses[str(key)]))
    return warnings


def _warning(front: Frontmatter, key: str, problem: str, fix: str) -> AuthoringError:
    return AuthoringError(problem, where=Where(front.path, front.line(key), field=key), fix=fix)


def _no_frontmatter(path: Path, directory: str) -> AuthoringError:
    name = slug(directory) or "my-skill"
    return AuthoringError(
        "SKILL.md has no frontmatter: the Agent Skills specification asks for a '---' block "
        f"with name: and description: at the top; skill-lens names the skill after its "
        f"directory, {shown(directory)}, and gives it no description",
        where=Where(path, 1),
        fix=f"start the file with a '---' line, then name: {name}, description: {DESCRIBE}, "
        "then a '---' line",
    )


def _renaming(name: str, directory: str) -> str:
    """What else the fix asks when the directory does not already bear ``name``."""
    return "" if name == directory else f", and rename its directory {directory!r} to match"


def _name_warnings(front: Frontmatter, directory: str, typo: bool) -> list[AuthoringError]:
    if "name" not in front.meta:
        if typo:
            return []  # the misspelt key's own warning says it
        name = slug(directory) or "my-skill"
        return [
            _warning(
                front,
                "name",
                "no name: the Agent Skills specification requires one; skill-lens names the "
                f"skill after its directory, {shown(directory)}",
                f"add name: {name}{_renaming(name, directory)}",
            )
        ]
    name = front.meta["name"]
    if not isinstance(name, str):
        return []  # refused when the file was read
    problems = spec_name_problems(name)
    if problems:
        better = slug(name) or slug(directory) or "my-skill"
        return [
            _warning(
                front,
                "name",
                f"the name {shown(name)} is not a valid Agent Skills name: " + "; ".join(problems),
                f"write name: {better} ({NAME_RULE}){_renaming(better, directory)}",
            )
        ]
    if name != directory:
        keep = f", or write name: {directory}" if not spec_name_problems(directory) else ""
        return [
            _warning(
                front,
                "name",
                f"the name {shown(name)} does not match its directory {shown(directory)} "
                "(the specification requires them to be the same)",
                f"rename the directory to {name!r}{keep}",
            )
        ]
    return []


def _description_warnings(front: Frontmatter, typo: bool) -> list[AuthoringError]:
    fix = f"add description: {DESCRIBE} (at most {MAX_DESCRIPTION} characters)"
    if "description" not in front.meta:
        if typo:
            return []
        return [
            _warning(
                front,
                "description",
                "no description: the Agent Skills specification requires one, and it is what "
                "an agent reads to decide whether to use the skill",
                fix,
            )
        ]
    description = front.meta["description"]
    if not isinstance(description, str):
        return []  # refused when the file was read
    if not description.strip():
        return [
            _warning(
                front,
                "description",
                "the description is empty: the Agent Skills specification requires 1 to "
                f"{MAX_DESCRIPTION} characters, and it is what an agent reads to decide whether "
                "to use the skill",
                fix.replace("add", "write", 1),
            )
        ]
    if len(description) > MAX_DESCRIPTION:
        return [
            _warning(
                front,
                "description",
                f"the description is {len(description):,} characters; the specification "
                f"allows at most {MAX_DESCRIPTION}",
                f"shorten it to {MAX_DESCRIPTION} characters or fewer, and move the detail "
                "into the instructions below the frontmatter",
            )
        ]
    return []


def _compatibility_warnings(front: Frontmatter) -> list[AuthoringError]:
    if "compatibility" not in front.meta:
        return []
    value = front.meta["compatibility"]
    limits = f"the specification allows 1 to {MAX_COMPATIBILITY}"
    if not isinstance(value, str):
        return [_not_text(front, "compatibility", value)]
    if not value.strip():
        return [
            _warning(
                front,
                "compatibility",
                f"compatibility is empty; {limits}",
                "write what the skill needs (a product, packages, network access), or remove "
                "the key",
            )
        ]
    if len(value) > MAX_COMPATIBILITY:
        return [
            _warning(
                front,
                "compatibility",
                f"compatibility is {len(value):,} characters; {limits}",
                f"shorten it to {MAX_COMPATIBILITY} characters or fewer",
            )
        ]
    return []


def _license_warnings(front: Frontmatter) -> list[AuthoringError]:
    value = front.meta.get("license")
    if "license" not in front.meta or isinstance(value, str):
        return []
    return [_not_text(front, "license", value)]


def _not_text(front: Frontmatter, key: str, value: object) -> AuthoringError:
    written = front.written(front.line(key), key) or str(value)
    return _warning(
        front,
        key,
        f"{key} must be text, got {_kind(value)}",
        f'quote it: {key}: "{written}"',
    )


def _metadata_warnings(front: Frontmatter) -> list[AuthoringError]:
    if "metadata" not in front.meta:
        return []
    metadata = front.meta["metadata"]
    if not isinstance(metadata, Mapping):
        return [
            _warning(
                front,
                "metadata",
                f"metadata must be a mapping of text keys to text values, got {_kind(metadata)}",
                "write it as indented 'key: value' lines under metadata:",
            )
        ]
    lines: Mapping[str, int] = getattr(metadata, "key_lines", {})
    warnings: list[AuthoringError] = []
    for key, value in metadata.items():
        field = f"metadata.{key}"
        line = lines[key] + front.first_line - 1 if key in lines else front.line("metadata")
        where = Where(front.path, line, field=field)
        if not isinstance(key, str):
            warnings.append(
                AuthoringError(
                    f"metadata keys must be text, got {_kind(key)}",
                    where=where,
                    fix=f'quote it: "{key}": ...',
                )
            )
        elif not isinstance(value, str):
            scalar = isinstance(value, int | float | bool) or value is None
            written = front.written(line, key) or str(value)
            warnings.append(
                AuthoringError(
                    "metadata values must be text (the specification's metadata maps text to "
                    f"text), got {_kind(value)}",
                    where=where,
                    fix=f'quote it: {key}: "{written}"'
                    if scalar
                    else "write it as one quoted line of text, or give each part a key of its own",
                )
            )
    return warnings


def _allowed_tools_warnings(front: Frontmatter) -> list[AuthoringError]:
    value = front.meta.get("allowed-tools")
    if "allowed-tools" not in front.meta or isinstance(value, str):
        return []
    if isinstance(value, list) and value:
        fix = "write allowed-tools: " + " ".join(str(tool) for tool in value)
    else:
        fix = "write it as one line, e.g. allowed-tools: Read Bash(git:*)"
    return [
        _warning(
            front,
            "allowed-tools",
            f"allowed-tools must be one line of tool names separated by spaces, got {_kind(value)}",
            fix,
        )
    ]


def _guess(key: str) -> str | None:
    found = difflib.get_close_matches(key, [*SPEC_KEYS, *OWN_KEYS], n=1)
    return found[0] if found else None


def _unknown(front: Frontmatter, key: object, guess: str | None) -> AuthoringError:
    text = str(key)
    fix = "remove it or move it under metadata:, unless a product you use reads it"
    return _warning(
        front,
        text,
        f"unknown key {shown(text)} with value {shown(front.meta[key], 60)}: it is not in the "
        "Agent Skills specification and skill-lens does not read it",
        f"did you mean {guess!r}? otherwise {fix}" if guess else fix,
    )


def _kind(value: object) -> str:
    if isinstance(value, list):
        return f"a list {shown(value, 60)}"
    if isinstance(value, Mapping):
        return f"a mapping {shown(dict(value), 60)}"
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {shown(value, 60)}"


def as_entry(departure: AuthoringError) -> dict[str, object]:
    """A warning as plain data for the reports: its place, problem and fix."""
    where = departure.where
    return {
        "file": str(where.file),
        "line": where.line,
        "field": where.field,
        "problem": departure.problem,
        "fix": departure.fix,
    }
