"""What one run of a case produced, and whether a runner's result is well formed."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Annotated, Any

from pydantic import JsonValue

from ..wellformed import Count, Figure, Shape, instance_of, problems_of


@dataclass(frozen=True)
class ToolCall:
    """A tool the agent asked for, with the arguments it sent.

    Arguments a runner could not parse are kept as ``{"_raw": text}``; that key
    never satisfies a structural check.
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hook:
    """One hook a product ran (Claude Code's ``hook_response``), as it reported it.

    ``name`` is the product's spelling (``PreToolUse:Bash``: the event, then the
    matcher); ``outcome`` is ``success``, ``error`` or ``cancelled``; ``exit_code``
    is ``None`` when the hook reported none. Reported, never judged.
    """

    name: str
    event: str
    outcome: str
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""

    @property
    def failed(self) -> bool:
        return self.outcome != "success"


@dataclass
class RunResult:
    output: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    model: str = ""
    transcript: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    skill_triggered: bool | None = None
    # Under sessions: each session's own answer, in order (None for a one-task case).
    skill_triggered_by_session: list[bool | None] | None = None
    # Why a figure is not a measurement: a 0 here must never read as "free".
    cost_note: str | None = None
    usage_note: str | None = None
    stop_note: str | None = None
    retry_cost_usd: float = 0.0
    # Hooks the product ran, in order (Claude Code only; empty for every other runner).
    hooks: list[Hook] = field(default_factory=list)
    # Whether the trace shows the skill's text reached the model; None: not known.
    skill_loaded: bool | None = None
    # Why the skill did not load (or could not be told to), when the trace says so.
    load_note: str | None = None

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


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


class _RunResultShape(Shape):
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


def problems(result: RunResult) -> list[str]:
    """Each field of ``result`` that is malformed, as ``field: what is wrong (got value)``.

    A wrong type (text for a count, ``True`` for a token count, anything but a
    ``ToolCall`` in ``tool_calls``), a negative count or figure, a NaN or infinite
    one: nothing of it is a measurement, so the case is errored, never scored.
    """
    return problems_of(_RunResultShape, result)
