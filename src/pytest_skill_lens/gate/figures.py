"""The candidate arm's figures: what the gate judges by and every report shows.

They are computed once per record, on its first read of :attr:`RunRecord.figures`
(the gate's verdict, or an aborted run's first report), and the JSON report, Markdown,
the page and the terminal summary all read that one computation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..perform.outcome import Outcome
from .confusion import Confusion, confusion


@dataclass(frozen=True)
class RunFigures:
    """Counts and rates of the candidate arm; baseline outcomes never count here."""

    total: int
    passed: int
    failed: int
    errored: int
    not_run: int  # candidate items that never produced an outcome
    pass_rate: float  # 0.0 when no case ran (reports say "no pass rate")
    pass_rate_by_skill: Mapping[str, float]  # all runners and repeats pooled, first seen first
    triggering: Confusion | None  # offered cases' triggering (None: no run checked it)


def run_figures(outcomes: Sequence[Outcome], not_run: Iterable[Mapping[str, object]]) -> RunFigures:
    """A record's figures from its outcomes (both arms) and its not-run items."""
    candidates = [o for o in outcomes if o.arm == "candidate"]
    statuses = [o.status for o in candidates]
    return RunFigures(
        total=len(statuses),
        passed=statuses.count("passed"),
        failed=statuses.count("failed"),
        errored=statuses.count("errored"),
        not_run=sum(item.get("arm", "candidate") == "candidate" for item in not_run),
        pass_rate=pass_rate(candidates),
        pass_rate_by_skill=pass_rate_by_skill(candidates),
        triggering=confusion(outcomes),
    )


def pass_rate(outcomes: Iterable[Outcome]) -> float:
    """Passed over all given outcomes, errored included; 0.0 for none.

    Errored outcomes stay in the denominator on purpose: with
    ``fail_on_error = false`` an errored case still lowers the rate.
    """
    statuses = [o.status for o in outcomes]
    return statuses.count("passed") / len(statuses) if statuses else 0.0


def pass_rate_by_skill(outcomes: Iterable[Outcome]) -> dict[str, float]:
    """Candidate pass rate per skill (all runners and repeats pooled), in first-seen order."""
    grouped: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        if outcome.arm == "candidate":
            grouped.setdefault(outcome.skill_name, []).append(outcome)
    return {skill: pass_rate(group) for skill, group in grouped.items()}
