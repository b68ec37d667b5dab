"""The ``init`` scaffold: an eval file with every field a new author needs, and for a
directory that does not exist yet, the new skill's ``SKILL.md``.

Every value only the author can know is the placeholder ``TODO(skill-lens)``, which the
loader refuses (``suite/rules.py``): an unfilled scaffold stops the run with exit 2 naming
the field, instead of passing while it checks nothing. Comments say what goes where; the
loader ignores them, so they may mention the placeholder.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..suite.discovery import SKILL_FILE, eval_files_for
from ..suite.quoting import shown
from ..suite.rules import PLACEHOLDER
from ..suite.skill import Skill, load_skill
from ..suite.skill_md_rules import NAME_RULE, slug, spec_name_problems
from .yaml_emit import comment

# Directories pytest does not collect by default (its norecursedirs): a skill in one of
# them would never run, so batch mode does not write a suite for it either.
_NOT_WALKED = {"node_modules", "venv", "build", "dist", "_darcs", "CVS", "{arch}"}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(skill_name: str) -> str:
    """The skill's name as a file name: each run of other characters than letters, digits,
    ``.``, ``_`` and ``-`` becomes ``-``, the ends lose ``-`` and ``.``; ``skill`` if empty."""
    return _UNSAFE.sub("-", skill_name).strip("-.") or "skill"


def scaffold_target(skill: Skill) -> Path:
    """Where ``init`` writes a skill's scaffold: ``evals/<safe-name>.eval.yaml``, or beside
    ``SKILL.md`` when the skill already keeps ``*.eval.yaml`` files there and has no
    ``evals/`` (discovery reads one place or the other, never both)."""
    directory = skill.directory
    file_name = f"{safe_name(skill.name)}.eval.yaml"
    if not (directory / "evals").is_dir() and any(directory.glob("*.eval.yaml")):
        return directory / file_name
    return directory / "evals" / file_name


@dataclass(frozen=True)
class Pending:
    """A skill with no eval file, and where its scaffold goes."""

    skill: Skill
    target: Path


@dataclass(frozen=True)
class Skipped:
    """A skill that already has eval files: batch mode leaves it alone."""

    skill: Skill
    eval_files: int


def skill_files_under(root: Path) -> list[Path]:
    """Every ``SKILL.md`` below ``root`` that a run of ``root`` would collect, sorted.

    Hidden directories and the ones pytest skips by default are not walked, and no
    symbolic link to a directory is followed (a loop would never end).
    """
    found: list[Path] = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            name
            for name in subdirectories
            if not name.startswith(".") and name not in _NOT_WALKED and not name.endswith(".egg")
        )
        if SKILL_FILE in files:
            found.append(Path(directory) / SKILL_FILE)
    return sorted(found)


def plan_batch(root: Path) -> list[Pending | Skipped]:
    """Each skill under ``root``: one to scaffold, or one skipped with its eval-file count.

    A ``SKILL.md`` that does not parse raises its :class:`AuthoringError`, before any file
    is written. Skills come in name order, as a run lists them.
    """
    plan: list[Pending | Skipped] = []
    skills = sorted((load_skill(path) for path in skill_files_under(root)), key=_by_name)
    for skill in skills:
        existing = eval_files_for(skill.directory)
        if existing:
            plan.append(Skipped(skill, len(existing)))
        else:
            plan.append(Pending(skill, scaffold_target(skill)))
    return plan


def _by_name(skill: Skill) -> tuple[str, str]:
    return skill.name.casefold(), str(skill.path)


def new_skill_problem(directory: Path) -> tuple[str, str] | None:
    """Why ``directory`` cannot hold a new skill, and the fix; ``None`` when it can.

    The skill is named after its directory, as the specification asks, so the directory's
    name must be a valid skill name."""
    problems = spec_name_problems(directory.name)
    if not problems:
        return None
    return (
        f"{shown(directory.name)} cannot name a new skill: a skill takes its directory's name, "
        f"and {shown(directory.name)} is not a valid Agent Skills name: " + "; ".join(problems),
        f"name the directory {slug(directory.name) or 'my-skill'} ({NAME_RULE})",
    )


def new_skill_text(name: str) -> str:
    """A new skill's ``SKILL.md``: the frontmatter the specification requires, and a
    ``TODO(skill-lens)`` for each thing only the author knows (the run refuses the file
    until none is left)."""
    return _NEW_SKILL.format(name=name, todo=PLACEHOLDER)


_NEW_SKILL = """\
---
name: {name}
description: {todo} what the skill does, and when an agent should use it
---
# {name}

