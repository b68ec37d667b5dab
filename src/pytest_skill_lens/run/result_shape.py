"""The shape a runner's RunResult must have, field by field (run/result.py ``problems``)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, JsonValue
from pydantic_core import PydanticCustomError

from ..wellformed import Count, Figure, Shape, instance_of
from .models.price_source import problem
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


def known_source(value: str) -> str:
    """A price source of a known form; any other is no statement of where a cost came from."""
    why = problem(value)
    if why is not None:
        raise PydanticCustomError("price_source", why)
    return value


PriceSource = Annotated[str, AfterValidator(known_source)]


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
    skills_triggered: list[str] | None
    cost_note: str | None
    price_source: PriceSource | None
    usage_note: str | None
    stop_note: str | None
    retry_cost_usd: Figure
    hooks: list[Annotated[_HookShape, instance_of(Hook)]]
    skill_loaded: bool | None
    load_note: str | None
