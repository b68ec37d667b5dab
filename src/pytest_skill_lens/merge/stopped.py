"""A shard's ``stopped_early`` items, held to the decisions a merge makes again.

A merge decides every ``auto:N`` question again from the merged outcomes and never reads
a shard's own decisions; it does read back each shard's ``stopped_early`` items, which
count as not spent and are never missing evidence. So an item stands as stopped only if
the decisions made again stop it too: its skill's deciding question settled by a round
before the item's. Anything else (an edited shard, one another version wrote) could pass
off items it never ran as not needed, and is refused, naming the shard and the question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..gate.record import RunRecord
from ..gate.sequential_gate import deciding
from ..gate.sequential_record import Question
from .shards import MergeError, ShardReport

_FIX = (
    "merge the reports the shards wrote, unedited, with the version of pytest-skill-lens "
    "that wrote them; or run that shard again"
)


def check_stopped(reports: Sequence[ShardReport], judged: RunRecord) -> None:
    """A :class:`MergeError` for the first stopped item the merged decisions do not stop."""
    sequential = judged.sequential
    by_skill: dict[str, list[Question]] = {}
    for question in sequential.questions if sequential is not None else ():
        by_skill.setdefault(question.skill_name, []).append(question)
    for report in reports:
        for entry in report.record.stopped_early:
            why = (
                _why_not(entry, by_skill.get(str(entry.get("skill_name")), []))
                if sequential is not None
                else "the run was not under --skill-lens-repeat auto:N, so nothing stops early"
            )
            if why is not None:
                raise MergeError(
                    f"{report.source}: stopped_early item {_item(entry)} was not stopped by "
                    f"the decisions made again from the merged outcomes: {why}",
                    _FIX,
                )


def _why_not(entry: Mapping[str, object], questions: Sequence[Question]) -> str | None:
    skill = str(entry.get("skill_name"))
    if not questions:
        return f"no question reads skill '{skill}' (it has no outcome)"
    stop = deciding(questions)
    if stop is None:
        open_one = next(q for q in questions if not q.settled)
        return f"the {_named(open_one)} is still open: {open_one.text}"
    at, repeat = stop.decision.decided_at or 0, entry.get("repeat_index")
    if isinstance(repeat, int) and repeat >= at:  # repeat r is round r + 1
        return None
    return f"the {_named(stop)} was decided after round {at}, so that item's round was owed"


def _named(q: Question) -> str:
    where = f" under runner '{q.runner}'" if q.runner is not None else ""
    where += f" vs {q.arm}" if q.arm is not None else ""
    return f"{q.question} question of skill '{q.skill_name}'{where}"


def _item(entry: Mapping[str, object]) -> str:
    return (
        f"'{entry.get('skill_name')} :: {entry.get('case_name')}' ({entry.get('runner')}, "
        f"{entry.get('arm')}, repeat {entry.get('repeat_index')})"
    )
