"""``mode: offered``: the skill as a tool the agent may call, and whether it did.

The tool is named after the skill, normalised to what providers accept
(:func:`~...suite.tool_rules.offered_tool_name`), is described by the skill's
frontmatter description, takes no arguments, and answers a call with the
skill's instructions (the body of ``SKILL.md``), the same text a loaded case
puts in its system prompt. An agent that never calls it never sees them.

Whether the skill was triggered is read from the tool calls the run recorded,
the same list ``trajectory:`` reads, so the offered call that makes
``skill_triggered`` true is also the one ``max_calls`` counts. A runner builds
its result per attempt, so a retried attempt decides afresh.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...suite.model import EvalCase
from ...suite.skill import Skill
from ...suite.tool_rules import offered_tool_name
from ..result import ToolCall
from .workspace_tools import BuiltinTool

# No parameters, and no others accepted: the skill is asked for, not queried.
_NO_ARGUMENTS: dict[str, Any] = {
    "type": "object",
    "properties": {},
    "required": [],
    "additionalProperties": False,
}


def skill_tool(skill: Skill) -> BuiltinTool:
    """The offered skill's tool; every call (whatever its arguments) returns the instructions."""
    instructions = skill.instructions

    def call(arguments: Mapping[str, Any]) -> str:
        return instructions

    return BuiltinTool(offered_tool_name(skill.name), skill.description, dict(_NO_ARGUMENTS), call)


def offered_tools(skill: Skill, case: EvalCase) -> list[BuiltinTool]:
    """The skill's tool for a ``mode: offered`` case, and one per neighbour; nothing for a
    loaded one.

    With neighbours every skill's tool comes in the order of its tool name, the skill's
    own among them: a place of its own (first, say) would be a cue the others lack.
    """
    if case.mode != "offered":
        return []
    offered = [skill, *skill.neighbours]
    return sorted((skill_tool(one) for one in offered), key=lambda tool: tool.name)


def skill_triggered(skill: Skill, case: EvalCase, calls: Sequence[ToolCall]) -> bool | None:
    """Whether the agent called the offered skill's tool; ``None`` for a loaded case.

    A call counts when the agent asked for it, even if the run stopped before the
    tool answered: reaching for the skill is the decision being measured.
    """
    if case.mode != "offered":
        return None
    name = offered_tool_name(skill.name)
    return any(call.name == name for call in calls)


def skills_triggered(skill: Skill, case: EvalCase, calls: Sequence[ToolCall]) -> list[str] | None:
    """The offered skills the agent called, by skill name, each once in the order first
    called; ``None`` for a loaded case. The skill itself is among them when it was called."""
    if case.mode != "offered":
        return None
    names = {offered_tool_name(one.name): one.name for one in (skill, *skill.neighbours)}
    called = (names.get(call.name) for call in calls)
    return list(dict.fromkeys(name for name in called if name is not None))
