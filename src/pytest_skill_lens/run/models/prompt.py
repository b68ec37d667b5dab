"""The system prompt every framework runner sends: one builder, so runners and arms
differ only in what is measured, never in how the skill is put in front of the model."""

from __future__ import annotations

from ...suite.skill import Skill

NEUTRAL_PROMPT = "You are a helpful assistant."

# mode: offered: the skill is one of the tools, so the prompt says only that tools exist.
# It names and describes no skill: whether the agent reaches for it is what is measured.
OFFERED_PROMPT = "You are a helpful assistant. You have tools; call one whenever it fits the task."

# Appended for a case with a workspace, in every arm alike: it names no skill, so the
# candidate and the baseline differ only in the skill's own text.
WORKSPACE_PREAMBLE = (
    "You have a working directory for this task. Its files are reachable only through "
    "three tools:\n"
    "- list_files lists every file in the working directory, one relative path per line;\n"
    "- read_file reads a text file, given its path;\n"
    "- write_file creates or replaces a text file, given its path and its whole content.\n"
    "A path is relative to the working directory (report.md, data/input.csv); an absolute "
    "path or one containing .. is refused. A file you are asked to produce exists only "
    "once write_file has written it."
)


def system_prompt(skill: Skill, *, workspace: bool = False, offered: bool = False) -> str:
    """``# <name>``, then the description, then the instructions, blank-line separated.

    With ``workspace``, :func:`workspace_preamble` follows, after a blank line.

    With ``offered`` (``mode: offered``) the skill's text stays out of the prompt:
    :data:`OFFERED_PROMPT` stands in its place, and the skill reaches the agent
    only through its tool (:mod:`..tools.skill_tool`).

    A skill whose description and instructions are both empty (what a ``none``
    baseline is) gets :data:`NEUTRAL_PROMPT` instead, without its name: the prompt
    is meant to measure what the skill's own text contributes. The rule reads the
    skill, never which arm is running, so a runner cannot get it wrong.
    """
    description = skill.description.strip()
    instructions = skill.instructions.strip()
    if offered:
        prompt = OFFERED_PROMPT
    elif not description and not instructions:
        prompt = NEUTRAL_PROMPT
    else:
        parts = [f"# {skill.name}", description, instructions]
        prompt = "\n\n".join(part for part in parts if part)
    return f"{prompt}\n\n{workspace_preamble()}" if workspace else prompt


def workspace_preamble() -> str:
    """How to use the working directory: the same bytes for every skill and arm."""
    return WORKSPACE_PREAMBLE
