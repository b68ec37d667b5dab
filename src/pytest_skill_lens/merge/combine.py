"""Shard reports into one record, judged again exactly as one session's end judges it.

Refused, so a partial or mixed merge never passes for a whole one: an aborted shard,
shards whose gate settings, baseline kind, runners or repeats differ, a shard given
twice or missing (under ``--skill-lens-shard``), and one item in two reports.

The merged outcomes are ordered by skill, case, arm, runner and repeat, as a session
plans them: each ``--skill-lens-shard`` report lists every skill's selected cases in
eval-file order, every shard's included (``run.case_order``). Reports split some other
way carry no such list, and a skill's cases then come by name. Every count, figure and
verdict is independent of that order (the delta's sums are exactly rounded).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any

from ..gate.delta import BaselineNote
from ..gate.judging import judge_record
from ..gate.record import GateResult, RunRecord, RunSettings
from ..perform.outcome import Outcome

SAME_FLAGS = "run every shard with the same flags and skill-lens.toml"
ItemKey = tuple[str, str, str, str, int]  # skill, case, runner, arm, repeat


class MergeError(Exception):
    """The reports cannot be merged: what is wrong, and the fix."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


@dataclass(frozen=True)
class ShardReport:
    source: str  # the file, as named on the command line
    record: RunRecord

    @property
    def settings(self) -> RunSettings:
        assert self.record.run is not None  # checked by _usable
        return self.record.run


def merge_records(reports: Sequence[ShardReport]) -> RunRecord:
    """One record from every shard's; :class:`MergeError` when they do not make one run."""
    if not reports:
        raise MergeError("no shard report was given", "name every shard's JSON report")
    for report in reports:
        _usable(report)
    _same_run(reports)
    _whole_set(reports)
    _no_item_twice(reports)
    first = reports[0].record
    records = [report.record for report in reports]
    ranks = {name: rank for rank, name in enumerate(reports[0].settings.runners)}
    places = {
        (skill, case): place
        for skill, cases in first.case_order.items()
        for place, case in enumerate(cases)
    }
    entries: list[tuple[tuple[Any, ...], Outcome | dict[str, object]]] = [
        *((_planned(_keys(o), ranks, places), o) for r in records for o in r.outcomes),
        *((_planned(e, ranks, places), e) for r in records for e in r.not_run),
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

    return RunRecord(
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
    )


def judge(record: RunRecord) -> tuple[RunRecord, GateResult]:
    """The record with its spend ceiling and delta, and the gate: the session end's steps."""
    assert record.run is not None
    return judge_record(record, record.run.gate)


def _usable(report: ShardReport) -> None:
    record = report.record
    if record.aborted is not None:
        raise MergeError(
            f"{report.source}: that run was aborted before its gate ({record.aborted})",
            "fix what stopped it and run that shard again: a merge without it judges part "
            "of the suite",
        )
    if record.run is None:
        raise MergeError(f"{report.source}: the report holds no run settings", SAME_FLAGS)


def _same_run(reports: Sequence[ShardReport]) -> None:
    first = reports[0]
    facets: list[tuple[str, Callable[[ShardReport], object]]] = [
        ("gate settings", lambda r: r.settings.gate),
        ("baseline kind", lambda r: r.record.baseline_kind or "(none)"),
        ("runners", lambda r: ", ".join(r.settings.runners)),
        ("repeat count", lambda r: r.settings.repeat),
    ]
    for report in reports[1:]:
        for what, read in facets:
            if read(report) != read(first):
                raise MergeError(
                    f"{report.source}: its {what} differ from {first.source}'s "
                    f"({_difference(read(report), read(first))})",
                    SAME_FLAGS,
                )
        _same_cases(report, first)


def _same_cases(report: ShardReport, first: ShardReport) -> None:
    """Shards of one run collected the same cases, in the same order, whichever they ran."""
    mine, theirs = report.record.case_order, first.record.case_order
    if mine == theirs or not mine or not theirs:  # a report of no shard: _whole_set says so
        return
    skill = next(s for s in sorted({*mine, *theirs}) if mine.get(s) != theirs.get(s))
    ours, others = mine.get(skill, []), theirs.get(skill, [])
    pairs = enumerate(zip(ours, others, strict=False))  # the shorter list ends it
    at = next((i for i, (a, b) in pairs if a != b), None)
    at = min(len(ours), len(others)) if at is None else at
    said = (
        f"case {at + 1} is {_case_at(ours, at)} against {_case_at(others, at)}; "
        f"{len(ours)} case(s) against {len(others)}"
    )
    raise MergeError(
        f"{report.source}: the cases it collected for skill {skill!r} differ from "
        f"{first.source}'s ({said})",
        "run every shard on the same commit, with the same flags and skill-lens.toml",
    )


def _case_at(cases: Sequence[str], index: int) -> str:
    return repr(cases[index]) if index < len(cases) else "missing"


def _whole_set(reports: Sequence[ShardReport]) -> None:
    """Under --skill-lens-shard, every shard 1..N exactly once."""
    sharded = [r for r in reports if r.settings.shard is not None]
    if not sharded:
        return  # split some other way (pytest-split, pytest-shard): nothing to count
    if len(sharded) != len(reports):
        plain = next(r for r in reports if r.settings.shard is None)
        raise MergeError(
            f"{plain.source} is not a shard's report, and {sharded[0].source} is shard "
            f"{sharded[0].settings.shard}",
            "merge the reports of one run split with --skill-lens-shard K/N",
        )
    seen: dict[int, ShardReport] = {}
    counts = set()
    for report in sharded:
        index, count = _parse(report)
        counts.add(count)
        if index in seen:
            raise MergeError(
                f"{seen[index].source} and {report.source} are both shard {index}/{count}",
                "name each shard's report once",
            )
        seen[index] = report
    if len(counts) > 1:
        raise MergeError(
            f"the reports split the suite in different numbers of shards: "
            f"{', '.join(f'{r.source} is {r.settings.shard}' for r in sharded)}",
            "merge the shards of one run, all with the same N",
        )
    (count,) = counts
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in seen]
    if missing:
        raise MergeError(
            f"shard(s) {', '.join(missing)} missing: a merge without them judges part of the suite",
            "pass every shard's report; have each shard job upload its report even when its "
            "own gate fails (if: always())",
        )


