"""The portability matrix: each case's verdict under every runner named, candidate arm only.

A cell is one (skill, case, runner): its candidate repetitions. Its verdict reads them
as the delta reads an arm: errored repetitions are left out, and so are failures whose
every failing check could not be evaluated (a runner that reports no tokens cannot fail
a token budget). Of what is left, all passed is ``passed``, none ``failed``, some
``mixed``. A cell with nothing left says why: ``errored``, ``not_evaluated``,
``not_run`` (an item of it was cut short or refused, as the delta's "cut short"), or
``not_selected`` (no item of it was selected). Such a cell is never a pass or a fail.

A runner's pass rate is pooled over its scored repetitions, and its interval is Wilson's
over its cases, each entering as its own rate (``intervals.case_rate_interval``), as the
delta's figures are. Two runners are compared over the cases both scored, with
Newcombe's paired interval. Every pair is compared up to :data:`ALL_PAIRS_UP_TO`
runners (the five agent products make ten pairs); past that, each runner against the
first named, since 21 pairs of seven runners no longer read as a summary.

Nothing here depends on the order outcomes arrive in: they are sorted into the planned
order first, as the delta's are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from ..perform.outcome import Outcome
from .delta import planned_order
from .intervals import (
    Confidence,
    Interval,
    case_rate_interval,
    confidence_label,
    paired_delta_interval,
)

Verdict = Literal[
    "passed", "failed", "mixed", "errored", "not_evaluated", "not_run", "not_selected"
]
Pairing = Literal["every pair", "against the first"]
SCORED: tuple[Verdict, ...] = ("passed", "failed", "mixed")
# Also RunnerRate's counts of cells without a verdict, by these names.
UNSCORED: tuple[Verdict, ...] = ("errored", "not_evaluated", "not_run", "not_selected")
ALL_PAIRS_UP_TO = 5


def not_evaluated(outcome: Outcome) -> bool:
    """A failed outcome whose every failing check is one that could not be evaluated."""
    if outcome.status != "failed":
        return False
    failing = [score for score in outcome.scores if not score.passed]
    if not failing:
        return False
    for score in failing:
        bad = [check for check in score.checks if not check.passed]
        if score.errored or not bad:  # a verdict with no check behind it is a real one
            return False
        # By the check's flag, never its words: a judge's evidence may say anything.
        if any(check.evaluated for check in bad):
            return False
    return True


@dataclass(frozen=True)
class Cell:
    """One case under one runner: its candidate repetitions, counted by how each ended."""

    runner: str
    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0
    errored: int = 0
    not_run: int = 0

    @property
    def judged(self) -> int:
        """Repetitions with a verdict on the skill: passed or (measurably) failed."""
        return self.passed + self.failed

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.judged if self.judged and not self.not_run else None

    @property
    def verdict(self) -> Verdict:
        if self.not_run:
            return "not_run"
        if self.judged:
            if self.passed == self.judged:
                return "passed"
            return "failed" if not self.passed else "mixed"
        if self.not_evaluated:
            return "not_evaluated"
        return "errored" if self.errored else "not_selected"

    @property
    def scored(self) -> bool:
        return self.verdict in SCORED


@dataclass(frozen=True)
class CaseRow:
    """One case across the runners, in the order they were named."""

    skill_name: str
    case_name: str
    cells: tuple[Cell, ...]

    @property
    def passed_in(self) -> tuple[str, ...]:
        return tuple(c.runner for c in self.cells if c.verdict == "passed")

    @property
    def failed_in(self) -> tuple[str, ...]:
        return tuple(c.runner for c in self.cells if c.verdict == "failed")

    @property
    def unscored(self) -> tuple[Cell, ...]:
        return tuple(c for c in self.cells if not c.scored)

    @property
    def divergent(self) -> bool:
        """Passed in one runner and failed in another (a mixed cell is neither)."""
        return bool(self.passed_in and self.failed_in)


@dataclass(frozen=True)
class RunnerRate:
    """One runner's pass rate over its scored cells, and how many cells had no verdict."""

    runner: str
    cases: int  # cells with a verdict
    passed: int  # repetitions, over those cells
    judged: int
    pass_rate: float | None
    interval: Interval | None
    confidence: Confidence
    errored: int = 0  # cells, by why they have no verdict
    not_evaluated: int = 0
    not_run: int = 0
    not_selected: int = 0


@dataclass(frozen=True)
class PairDifference:
    """``first`` − ``second`` over the cases both scored (``first`` was named earlier)."""

    first: str
    second: str
    cases: int
    pass_rate_first: float | None
    pass_rate_second: float | None
    difference: float | None
    interval: Interval | None
    confidence: Confidence
    first_only: int  # cases passed under first and failed under second
    second_only: int


@dataclass(frozen=True)
class Matrix:
    runners: tuple[RunnerRate, ...]
    pairs: tuple[PairDifference, ...]
    pairing: Pairing
    cases: tuple[CaseRow, ...]

    @property
    def divergent(self) -> tuple[CaseRow, ...]:
        return tuple(row for row in self.cases if row.divergent)

    @property
    def not_comparable(self) -> tuple[CaseRow, ...]:
        """Cases some runner has no verdict for (a divergent one may be listed here too)."""
        return tuple(row for row in self.cases if row.unscored)


