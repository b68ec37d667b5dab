"""From a run's outcomes to the rounds the sequential rule reads, and the gate's words for it.

Round r is repetition r (``repeat_index``) of every case the question reads. Rounds are
read in order, and the first incomplete one ends the reading: a round cut short (by the
spend ceiling, ``-x``, an interruption) is no evidence, since which of its items ran
could depend on how the others went. Within a round, outcomes are taken in the planned
order, so a run under xdist and a plain one read the same rounds.

The questions are the gate's: a skill's pass rate against its ``per_skill_min``, the
suite's against ``min_pass_rate``, and the paired delta against ``min_delta`` (per runner
when several ran, as :mod:`.delta_gate` reads it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from ..formatting import percent, signed_percent
from ..labels import Status
from ..perform.outcome import Outcome
from .delta import CaseKey, case_key, planned_order
from .sequential import DEFAULT_ALPHA, SequentialDecision, decide_delta, decide_rate

Pair = tuple[Status, Status]
T = TypeVar("T")


def rate_rounds(
    outcomes: Iterable[Outcome], *, max_rounds: int, skill: str | None = None
) -> list[list[Status]]:
    """The complete rounds of the candidate arm, of one skill or (``skill`` None) of all."""
    chosen = [
        o for o in outcomes if o.arm == "candidate" and (skill is None or o.skill_name == skill)
    ]
    return _rounds(chosen, max_rounds, lambda group: [group[0].status])


def delta_rounds(
    outcomes: Iterable[Outcome], *, max_rounds: int, runner: str | None = None
) -> list[list[Pair]]:
    """The complete rounds of (candidate, baseline) pairs, of one runner or of all, against
    one baseline arm: outcomes of several are a :class:`ValueError`."""
    chosen = [o for o in outcomes if runner is None or o.runner == runner]

    def pair(group: Sequence[Outcome]) -> list[Pair]:
        if len({o.baseline_kind for o in group if o.arm == "baseline"}) > 1:
            # Keyed by arm, one of several baselines would silently stand for them all.
            raise ValueError(
                "delta_rounds pairs the candidate with one baseline arm: give it one arm's "
                "outcomes (sequential_gate.skill_questions asks each arm on its own)"
            )
        arms = {o.arm: o.status for o in group}
        return [(arms["candidate"], arms["baseline"])]

    return _rounds(chosen, max_rounds, pair, arms=2)


def skill_decisions(
    outcomes: Sequence[Outcome],
    per_skill_min: dict[str, float],
    *,
    max_rounds: int,
    alpha: float = DEFAULT_ALPHA,
) -> dict[str, SequentialDecision]:
    """Each ``per_skill_min`` skill's question, in the mapping's order."""
    return {
        skill: decide_rate(
            rate_rounds(outcomes, max_rounds=max_rounds, skill=skill),
            minimum,
            max_rounds=max_rounds,
            alpha=alpha,
        )
        for skill, minimum in per_skill_min.items()
    }


def delta_decisions(
    outcomes: Sequence[Outcome], min_delta: float, *, max_rounds: int, alpha: float = DEFAULT_ALPHA
) -> dict[str, SequentialDecision]:
    """The delta's question per runner (the key ``""`` when one runner ran)."""
    runners = list(dict.fromkeys(o.runner for o in sorted(outcomes, key=planned_order)))
    keys = runners if len(runners) > 1 else [""]
    return {
        key: decide_delta(
            delta_rounds(outcomes, max_rounds=max_rounds, runner=key or None),
            min_delta,
            max_rounds=max_rounds,
            alpha=alpha,
        )
        for key in keys
    }


def decision_text(what: str, decision: SequentialDecision, *, delta: bool = False) -> str:
    """The gate's words for one question: a reason when decided fail, else a note.

    ``what`` names it: ``skill 'greeting' pass rate``, ``pass-rate delta``.
    """
    show: Callable[..., str] = signed_percent if delta else percent
    bar = show(decision.threshold)
    so_far = "" if decision.estimate is None else f"; {show(decision.estimate)} so far"
    how = f"betting test, alpha {decision.alpha:g}{so_far}"
    at = f"decided after round {decision.decided_at} ({how})"
    if decision.verdict == "fail":
        return f"{what} is below the required {bar}: {at}"
    if decision.verdict == "pass":
        return f"{what} is at least {bar}: {at}"
    if decision.verdict == "undecided":
        return (
            f"{what} against {bar} undecided after {decision.rounds} round(s) ({how}); "
            f"the gate read the fixed-sample figure"
        )
    return f"{what} against {bar} not decided yet after {decision.rounds} round(s) ({how})"


def _rounds(
    outcomes: Sequence[Outcome],
    max_rounds: int,
    entry: Callable[[Sequence[Outcome]], list[T]],
    *,
    arms: int = 1,
) -> list[list[T]]:
    by_round: dict[int, dict[CaseKey, list[Outcome]]] = {}
    for outcome in sorted(outcomes, key=planned_order):
        cell = by_round.setdefault(outcome.repeat_index, {})
        cell.setdefault(case_key(outcome), []).append(outcome)
    cases = list(dict.fromkeys(key for cells in by_round.values() for key in cells))
    rounds: list[list[T]] = []
    for index in range(max_rounds):
        cells = by_round.get(index, {})
        if not cases or any(len({o.arm for o in cells.get(key, [])}) < arms for key in cases):
            break  # the first incomplete round ends the evidence
        rounds.append([value for key in cases for value in entry(cells[key])])
    return rounds
