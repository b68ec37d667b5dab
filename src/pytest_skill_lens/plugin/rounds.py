"""``--skill-lens-repeat auto:N`` while items run: the round order, the early stop, and one
xdist worker per skill.

The items of ``auto:N`` are the N repetitions ``--skill-lens-repeat N`` collects, ordered
round by round within a skill (every case's repetition r before any case's r + 1,
:meth:`.items.CaseItem.sort_key`). Before an item starts, the process that runs it reads its
skill's complete rounds (:mod:`..gate.sequential_gate`); once every question that reads the
skill is settled, the item is skipped with the reason, and counted as not spent.

A worker reads only the outcomes it made, so under xdist each skill's items go to one
worker: ``loadscope`` sends every item of one ``SKILL.md`` together (its node ids share
their part before the last ``::``). Skills still spread over the workers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..gate.sequential_gate import PlannedKey
    from .items import CaseItem
    from .state import SessionState

# xdist modes that may split one SKILL.md's items between workers.
_SPLITTING = ("load", "worksteal", "loadgroup")


def one_worker_per_skill(config: pytest.Config) -> None:
    """On the controller, before xdist makes its scheduler: a skill's items stay together."""
    if hasattr(config, "workerinput"):
        return
    if getattr(config.option, "dist", "no") in _SPLITTING:
        config.option.dist = "loadscope"


def header_line(config: pytest.Config, max_rounds: int) -> str:
    """What auto:N does, said once at the top of the run."""
    line = (
        f"skill-lens repeat auto:{max_rounds}: each skill's cases run in rounds, and stop "
        "once every gate question about the skill is decided"
    )
    if getattr(config.option, "dist", "no") == "loadscope":
        line += "; under xdist each skill's items go to one worker (--dist loadscope)"
    return line


class RoundWatch:
    """Each skill's early stop, read from the outcomes this process made."""

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self.max_rounds = state.run.settings.repeat_count
        self.gate = state.run.recorded().gate
        self._expected: set[PlannedKey] | None = None
        self._read: dict[str, tuple[int, str | None]] = {}  # skill -> (round read at, reason)

    def stop_reason(self, item: CaseItem) -> str | None:
        """Why ``item`` is not to run, or None. Every round before the item's is finished
        when this is asked (the items run, and are started ahead, in round order)."""
        skill = item.skill.name
        read = self._read.get(skill)
        if read is not None and (read[1] is not None or read[0] == item.repeat_index):
            return read[1]
        from ..gate.sequential_gate import skill_questions, stop_reason

        outcomes = [o for o in self.state.results.outcomes.values() if o.skill_name == skill]
        questions = skill_questions(
            outcomes,
            skill,
            self.gate,
            max_rounds=self.max_rounds,
            expected=self._planned(item),
        )
        reason = stop_reason(questions, self.max_rounds)
        self._read[skill] = (item.repeat_index, reason)
        return reason

    def _planned(self, item: CaseItem) -> set[PlannedKey]:
        """Every item this session will run, as (skill, case, runner, arm_key): a baseline item
        skipped for its note owes no outcome, so a round never waits for it."""
        if self._expected is None:
            from ..gate.sequential_gate import arm_key
            from .items import CaseItem

            self._expected = {
                (it.skill.name, it.case_name, it.runner_name, arm_key(it.arm, it.baseline_kind))
                for it in item.session.items
                if isinstance(it, CaseItem) and it.get_closest_marker("skip") is None
            }
        return self._expected


def round_ready(item: CaseItem, waiting: dict[str, int]) -> bool:
    """Whether ``item`` may be started ahead: no earlier round of its skill is still owed.

    ``waiting`` is each skill's lowest round among the items not yet finished, met in
    planned order so far; the caller fills it as it walks the items.
    """
    lowest = waiting.setdefault(item.skill.name, item.repeat_index)
    return item.repeat_index == lowest