def build_matrix(
    outcomes: Iterable[Outcome],
    *,
    runners: Sequence[str] = (),
    not_run: Iterable[Mapping[str, object]] = (),
) -> Matrix | None:
    """The matrix over the candidate arm; None unless two runners or more produced an outcome.

    ``runners`` is the order they were named in; one it does not name comes where first
    seen. ``not_run`` holds the items that never produced an outcome.
    """
    candidates = [o for o in outcomes if o.arm == "candidate"]
    if len({o.runner for o in candidates}) < 2:  # the common run: one runner, no cost
        return None
    ordered = sorted(candidates, key=planned_order)
    seen = list(dict.fromkeys(o.runner for o in ordered))
    names = [r for r in runners if r in seen] + [r for r in seen if r not in runners]
    # Per case, per runner: passed, failed, not evaluated, errored, not run (Cell's order).
    counts: dict[tuple[str, str], dict[str, list[int]]] = {}
    places: dict[tuple[str, str], int] = {}
    for outcome in ordered:
        key = (outcome.skill_name, outcome.case_name)
        places.setdefault(key, outcome.order)
        tally = counts.setdefault(key, {}).setdefault(outcome.runner, [0] * 5)
        tally[_column(outcome)] += 1
    for item in not_run:
        if item.get("arm", "candidate") != "candidate" or item.get("runner") not in names:
            continue
        key = (str(item.get("skill_name")), str(item.get("case_name")))
        order = item.get("order")  # a case that never ran at all goes to its planned place
        place = order if isinstance(order, int) else len(places) + 1_000_000
        places[key] = min(places.get(key, place), place)
        counts.setdefault(key, {}).setdefault(str(item.get("runner")), [0] * 5)[4] += 1
    cases = tuple(
        CaseRow(skill, case, tuple(Cell(name, *row.get(name, [0] * 5)) for name in names))
        for (skill, case), row in sorted(counts.items(), key=lambda entry: places[entry[0]])
    )
    pairing: Pairing = "every pair" if len(names) <= ALL_PAIRS_UP_TO else "against the first"
    chosen = (
        list(combinations(range(len(names)), 2))
        if pairing == "every pair"
        else [(0, i) for i in range(1, len(names))]
    )
    return Matrix(
        runners=tuple(_rate(name, [row.cells[i] for row in cases]) for i, name in enumerate(names)),
        pairs=tuple(_pair(cases, first, second) for first, second in chosen),
        pairing=pairing,
        cases=cases,
    )


def _column(outcome: Outcome) -> int:
    """Which of a cell's counts ``outcome`` adds to."""
    if outcome.status == "passed":
        return 0
    if outcome.status == "errored":
        return 3
    return 2 if not_evaluated(outcome) else 1


def _rate(runner: str, cells: Sequence[Cell]) -> RunnerRate:
    scored = [cell for cell in cells if cell.scored]
    passed = sum(cell.passed for cell in scored)
    judged = sum(cell.judged for cell in scored)
    interval = case_rate_interval([_rate_of(cell) for cell in scored])
    verdicts = [cell.verdict for cell in cells]
    return RunnerRate(
        runner=runner,
        cases=len(scored),
        passed=passed,
        judged=judged,
        pass_rate=passed / judged if judged else None,
        interval=interval,
        confidence=confidence_label(interval),
        errored=verdicts.count("errored"),
        not_evaluated=verdicts.count("not_evaluated"),
        not_run=verdicts.count("not_run"),
        not_selected=verdicts.count("not_selected"),
    )


def _pair(cases: Sequence[CaseRow], first: int, second: int) -> PairDifference:
    both = [
        (row.cells[first], row.cells[second])
        for row in cases
        if row.cells[first].scored and row.cells[second].scored
    ]
    interval = paired_delta_interval([(_rate_of(a), _rate_of(b)) for a, b in both])
    rate_first = _pooled([a for a, _ in both])
    rate_second = _pooled([b for _, b in both])
    return PairDifference(
        first=cases[0].cells[first].runner,
        second=cases[0].cells[second].runner,
        cases=len(both),
        pass_rate_first=rate_first,
        pass_rate_second=rate_second,
        difference=None if rate_first is None or rate_second is None else rate_first - rate_second,
        interval=interval,
        confidence=confidence_label(interval),
        first_only=sum(a.verdict == "passed" and b.verdict == "failed" for a, b in both),
        second_only=sum(a.verdict == "failed" and b.verdict == "passed" for a, b in both),
    )


def _rate_of(cell: Cell) -> float:
    rate = cell.pass_rate
    assert rate is not None  # only scored cells are rated
    return rate


def _pooled(cells: Sequence[Cell]) -> float | None:
    judged = sum(cell.judged for cell in cells)
    return sum(cell.passed for cell in cells) / judged if judged else None
