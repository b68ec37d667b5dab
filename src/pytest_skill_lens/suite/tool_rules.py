"""Rules for a case's ``tools:``: names, schemas and ``returns:`` lookups."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..matching import contains
from .errors import AuthoringError, combined
from .mistakes import gather
from .model import EvalCase, ReturnRule, ToolSpec
from .quoting import shown
from .schemas import schema_problem

TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
WORKSPACE_TOOLS = ("list_files", "read_file", "write_file")
BUNDLE_TOOLS = ("list_skill_files", "read_skill_file", "run_script")
BUILTIN_TOOLS = WORKSPACE_TOOLS + BUNDLE_TOOLS

Fail = Callable[[str, str, str | None], AuthoringError]


def offered_tool_name(skill_name: str) -> str:
    """The skill's name as a tool name providers accept (``order-support`` -> ``order_support``)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", skill_name)
    if name[:1].isdigit():
        name = "skill_" + name
    return name[:64]


def raw_returns_errors(raw_tools: Any, fail: Fail) -> list[AuthoringError]:
    """Shape errors pydantic would report obscurely: an empty or a mixed ``returns:`` list
    (each tool's own)."""
    if not isinstance(raw_tools, list):
        return []
    errors: list[AuthoringError] = []
    for i, tool in enumerate(raw_tools):
        returns = tool.get("returns") if isinstance(tool, dict) else None
        if not isinstance(returns, list):
            continue
        field = f"tools[{i}].returns"
        of = _of(tool.get("name"))
        if not returns:
            errors.append(
                fail(
                    f"the returns:{of} is an empty list",
                    field,
                    "returns: '' is how an empty reply is spelled",
                )
            )
        elif len({isinstance(entry, dict) for entry in returns}) > 1:
            errors.append(
                fail(
                    f"the returns:{of} mixes strings (a sequence) with when:/value: entries "
                    "(a lookup)",
                    field,
                    "use one shape: a list of strings, or a list of when:/value: mappings",
                )
            )
    return errors


def _of(name: object) -> str:
    """`` of tool 'lookup'``: the tool a message is about, when it has a name to quote."""
    return f" of tool {shown(name)}" if isinstance(name, str) and name else ""


def check_tools(
    tools: list[ToolSpec], *, workspace: bool, offered_name: str | None, fail: Fail
) -> None:
    errors = tool_errors(tools, workspace=workspace, offered_name=offered_name, fail=fail)
    if errors:
        raise combined(errors)


def tool_errors(
    tools: list[ToolSpec], *, workspace: bool, offered_name: str | None, fail: Fail
) -> list[AuthoringError]:
    """Each tool's first mistake: every tool is checked on its own."""
    errors: list[AuthoringError] = []
    seen: dict[str, int] = {}
    for i, tool in enumerate(tools):
        with gather(errors):
            _check_tool(tool, i, seen, workspace=workspace, offered_name=offered_name, fail=fail)
        seen.setdefault(tool.name, i)
    return errors


def _check_tool(
    tool: ToolSpec,
    i: int,
    seen: dict[str, int],
    *,
    workspace: bool,
    offered_name: str | None,
    fail: Fail,
) -> None:
    field = f"tools[{i}]"
    if not TOOL_NAME.match(tool.name):
        raise fail(
            f"tool name {shown(tool.name)} is not accepted by providers (^[A-Za-z0-9_-]{{1,64}}$)",
            f"{field}.name",
            "use ASCII letters, digits, '_' and '-', at most 64 characters",
        )
    if tool.name in seen:
        raise fail(
            f"tool {shown(tool.name)} is declared twice (also tools[{seen[tool.name]}])",
            f"{field}.name",
            "declare each tool once; rename one if they are different tools",
        )
    if workspace and tool.name in BUILTIN_TOOLS:
        raise fail(
            f"tool name {shown(tool.name)} is reserved for a built-in tool in a workspace case",
            f"{field}.name",
            "rename the tool; " + ", ".join(BUILTIN_TOOLS) + " are reserved",
        )
    if offered_name is not None and tool.name == offered_name:
        raise fail(
            f"tool name {shown(tool.name)} collides with the offered skill's own tool",
            f"{field}.name",
            "rename the tool; under mode: offered the skill is offered as a tool of that name",
        )
    _check_schema(tool, field, fail)
    if isinstance(tool.returns, list) and tool.returns and isinstance(tool.returns[0], ReturnRule):
        _check_lookup(tool, [r for r in tool.returns if isinstance(r, ReturnRule)], field, fail)


