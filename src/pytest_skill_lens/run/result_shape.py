"""The shape a runner's RunResult must have, field by field (run/result.py ``problems``)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import JsonValue

from ..wellformed import Count, Figure, Shape, instance_of
from .result import Hook, ToolCall


class _ToolCallShape(Shape):
    name: str
    # JSON data only: arguments are reported and sent between xdist processes as JSON.
    arguments: dict[str, JsonValue]


class _HookShape(Shape):
    name: str
    event: str
    outcome: str
    exit_code: int | None
    stdout: str
    stderr: str


class RunResultShape(Shape):
    """Every field a runner fills, in RunResult's order, so problems come in that order."""

    output: str
    tool_calls: list[Annotated[_ToolCallShape, instance_of(ToolCall)]]
    input_tokens: Count
    output_tokens: Count
    cost_usd: Figure
    latency_ms: Figure
    model: str
    transcript: list[dict[str, Any]]  # never reported, so its entries are not inspected
    error: str | None
    skill_triggered: bool | None
    skill_triggered_by_session: list[bool | None] | None
    cost_note: str | None
    usage_note: str | None
    stop_note: str | None
    retry_cost_usd: Figure
    hooks: list[Annotated[_HookShape, instance_of(Hook)]]
    skill_loaded: bool | None
    load_note: str | None