{todo} the instructions the agent follows when it uses the skill
"""


def scaffold_text(skill: Skill) -> str:
    """The scaffold for ``skill``: five cases, one of each kind a suite usually needs."""
    description = skill.description or "(none: a mode: offered case shows the agent no description)"
    if PLACEHOLDER in description:
        description = "(not written yet: SKILL.md still holds the placeholder)"
    return _SCAFFOLD.format(
        name=comment(repr(skill.name)), description=comment(repr(description)[:300])
    )


# Each TODO(skill-lens) is a value only the author knows; a comment says which.
_SCAFFOLD = """\
# Eval cases for the skill {name}, written by pytest-skill-lens init.
#
# Replace every TODO(skill-lens) with a real value: the run refuses this file until none
# is left, so an unfinished case can never pass while it checks nothing. Delete a case
# you do not need. List what the suite holds, for free:
#   pytest --skill-lens <the skill's directory> --collect-only
#
# Under mode: offered the agent sees the skill only as a tool, described by SKILL.md's
# description: {description}
cases:
  # A request the skill exists for, checked for free: every assertion must hold.
  - name: handles a common request
    task: TODO(skill-lens)  # what a user would ask, in their words
    tags: [smoke]  # -m smoke selects the case
    assertions:
      - kind: contains
        value: TODO(skill-lens)  # text a good answer always holds
      - kind: not_contains
        value: TODO(skill-lens)  # text it must never hold
    # To grade quality, add a judge rubric (a real judge must be configured in
    # skill-lens.toml; the default judge grades nothing and reports the case errored):
    # judge:
    #   rubric:
    #     - The answer explains the next step plainly

  # A policy edge, measured by the tools the agent called: the mock tools answer with
  # their returns: and nothing real runs.
  - name: holds the line on a policy edge
    task: TODO(skill-lens)  # a request where the skill must follow its policy
    tools:
      - name: TODO(skill-lens)  # a tool the skill should call, e.g. lookup_order
        description: TODO(skill-lens)  # what the tool does, as the agent reads it
        parameters:
          TODO(skill-lens): string  # an argument: string, integer, number or boolean
        returns: TODO(skill-lens)  # the mock's reply, e.g. '{{"status": "delivered"}}'
      - name: TODO(skill-lens)  # a tool it must not call here, e.g. issue_refund
        description: TODO(skill-lens)
        returns: TODO(skill-lens)
    trajectory:
      called: [TODO(skill-lens)]  # the first tool's name
      forbidden: [TODO(skill-lens)]  # the second tool's name
      max_calls: 5  # a loop that should have stopped fails here

  # Does the agent reach for the skill by itself? Offered, not loaded.
  - name: reaches for the skill when it applies
    mode: offered
    task: TODO(skill-lens)  # a request the skill is for
    trajectory:
      skill_triggered: true

  # The negative control: without it, a skill that fires on everything scores 100%.
  - name: leaves an unrelated request alone
    mode: offered
    task: TODO(skill-lens)  # a request the skill is not for
    trajectory:
      skill_triggered: false

  # A file the skill must write, in a fresh temporary workspace seeded with its inputs.
  - name: writes the expected file
    task: TODO(skill-lens)  # a request whose result is a file
    workspace:
      files:
        TODO(skill-lens): TODO(skill-lens)  # an input file's path and its text
    assertions:
      - kind: file-produced
        file: TODO(skill-lens)  # the file the skill writes (not the seeded one)
      - kind: contains
        file: TODO(skill-lens)  # the same file
        value: TODO(skill-lens)  # text the file must hold
"""
