"""The comparison's gate reasons: min_delta, its confidence, unresolvable baselines, the case floor.

The wiring adds these after evaluate_gate's own reasons, in this order: the min_delta
rules (per runner when several ran), the unresolvable baselines, then the case floor.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..formatting import percent, signed_percent
from ..perform.outcome import Outcome
from .delta import (
    BaselineNote,
    CaseKey,
    Delta,
    DeltaFigures,
    case_key,
    planned_order,
    rate_of,
)
from .verdict import falls_short


def comparison_gate_reasons(
    outcomes: Iterable[Outcome],
    delta: Delta | None,
    notes: Sequence[BaselineNote] = (),
    *,
    min_delta: float | None = None,
    min_delta_confidence: float | None = None,
    min_case_pass_rate: float | None = None,
    delta_decided: frozenset[str] = frozenset(),
    arm: str = "",
) -> list[str]:
    """Why the comparison fails the gate; empty when it holds or nothing was asked.

    ``min_delta_confidence`` (a level such as 0.95) asks that the lower bound of the
    delta's interval at that level clears ``min_delta`` too, so "is the gain real?"
    can be required; it means nothing without ``min_delta``. ``delta_decided`` names the
    runners whose delta ``auto:N``'s betting test decided pass: their figure is not held
    to the bar again (its interval still is, under ``min_delta_confidence``). ``arm``
    names the baseline arm in every reason when several ran side by side (each is judged
    on its own).
    """
    if min_delta_confidence is not None and min_delta is None:
        raise ValueError("min_delta_confidence needs min_delta")
    reasons: list[str] = []
    if min_delta is not None:
        reasons += _delta_reasons(delta, min_delta, min_delta_confidence, delta_decided, arm)
        baseline = f"{arm} baseline" if arm else "baseline"
        reasons += [
            f"skill '{note.skill_name}' has no resolvable {baseline}: {note.reason}"
            for note in notes
            if note.kind == "unavailable"
        ]
    if min_case_pass_rate is not None:
        reasons += _case_floor_reasons(outcomes, min_case_pass_rate)
    return reasons


def _delta_reasons(
    delta: Delta | None,
    minimum: float,
    level: float | None,
    decided: frozenset[str],
    arm: str = "",
) -> list[str]:
    bar = signed_percent(minimum)
    baseline = f"{arm} baseline" if arm else "baseline"
    pass_rate_delta = f"pass-rate delta vs {arm}" if arm else "pass-rate delta"
    if delta is None:
        return [f"no {baseline} arm ran, so the {pass_rate_delta} cannot meet the required {bar}"]
    if not delta.comparable_cases:
        return [
            f"no case had a comparable {baseline}, so the {pass_rate_delta} cannot meet the "
            f"required {bar}"
        ]
    if not delta.per_runner:
        one = bool(decided)  # one runner: its delta is the run's
        return _figure_reasons(delta, pass_rate_delta, minimum, level, one)
    reasons: list[str] = []
    for runner in delta.runners:
        if not runner.comparable_cases:
            reasons.append(
                f"no case under runner '{runner.runner}' had a comparable {baseline}, "
                f"so its {pass_rate_delta} cannot meet the required {bar}"
            )
        else:
            what = f"{pass_rate_delta} under runner '{runner.runner}'"
            reasons += _figure_reasons(runner, what, minimum, level, runner.runner in decided)
    return reasons


def _figure_reasons(
    figures: DeltaFigures, what: str, minimum: float, level: float | None, decided: bool = False
) -> list[str]:
    delta = figures.pass_rate_delta
    assert delta is not None  # a runner with a comparable case has a delta
    if not decided and falls_short(delta, minimum):
        shown = signed_percent(delta, minimum)
        return [f"{what} {shown} is below the required {signed_percent(minimum, delta)}"]
    interval = figures.delta_interval(level) if level is not None else None
    if level is None or interval is None or not falls_short(interval.low, minimum):
        return []
    low = signed_percent(interval.low, minimum)
    return [
        f"{what} {signed_percent(delta)} is not shown at {level * 100:g}% confidence: "
        f"its interval ({interval.method}) starts at {low}, below the required "
        f"{signed_percent(minimum, interval.low)}"
    ]


def _case_floor_reasons(outcomes: Iterable[Outcome], floor: float) -> list[str]:
    """Candidate cases below ``floor`` across their repetitions, errored counted as not passed."""
    groups: dict[CaseKey, list[Outcome]] = {}
    for outcome in sorted(outcomes, key=planned_order):
        if outcome.arm == "candidate":
            groups.setdefault(case_key(outcome), []).append(outcome)
    reasons = []
    for (skill, case, runner), group in groups.items():
        rate = rate_of(group)
        if falls_short(rate, floor):
            passed = sum(o.status == "passed" for o in group)
            reasons.append(
                f"case '{skill} :: {case}' ({runner}) passed {passed} of {len(group)} "
                f"repetition(s), {percent(rate, floor)}, below the required per-case "
                f"{percent(floor, rate)}"
            )
    return reasons
