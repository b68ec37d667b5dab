"""What in a SKILL.md stops a run (exit 2), beyond a frontmatter that cannot be read.

A ``TODO(skill-lens)`` left in the file (``init`` writes one for each thing only the
author knows), and an offered case of a skill with no description.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import AuthoringError, Where
from .quoting import shown
from .rules import PLACEHOLDER
from .skill_md_rules import DESCRIBE, NAME_RULE

if TYPE_CHECKING:
    from .loaded import LoadedCase

_FIXES = {
    "name": f"write the skill's name ({NAME_RULE}, the same as its directory)",
    "description": "write what the skill does and when to use it (an agent reads it to decide "
    "whether to use the skill)",
}


def placeholder_errors(
    path: Path, text: str, lines: Mapping[str, int], body_line: int
) -> list[AuthoringError]:
    """An error per line of SKILL.md still holding ``TODO(skill-lens)`` (what ``init``
    writes for a new skill): in the frontmatter, named by the key above it; below, the
    instructions. ``body_line`` is the first line of the instructions."""
    if PLACEHOLDER not in text:
        return []
    keys = sorted((line, key) for key, line in lines.items())
    errors: list[AuthoringError] = []
    for number, row in enumerate(text.splitlines(), start=1):
        if PLACEHOLDER not in row:
            continue
        if number >= body_line:
            errors.append(
                AuthoringError(
                    f"the instructions still hold the placeholder {PLACEHOLDER}",
                    where=Where(path, number),
                    fix="write the instructions the agent follows when it uses the skill",
                )
            )
            continue
        field = next((key for line, key in reversed(keys) if line <= number), None)
        errors.append(
            AuthoringError(
                f"still holds the placeholder {PLACEHOLDER}",
                where=Where(path, number, field=field),
                fix=_FIXES.get(field or "", "replace it with the real value"),
            )
        )
    return errors


def offered_without_description(
    path: Path, description: str, line: int | None, cases: Iterable[LoadedCase]
) -> AuthoringError | None:
    """The error for offered cases of a skill with no description, or ``None``.

    An offered skill reaches the agent only as a tool described by its description, so
    with none the agent has nothing to choose by, and the case measures nothing."""
    if description.strip():
        return None
    offered: Sequence[LoadedCase] = [c for c in cases if c.case.mode == "offered"]
    if not offered:
        return None
    first = offered[0]
    named = f"case {shown(first.name)} ({first.file}:{first.line})"
    others = len(offered) - 1
    if others:
        named += f" and {others} other case{'s' if others > 1 else ''} are"
    else:
        named += " is"
    return AuthoringError(
        f"the skill has no description, but {named} mode: offered: an offered skill is shown "
        "to the agent only by its description, so the case would measure nothing",
        where=Where(path, line or 1, field="description"),
        fix=f"add description: {DESCRIBE} to SKILL.md, or drop mode: offered from the "
        + ("cases" if others else "case"),
    )
