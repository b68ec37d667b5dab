"""What one run of a case produced, and whether a runner's result is well formed."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..wellformed import problems_of


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
    # Every offered skill the agent called (the skill's and its neighbours'), by name, in
    # the order first called; None: not an offered case, or a runner that cannot tell.
    skills_triggered: list[str] | None = None
    # Why a figure is not a measurement: a 0 here must never read as "free".
    cost_note: str | None = None
    # Where cost_usd came from, in a form of run/models/price_source.py ("list price of ...").
    price_source: str | None = None
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


def problems(result: RunResult) -> list[str]:
    """Each field of ``result`` that is malformed, as ``field: what is wrong (got value)``.

    A wrong type (text for a count, ``True`` for a token count, anything but a
    ``ToolCall`` in ``tool_calls``), a negative count or figure, a NaN or infinite
    one: nothing of it is a measurement, so the case is errored, never scored.
    """
    # Its model is built where a result is first checked: a fake run never checks one.
    from .result_shape import RunResultShape

    return problems_of(RunResultShape, result)
