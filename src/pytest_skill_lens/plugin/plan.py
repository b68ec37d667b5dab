"""The plan, printed before the first case runs: how many runs, and what they may spend.

``Plan: up to A arm(s) x R repeat(s) x N runner(s) x C case(s) = P runs`` counts the
cases left after ``-k``/``-m``; it is an upper bound (a baseline skipped for an offered
case, or one whose previous version cannot be found, runs nothing). Under
``--skill-lens-repeat auto:N`` the repeats are the most rounds, and the line says a skill
may stop before them. The spend line
after it is what can honestly be said before spending: the ceiling, when one is set
(with the overshoot one in-flight run per process may add), and the sum of the cases'
``max_cost_usd`` budgets when every planned run has one (an estimate: a budget is
checked after a run, it does not stop it; judging comes on top).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..formatting import usd


@dataclass(frozen=True)
class PlannedRun:
    skill_name: str
    case_name: str
    max_cost_usd: float | None  # the case's budget, when it declares one
    has_rubric: bool | None = None  # None on an xdist controller, which sees node ids only


@dataclass(frozen=True)
class Plan:
    arms: int
    repeats: int
    runners: int
    cases: int  # distinct (skill, case) selected
    runs: Sequence[PlannedRun]
    max_spend_usd: float | None
    processes: int = 1  # xdist workers that may each have one run in flight
    budgets_known: bool = True  # False on an xdist controller, which sees node ids only
    auto: bool = False  # --skill-lens-repeat auto:N: repeats is the most rounds

    @property
    def upper_bound(self) -> int:
        return self.arms * self.repeats * self.runners * self.cases


def plan_of(
    runs: Iterable[PlannedRun],
    *,
    arms: int,
    repeats: int,
    runners: int,
    max_spend_usd: float | None,
    processes: int = 1,
    budgets_known: bool = True,
    auto: bool = False,
) -> Plan:
    planned = tuple(runs)
    cases = len({(run.skill_name, run.case_name) for run in planned})
    return Plan(
        arms, repeats, runners, cases, planned, max_spend_usd, processes, budgets_known, auto
    )


def runs_from_node_ids(node_ids: Iterable[str]) -> list[PlannedRun]:
    """The planned runs an xdist controller can read off node ids (``.../SKILL.md::case[...]``)."""
    runs = []
    for node_id in node_ids:
        path, sep, name = node_id.partition("::")
        if not sep or not path.endswith("SKILL.md") or "[" not in name:
            continue  # an ordinary test, or a skill with no cases
        runs.append(PlannedRun(path, name.partition("[")[0], None))
    return runs


def plan_lines(plan: Plan) -> list[str]:
    repeats = f"at most {plan.repeats} round(s)" if plan.auto else f"{plan.repeats} repeat(s)"
    head = (
        f"Plan: up to {plan.arms} arm(s) x {repeats} x {plan.runners} "
        f"runner(s) x {plan.cases} case(s) = {plan.upper_bound} runs"
    )
    if plan.auto:
        head += (
            f" (--skill-lens-repeat auto:{plan.repeats} may stop a skill early, once its "
            f"questions are decided; {plan.repeats} is the most rounds)"
        )
    return [head, spend_line(plan)]


def spend_line(plan: Plan) -> str:
    budgets = [run.max_cost_usd for run in plan.runs]
    known = [b for b in budgets if b is not None]
    parts = []
    if plan.max_spend_usd is not None:
        in_flight = "one run" if plan.processes == 1 else f"one run per worker ({plan.processes})"
        parts.append(
            f"at most the {usd(plan.max_spend_usd)} ceiling, plus what {in_flight} in flight "
            "may add"
        )
    if not plan.budgets_known:
        parts.append("the cases' max_cost_usd budgets are not summed under pytest-xdist")
    elif budgets and len(known) == len(budgets):
        parts.append(
            f"about {usd(math.fsum(known))} if every run keeps to its max_cost_usd budget "
            "(judging extra)"
        )
    elif budgets and plan.max_spend_usd is None:
        missing = len(budgets) - len(known)
        parts.append(
            f"no estimate and no ceiling: {missing} of {len(budgets)} run(s) declare no "
            "max_cost_usd budget (set --skill-lens-max-spend to bound it)"
        )
    if not parts:
        return "Spend: nothing is planned"
    return "Spend: " + "; ".join(parts)


def ungraded_line(runs: Sequence[PlannedRun], judge: str) -> str | None:
    """For a judge that grades no rubric: the cases with a ``judge:`` block, which will be
    errored after their runs; ``None`` when there is none."""
    judged = {(run.skill_name, run.case_name) for run in runs if run.has_rubric}
    return f"Judge: {ungraded_message(len(judged), judge)}" if judged else None


def ungraded_message(cases: int, judge: str) -> str:
    """What :func:`ungraded_line` says, and the counted warning the collection gives."""
    fix = 'Name a real judge with --skill-lens-judge NAME or judge = "<name>" in skill-lens.toml'
    return (
        f"{cases} case(s) carry a judge: rubric that judge {judge!r} cannot grade; each "
        f"will be errored after its run is paid. {fix}"
    )
