"""``list_skill_files`` and ``read_skill_file``: the skill's bundle as built-in tools.

Same shape as :mod:`.workspace_tools`, so every framework runner registers them
alike. They are offered only when the skill ships at least one file, and their
descriptions never name the skill: what tells the agent to read
``references/style.md`` is SKILL.md, which is what is under measurement.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...suite.placebo import PLACEBO_VARIANT
from ...suite.skill import Skill
from ..workspace.bundle import Bundle
from .workspace_tools import BuiltinTool, _closed, _missing


def skill_bundle(skill: Skill) -> Bundle:
    """The bundle ``skill`` ships; none for a ``--baseline none`` arm, which has no skill.

    That arm is recognised the way the prompt builder recognises it: the baseline
    variant with neither a description nor instructions, under the candidate's path.
    The eval paths the skill withholds (``--skill-lens-evals``) never ship. A placebo
    ships nothing either: bundled files are the skill's content too.
    """
    if skill.variant == "baseline" and not skill.description and not skill.instructions:
        return Bundle.empty()
    if skill.variant == PLACEBO_VARIANT:
        return Bundle.empty()
    return Bundle.of(skill.directory, also_withheld=skill.withheld)


def bundle_tools(bundle: Bundle) -> list[BuiltinTool]:
    """``list_skill_files`` then ``read_skill_file`` over ``bundle``; none when it ships nothing."""
    if not bundle:
        return []

    def list_skill_files(arguments: Mapping[str, Any]) -> str:
        return bundle.listing()

    def read_skill_file(arguments: Mapping[str, Any]) -> str:
        problem = _missing("read_skill_file", arguments, "path")
        return problem or bundle.read(arguments["path"])

    return [
        BuiltinTool(
            "list_skill_files",
            "List the bundled files, one path per line, relative to the skill's directory",
            _closed(),
            list_skill_files,
        ),
        BuiltinTool(
            "read_skill_file",
            "Read one bundled text file, e.g. `references/style.md`. `path` is relative to "
            "the skill's directory, as list_skill_files shows it",
            _closed("path"),
            read_skill_file,
        ),
    ]
