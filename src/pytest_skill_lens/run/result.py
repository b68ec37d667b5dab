"""What one run of a case produced."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """A tool the agent asked for, with the arguments it sent.

    Arguments a runner could not parse are kept as ``{"_raw": text}``; that key
    never satisfies a structural check.
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


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

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
