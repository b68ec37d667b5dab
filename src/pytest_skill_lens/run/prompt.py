"""The system prompt every framework runner sends: one builder, so runners and arms
differ only in what is measured, never in how the skill is put in front of the model."""

from __future__ import annotations

from ..spec.skill import Skill

NEUTRAL_PROMPT = "You are a helpful assistant."


def system_prompt(skill: Skill) -> str:
    """``# <name>``, then the description, then the instructions, blank-line separated.

    A skill whose description and instructions are both empty (what a ``none``
    baseline is) gets :data:`NEUTRAL_PROMPT` instead, without its name: the prompt
    is meant to measure what the skill's own text contributes. The rule reads the
    skill, never which arm is running, so a runner cannot get it wrong.
    """
    description = skill.description.strip()
    instructions = skill.instructions.strip()
    if not description and not instructions:
        return NEUTRAL_PROMPT
    parts = [f"# {skill.name}", description, instructions]
    return "\n\n".join(part for part in parts if part)