def _check_schema(tool: ToolSpec, field: str, fail: Fail) -> None:
    of = _of(tool.name)
    if tool.parameters is not None and tool.input_schema is not None:
        raise fail(
            f"tool {shown(tool.name)} declares both parameters: and input_schema:",
            f"{field}.input_schema",
            "keep parameters: for a hand-written tool, or input_schema: to match a real server",
        )
    if tool.input_schema is None:
        return
    problem = schema_problem(tool.input_schema)
    if problem is not None:
        raise fail(
            f"the input_schema{of} is not a valid JSON Schema: {problem}",
            f"{field}.input_schema",
            "fix the schema so it validates against JSON Schema draft 2020-12",
        )
    if tool.input_schema.get("type") != "object":
        declared = tool.input_schema.get("type")
        got = f"its type is {shown(declared)}" if declared is not None else "it declares no type"
        raise fail(
            f"the input_schema{of} must have top-level type: object (every provider requires "
            f"it); {got}",
            f"{field}.input_schema",
            "add type: object and list the arguments under properties:",
        )


def _carriable_keys(tool: ToolSpec) -> set[str] | None:
    """The argument names a call can carry, or ``None`` when the schema is open."""
    if tool.input_schema is None:
        return set(tool.parameters or {})
    schema = tool.input_schema
    if schema.get("additionalProperties") is False:
        properties = schema.get("properties")
        return set(properties) if isinstance(properties, dict) else set()
    return None


def _check_lookup(tool: ToolSpec, rules: list[ReturnRule], field: str, fail: Fail) -> None:
    carriable = _carriable_keys(tool)
    for j, rule in enumerate(rules):
        where = f"{field}.returns[{j}].when"
        if rule.when is not None:
            if not rule.when:
                raise fail(
                    f"when: {{}} matches every call of tool {shown(tool.name)}",
                    where,
                    "drop the when: key to declare a fallback",
                )
            if carriable is not None:
                for key in rule.when:
                    if key not in carriable:
                        allowed = ", ".join(sorted(carriable)) or "no arguments at all"
                        raise fail(
                            f"when: keys on {shown(key)}, which {tool.name} can never be called "
                            f"with (its schema allows: {allowed})",
                            where,
                            "key the lookup on a declared argument",
                        )
        for k, earlier in enumerate(rules[:j]):
            if earlier.when is None:
                raise fail(
                    f"this entry of tool {shown(tool.name)} can never answer: the fallback at "
                    f"returns[{k}] answers every call first",
                    f"{field}.returns[{j}]",
                    "move the fallback (the entry with no when:) to the end",
                )
            if rule.when is not None and contains(earlier.when, rule.when):
                raise fail(
                    f"this entry of tool {shown(tool.name)} can never answer: returns[{k}] "
                    f"(when: {shown(earlier.when)}) already matches every call it would",
                    f"{field}.returns[{j}]",
                    "put the narrower when: first, or merge the two entries",
                )


def undeclared_tools(case: EvalCase) -> list[tuple[str, str]]:
    """Every trajectory name the case does not declare, as (field, name).

    Runners that can list every tool the agent has (the framework runners and
    ``fake``) refuse such a name: a check on a tool the agent was never offered
    could never fire. The six built-ins count as declared in a workspace case.
    """
    trajectory = case.trajectory
    if trajectory is None:
        return []
    declared = {tool.name for tool in case.tools}
    if case.workspace is not None:
        declared.update(BUILTIN_TOOLS)
    named: list[tuple[str, str]] = [
        *((f"trajectory.called[{i}]", n) for i, n in enumerate(trajectory.called)),
        *((f"trajectory.forbidden[{i}]", n) for i, n in enumerate(trajectory.forbidden)),
        *((f"trajectory.order[{i}]", n) for i, n in enumerate(trajectory.order)),
        *((f"trajectory.call_args[{i}].tool", c.tool) for i, c in enumerate(trajectory.call_args)),
    ]
    return [(field, name) for field, name in named if name not in declared]
