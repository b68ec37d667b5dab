"""``per_skill_min_confidence``: each named skill's minimum, held by its interval too.

A skill's pass rate is the per_skill_min figure (candidate outcomes pooled, an errored
one counting as not passed). With a confidence level, the lower end of its Wilson
interval at that level must meet the minimum as well, the case being the unit of
evidence as everywhere (each (case, runner) enters as its rate over its repetitions,
errored counted as not passed). These decisions are one family for
:mod:`.multiplicity`; a skill below its minimum as a figure, or with no outcome, fails on
``per_skill_min``'s own reason and is not in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial

from ..formatting import percent
from ..perform.outcome import Outcome
from .delta import CaseKey, case_key, planned_order, rate_of
from .figures import pass_rate
from .intervals import case_rate_interval
from .multiplicity import Method, Multiplicity, RawDecision, correct, score_test_p_value
from .verdict import falls_short


def skill_multiplicity(
    outcomes: Iterable[Outcome],
    per_skill_min: Mapping[str, float],
    level: float | None,
    method: Method,
) -> Multiplicity | None:
    """The per-skill minimums' interval decisions, raw and under ``method``."""
    if level is None:
        return None
    rates = _case_rates(outcomes)
    tests = []
    for skill, minimum in per_skill_min.items():
        cases = rates.get(skill)
        if not cases:
            continue
        pooled = pass_rate(o for group in cases.values() for o in group)
        case_rates = [rate_of(group) for group in cases.values()]
        tests.append(
            RawDecision(
                subject=skill,
                estimate=pooled,
                bar=minimum,
                p_value=score_test_p_value(sum(case_rates), len(case_rates), minimum),
                holds_at=partial(_holds, pooled, case_rates, minimum),
            )
        )
    return correct("per_skill_min_confidence", tests, level, method)


def skill_interval_reasons(family: Multiplicity | None, outcomes: Iterable[Outcome]) -> list[str]:
    """A skill that meets its minimum as a figure but not by its interval at the level."""
    if family is None:
        return []
    rates = _case_rates(outcomes)
    reasons = []
    for decision in family.decisions:
        if decision.raw_holds or falls_short(decision.estimate, decision.bar):
            continue  # held, or per_skill_min's own reason says it already
        case_rates = [rate_of(group) for group in rates[decision.subject].values()]
        interval = case_rate_interval(case_rates, family.level)
        assert interval is not None  # a skill in the family has a case
        reasons.append(
            f"skill '{decision.subject}' pass rate {percent(decision.estimate)} is not shown "
            f"at {family.level * 100:g}% confidence: its interval ({interval.method}, "
            f"{interval.n} case(s)) starts at {percent(interval.low, decision.bar)}, below "
            f"its required {percent(decision.bar, interval.low)}"
        )
    return reasons


def _holds(pooled: float, case_rates: Sequence[float], minimum: float, level: float) -> bool:
    if falls_short(pooled, minimum):
        return False
    interval = case_rate_interval(case_rates, level)
    return interval is not None and not falls_short(interval.low, minimum)


def _case_rates(outcomes: Iterable[Outcome]) -> dict[str, dict[CaseKey, list[Outcome]]]:
    """Candidate outcomes by skill, then by (skill, case, runner), in planned order."""
    grouped: dict[str, dict[CaseKey, list[Outcome]]] = {}
    for outcome in sorted(outcomes, key=planned_order):
        if outcome.arm == "candidate":
            cases = grouped.setdefault(outcome.skill_name, {})
            cases.setdefault(case_key(outcome), []).append(outcome)
    return grouped
