"""Shard reports into one record, judged again exactly as one session's end judges it.

Refused, so a partial or mixed merge never passes for a whole one: reports that are not
every shard of one run (:mod:`.consistent`), and a merge whose figures add up past what a
float holds.

The merged outcomes are ordered by skill, case, arm, runner and repeat, as a session
plans them: each ``--skill-lens-shard`` report lists every skill's selected cases in
eval-file order, every shard's included (``run.case_order``). Reports split some other
way carry no such list, and a skill's cases then come by name. Every count, figure and
verdict is independent of that order (the delta's sums are exactly rounded).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..gate.delta import BaselineNote
from ..gate.judging import judge_record
from ..gate.record import GateResult, RunRecord, arm_kinds
from ..perform.outcome import Outcome
from ..report.json_read import ReportError, finite_totals
from .consistent import one_run
from .shards import MergeError, ShardReport, identity, keys

__all__ = ["MergeError", "ShardReport", "judge", "merge_records"]


def merge_records(reports: Sequence[ShardReport]) -> RunRecord:
    """One record from every shard's; :class:`MergeError` when they do not make one run."""
    one_run(reports)
    first = reports[0].record
    records = [report.record for report in reports]
    ranks = {name: rank for rank, name in enumerate(reports[0].settings.runners)}
    # The candidate first, then each baseline arm in the order asked (as a session's).
    arms = {"candidate": 0, "baseline": 1}
    arms |= {
        f"baseline {kind}": 1 + rank for rank, kind in enumerate(arm_kinds(first.baseline_kind))
    }
    places = {
        (skill, case): place
        for skill, cases in first.case_order.items()
        for place, case in enumerate(cases)
    }
    entries: list[tuple[tuple[Any, ...], Outcome | dict[str, object]]] = [
        *((_planned(keys(o), ranks, places, arms), o) for r in records for o in r.outcomes),
        *((_planned(e, ranks, places, arms), e) for r in records for e in r.not_run),
    ]
    entries.sort(key=lambda pair: pair[0])
    outcomes: list[Outcome] = []
    not_run: list[dict[str, object]] = []
    for order, (_, entry) in enumerate(entries):  # one planned order over both, as a session's
        if isinstance(entry, Outcome):
            outcomes.append(replace(entry, order=order))
        else:
            not_run.append({**entry, "order": order})
    selected = {o.skill_name for o in outcomes} | {str(e.get("skill_name")) for e in not_run}

    def unselected(read: Callable[[RunRecord], list[str]]) -> list[str]:
        # A skill one shard saw no case of may have run on another: only -k/-m's count.
        return sorted({name for r in records for name in read(r)} - selected)

    merged = RunRecord(
        outcomes=outcomes,
        skipped_skills=sorted({name for r in records for name in r.skipped_skills}),
        tag_filtered_skills=unselected(lambda r: r.tag_filtered_skills),
        case_filtered_skills=unselected(lambda r: r.case_filtered_skills),
        deselected_skills=unselected(lambda r: r.deselected_skills),
        skills_found=max(r.skills_found for r in records),
        not_run=not_run,
        full_output=any(r.full_output for r in records),
        scripts=_scripts(reports),
        script_notes=_by_key((n for r in records for n in r.script_notes), "skill_name"),
        baseline_kind=first.baseline_kind,
        baseline_notes=_notes(n for r in records for n in r.baseline_notes),
        baseline_sources=_by_key((s for r in records for s in r.baseline_sources), "skill_name"),
        run=replace(reports[0].settings, shard=None),
        # Every shard collects every skill: each warning is in every report, listed once.
        skill_md_warnings=_once(w for r in records for w in r.skill_md_warnings),
        changed=first.changed,  # every shard's is the same (merge/consistent.py)
        stopped_early=[e for r in records for e in r.stopped_early],  # decisions: judge()
    )
    try:  # each report's sums were finite; all of them together must be too
        finite_totals(merged, "the merged outcomes")
    except ReportError as exc:
        raise MergeError(
            exc.message, "find the shard whose outcomes hold an impossible figure"
        ) from exc
    return merged


def _once(entries: Iterable[dict[str, object]]) -> list[dict[str, object]]:
    """``entries`` without repeats, in the order first met."""
    seen: dict[tuple[object, ...], dict[str, object]] = {}
    for entry in entries:
        seen.setdefault(tuple(entry.values()), entry)
    return list(seen.values())


def judge(record: RunRecord) -> tuple[RunRecord, GateResult]:
    """The record with its spend ceiling and delta, and the gate: the session end's steps."""
    assert record.run is not None
    return judge_record(record, record.run.gate)


def _planned(
    entry: Mapping[str, Any],
    ranks: Mapping[str, int],
    places: Mapping[tuple[str, str], int],
    arms: Mapping[str, int],
) -> tuple[Any, ...]:
    """Where an outcome or a not-run entry goes: skill, case (its place in the eval files,
    else its name), arm, runner, repeat."""
    skill, case, runner, arm, repeat = identity(entry)
    place = places.get((skill, case))
    arm_rank = arms.get(arm, 1)
    return (
        skill,
        place is None,
        place or 0,
        case,
        arm_rank,
        ranks.get(runner, len(ranks)),
        runner,
        repeat,
    )


def _scripts(reports: Sequence[ShardReport]) -> dict[str, Any] | None:
    """The shards' sandbox facts: one block when they agree, else the first with each one's."""
    blocks = {r.source: r.record.scripts for r in reports if r.record.scripts is not None}
    if not blocks:
        return None
    first = next(iter(blocks.values()))
    assert first is not None
    if all(block == first for block in blocks.values()):
        return dict(first)
    # Machines can differ (bubblewrap on one runner image, not on another): say so.
    return {**first, "by_shard": blocks}


def _by_key(entries: Iterable[Mapping[str, Any]], key: str) -> list[Any]:
    """One entry per ``key`` value (every shard collects every skill), sorted by it."""
    found = {str(entry.get(key)): dict(entry) for entry in entries}
    return [found[name] for name in sorted(found)]


def _notes(notes: Iterable[BaselineNote]) -> list[BaselineNote]:
    """Skill notes before case notes, by name: the order a session reports them in."""
    found = {(note.skill_name, note.case_name, note.arm): note for note in notes}
    return [found[key] for key in sorted(found)]
