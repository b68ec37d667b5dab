"""One finished item, as it travels (also between xdist processes) and is reported."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, is_dataclass
from operator import attrgetter
from typing import Any

from ..labels import Arm, Status
from ..run.models.price_source import of_run
from ..run.result import RunResult, ToolCall
from ..score.check import Score


@dataclass(frozen=True)
class CaseIdentity:
    """Which run of which case: what the item knows before it acts.

    Each field is the :class:`Outcome` field of the same name.
    """

    skill_name: str
    case_name: str
    runner: str
    arm: Arm = "candidate"
    repeat_index: int = 0
    nodeid: str = ""
    # Which baseline arm ("none", "placebo", "previous"); None for the candidate.
    baseline_kind: str | None = None
    order: int = 0  # position in the planned order (skill, case, arm, runner, repeat)
    # The item's cassette file under --skill-lens-record (docs/replay.md); None: off.
    cassette: str | None = None
    # trajectory.skill_triggered of an offered case, for the confusion matrix (gate/confusion.py).
    trigger_expected: bool | None = None
    # The reuse store under --skill-lens-reuse (docs/reuse.md); None: off. Not an outcome's.
    reuse: str | None = None


@dataclass(slots=True)  # kept for every item to the end of the session: no __dict__
class Outcome:
    skill_name: str
    case_name: str
    runner: str
    status: Status
    arm: Arm = "candidate"
    repeat_index: int = 0
    baseline_kind: str | None = None  # which baseline arm; None for the candidate
    scores: list[Score] = field(default_factory=list)
    output: str = ""
    error: str | None = None
    tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    cost_usd: float = 0.0
    model: str = ""
    cost_note: str | None = None
    price_source: str | None = None  # where cost_usd came from (run/models/price_source.py)
    usage_note: str | None = None
    stop_note: str | None = None
    retry_cost_usd: float = 0.0
    skill_triggered: bool | None = None
    skill_triggered_by_session: list[bool | None] | None = None  # under sessions: only
    skills_triggered: list[str] | None = None  # offered: every skill called (neighbours too)
    # What an offered case expected of the skill (its skill_triggered check); None: no check.
    trigger_expected: bool | None = None
    skill_loaded: bool | None = None  # a product's trace showed the skill reached the model
    load_note: str | None = None  # why it did not, when the trace says
    # Tuples: read only, and most outcomes share the one empty tuple (no list each).
    tool_calls: tuple[ToolCall, ...] = ()
    hooks: tuple[dict[str, Any], ...] = ()
    workspace: str | None = None
    nodeid: str = ""
    order: int = 0  # position in the planned order (skill, case, arm, runner, repeat)
    # Cassettes (docs/replay.md): the file; whether every model call of the outcome was
    # answered from it (its figures are then the recording's, and nothing was sent);
    # how many were; what they cost when recorded (never new spend); the oldest date.
    cassette: str | None = None
    replayed: bool = False
    replayed_calls: int = 0
    replayed_usd: float = 0.0
    recorded_at: str | None = None
    cassette_note: str | None = None  # why the cassette was not written
    # What a recording run did with the file: "written", "kept" (replayed, unchanged)
    # or "not_written" (cassette_note says why); None when nothing was to be written.
    cassette_action: str | None = None
    # Reused by content from the store (docs/reuse.md): the commit and time that recorded
    # it and the item that did ({commit, recorded_at, item, entry}); None: not reused.
    reused_from: dict[str, Any] | None = None
    reuse_note: str | None = None  # why a reusing run's item was not reused (what changed)

    @property
    def judge_cost_usd(self) -> float:
        return sum(s.cost_usd for s in self.scores)

    @property
    def ran_without_skill(self) -> bool:
        """A loaded case whose trace shows the skill never reached the model: a run that
        says nothing about the skill. An offered case that left the skill alone is not
        one: its triggering (``skill_triggered``, set for offered cases only) is its
        measured verdict."""
        return self.skill_loaded is False and self.skill_triggered is None

    @property
    def unpriced(self) -> bool:
        return bool(self.cost_note) or any(s.cost_note for s in self.scores)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Outcome:
        values = dict(data)
        values["scores"] = [Score.from_dict(s) for s in data.get("scores", [])]
        values["tool_calls"] = tuple(ToolCall(**c) for c in data.get("tool_calls", []))
        values["hooks"] = tuple(data.get("hooks", ()))
        return cls(**values)


def tool_calls_data(calls: tuple[ToolCall, ...]) -> list[dict[str, Any]]:
    """An outcome's tool calls as plain data (what :meth:`Outcome.from_dict` reads)."""
    return [{"name": c.name, "arguments": c.arguments} for c in calls]


_OUTCOME_FIELDS = fields(Outcome)
# What of a run an Outcome does not keep: the transcript is never reported.
UNRECORDED_RUN_FIELDS = frozenset({"transcript"})
# What of an identity an Outcome does not keep: where the item may be reused from.
UNRECORDED_IDENTITY_FIELDS = frozenset({"reuse"})
# Copied by name, so no field is copied by hand: a RunResult or CaseIdentity field
# that Outcome lacks (and is not declared unrecorded) fails every outcome built.
_FROM_IDENTITY = tuple(
    f.name for f in fields(CaseIdentity) if f.name not in UNRECORDED_IDENTITY_FIELDS
)
# Made into tuples of their own below: read only, and never shared with the run.
_RUN_SEQUENCES = ("tool_calls", "hooks")
_FROM_RUN = (
    *(
        f.name
        for f in fields(RunResult)
        if f.name not in UNRECORDED_RUN_FIELDS and f.name not in _RUN_SEQUENCES
    ),
    "tokens",  # a property of the run, a figure of the outcome
)
# Each read in one call: the figures of every item are copied.
_identity_values = attrgetter(*_FROM_IDENTITY)
_run_values = attrgetter(*_FROM_RUN)


def outcome_of(
    identity: CaseIdentity,
    status: Status,
    scores: list[Score],
    result: RunResult,
    workspace: str | None = None,
) -> Outcome:
    """The recorded outcome of one run: its identity, its verdict and the run's figures."""
    values: dict[str, Any] = dict(zip(_FROM_IDENTITY, _identity_values(identity), strict=True))
    values.update(zip(_FROM_RUN, _run_values(result), strict=True))
    by_session = result.skill_triggered_by_session
    if by_session is not None:
        values["skill_triggered_by_session"] = list(by_session)  # never shared
    if result.skills_triggered is not None:
        values["skills_triggered"] = list(result.skills_triggered)  # never shared
    # Said of every cost, even one a runner handed over without a word (price_source.of_run).
    values["price_source"] = of_run(
        result.price_source, result.cost_usd, result.cost_note, f"runner {identity.runner}"
    )
    hooks = result.hooks
    return Outcome(
        **values,
        status=status,
        scores=scores,
        workspace=workspace,
        tool_calls=tuple(result.tool_calls),
        # Hooks travel as plain data (JSON reports, xdist), each as the product reported it.
        hooks=tuple(asdict(h) if is_dataclass(h) else dict(h) for h in hooks) if hooks else (),
    )


def errored_outcome(identity: CaseIdentity, error: str) -> Outcome:
    """The outcome of a run that could not act at all (say, a fixture failed)."""
    return outcome_of(identity, "errored", [], RunResult(error=error))