def _parse(report: ShardReport) -> tuple[int, int]:
    found = re.fullmatch(r"([0-9]+)/([0-9]+)", report.settings.shard or "")
    if found is None or not 1 <= int(found.group(1)) <= int(found.group(2)):
        raise MergeError(
            f"{report.source}: run.shard {report.settings.shard!r} is not K/N",
            "re-run that shard with --skill-lens-shard K/N",
        )
    return int(found.group(1)), int(found.group(2))


def _no_item_twice(reports: Sequence[ShardReport]) -> None:
    where: dict[ItemKey, str] = {}
    for report in reports:
        record = report.record
        keys = [_identity(_keys(o)) for o in record.outcomes]
        keys += [_identity(e) for e in record.not_run]
        for key in keys:
            if key in where:
                skill, case, runner, arm, repeat = key
                raise MergeError(
                    f"{where[key]} and {report.source} both hold {skill} :: {case} ({runner}, "
                    f"{arm}, repeat {repeat + 1})",
                    "the shards must run the same command on the same commit, each with its "
                    "own --skill-lens-shard K/N",
                )
            where[key] = report.source


def _keys(outcome: Outcome) -> dict[str, Any]:
    """The fields of ``outcome`` that name its item, as a not-run entry holds them."""
    return {name: getattr(outcome, name) for name in _IDENTITY_FIELDS}


_IDENTITY_FIELDS = ("skill_name", "case_name", "runner", "arm", "repeat_index")


def _identity(entry: Mapping[str, Any]) -> ItemKey:
    repeat = entry.get("repeat_index")
    return (
        str(entry.get("skill_name") or ""),
        str(entry.get("case_name") or ""),
        str(entry.get("runner") or ""),
        str(entry.get("arm") or "candidate"),
        repeat if isinstance(repeat, int) else 0,
    )


def _planned(
    entry: Mapping[str, Any], ranks: Mapping[str, int], places: Mapping[tuple[str, str], int]
) -> tuple[Any, ...]:
    """Where an outcome or a not-run entry goes: skill, case (its place in the eval files,
    else its name), arm, runner, repeat."""
    skill, case, runner, arm, repeat = _identity(entry)
    place = places.get((skill, case))
    arm_rank = 0 if arm == "candidate" else 1
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
    found = {(note.skill_name, note.case_name): note for note in notes}
    return [found[key] for key in sorted(found)]


def _difference(mine: object, theirs: object) -> str:
    """``mine against theirs``; for settings, the first one that differs, by name."""
    if is_dataclass(mine) and is_dataclass(theirs):
        for f in fields(mine):
            if getattr(mine, f.name) != getattr(theirs, f.name):
                return f"{f.name} {getattr(mine, f.name)!r} against {getattr(theirs, f.name)!r}"
    return f"{mine} against {theirs}"
