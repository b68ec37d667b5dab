"""Triggering over the suite: the skill a case was written for x the skill the agent took.

Every candidate run of a ``mode: offered`` case that checks ``skill_triggered`` and was
measured (passed or failed, with ``skills_triggered`` told) is one count. Its row is the
skill the case was written for when it expects the skill (``skill_triggered: true``), or
``none`` for a negative control; its column is the skill the run took: the intended one
when the agent called it at all (the case passes on it, whatever else was called), else
the first offered skill called, or ``none`` when it called none. Every other skill the
run called is counted beside it (``also``): a neighbour called beside the intended skill
is that neighbour's false positive. Errored and not-evaluated runs say nothing about the
choice and are left out.

Per skill, precision is how many of the runs that called it (took it, or called it
beside the skill taken) were written for it, and recall how many of the runs written
for it took it, each with its Wilson interval
(runs as units: repeats of one case are not independent, so the interval is optimistic
under ``--skill-lens-repeat``). The pairs are two skills that take each other's cases,
ranked by how many runs went the wrong way between them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..perform.outcome import Outcome
from .intervals import Interval, wilson_interval

NONE = "none"  # the row of a negative control, the column of a run that took no skill


@dataclass(frozen=True)
class SkillRates:
    """One skill's precision and recall; ``None`` where nothing could be counted."""

    skill: str
    taken: int  # runs that took it (its column)
    written: int  # runs written for it (its row)
    hits: int  # runs written for it that took it
    precision: Interval | None  # hits over taken + also
    recall: Interval | None
    also: int = 0  # runs that called it beside the skill they took: false positives


@dataclass(frozen=True)
class ConfusedPair:
    """Two skills that take each other's cases: ``first`` is the one taken from more."""

    first: str
    second: str
    first_taken_by_second: int  # runs written for first that took second
    second_taken_by_first: int

    @property
    def count(self) -> int:
        return self.first_taken_by_second + self.second_taken_by_first


@dataclass(frozen=True)
class Confusion:
    labels: tuple[str, ...]  # the skills in name order, then "none"
    cells: dict[tuple[str, str], int]  # (written for, took) -> runs; absent cells are 0
    rates: tuple[SkillRates, ...]
    pairs: tuple[ConfusedPair, ...]
    # (written for, called) -> runs that called a skill beside the one they took.
    also: dict[tuple[str, str], int] = field(default_factory=dict)

    def count(self, written_for: str, took: str) -> int:
        return self.cells.get((written_for, took), 0)

    @property
    def runs(self) -> int:
        return sum(self.cells.values())


def counted(outcome: Outcome) -> tuple[str, str] | None:
    """The cell a run falls in, or ``None`` for one that says nothing about the choice."""
    called = _called(outcome)
    if called is None:
        return None
    written_for = outcome.skill_name if outcome.trigger_expected else NONE
    if outcome.trigger_expected and outcome.skill_name in called:
        return written_for, outcome.skill_name  # the case passes on it: the skill taken
    return written_for, called[0] if called else NONE


def called_beside(outcome: Outcome) -> tuple[str, ...]:
    """The skills a counted run called beside the one it took, in the order called."""
    cell, called = counted(outcome), _called(outcome)
    if cell is None or called is None:
        return ()
    return tuple(dict.fromkeys(name for name in called if name != cell[1]))


def _called(outcome: Outcome) -> list[str] | None:
    if outcome.arm != "candidate" or outcome.trigger_expected is None:
        return None
    if outcome.status not in ("passed", "failed"):
        return None
    return outcome.skills_triggered


def confusion(outcomes: Iterable[Outcome]) -> Confusion | None:
    """The suite's confusion matrix; ``None`` when no run was counted."""
    cells: Counter[tuple[str, str]] = Counter()
    also: Counter[tuple[str, str]] = Counter()
    for outcome in outcomes:
        cell = counted(outcome)
        if cell is not None:
            cells[cell] += 1
            also.update((cell[0], name) for name in called_beside(outcome))
    if not cells:
        return None
    skills = sorted({name for cell in (*cells, *also) for name in cell if name != NONE})
    labels = (*skills, NONE)
    rates = tuple(_rates(skill, cells, also) for skill in skills)
    return Confusion(labels, dict(cells), rates, _pairs(skills, cells), dict(also))


def _rates(
    skill: str, cells: Counter[tuple[str, str]], also: Counter[tuple[str, str]]
) -> SkillRates:
    hits = cells[skill, skill]
    taken = sum(n for (_, took), n in cells.items() if took == skill)
    beside = sum(n for (_, name), n in also.items() if name == skill)
    written = sum(n for (row, _), n in cells.items() if row == skill)
    precision = wilson_interval(hits, taken + beside) if taken + beside else None
    recall = wilson_interval(hits, written) if written else None
    return SkillRates(skill, taken, written, hits, precision, recall, beside)


def _pairs(skills: Sequence[str], cells: Counter[tuple[str, str]]) -> tuple[ConfusedPair, ...]:
    found: list[ConfusedPair] = []
    for i, a in enumerate(skills):
        for b in skills[i + 1 :]:
            a_to_b, b_to_a = cells[a, b], cells[b, a]
            if a_to_b or b_to_a:
                first, second = (a, b) if a_to_b >= b_to_a else (b, a)
                found.append(ConfusedPair(first, second, max(a_to_b, b_to_a), min(a_to_b, b_to_a)))
    # Most runs lost between them first; ties in name order, so the list is stable.
    return tuple(sorted(found, key=lambda p: (-p.count, p.first, p.second)))
