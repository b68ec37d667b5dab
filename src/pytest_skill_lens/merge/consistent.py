"""Whether shard reports are the reports of one run: else a :class:`MergeError`.

Refused, so a partial or mixed merge never passes for a whole one: an aborted shard;
reports whose gate settings, baseline kind, runners, repeats or other settings differ
(each setting by its digest, gate/fingerprint.py), or that found a different number of
skills (one run on another path); a plain report among shards, a shard given twice or
missing; shards that selected other cases or items, or another version of a skill
(:mod:`.selection`); and one item in two reports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import fields, is_dataclass

from ..gate.fingerprint import ItemIdentity
from .selection import same_selection
from .shards import SAME_FLAGS, MergeError, ShardReport, identity, keys


def one_run(reports: Sequence[ShardReport]) -> None:
    """Nothing when ``reports`` are every shard of one run (or reports of one run split
    some other way); the first thing that says otherwise, as a :class:`MergeError`."""
    if not reports:
        raise MergeError("no shard report was given", "name every shard's JSON report")
    for report in reports:
        _usable(report)
    _same_run(reports)
    _whole_set(reports)
    if reports[0].settings.shard is not None:
        same_selection(reports)
    _no_item_twice(reports)


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
        ("changed skills", lambda r: r.record.changed),  # --skill-lens-changed's selection
    ]
    for report in reports[1:]:
        for what, read in facets:
            if read(report) != read(first):
                raise MergeError(
                    f"{report.source}: its {what} differ from {first.source}'s "
                    f"({_difference(read(report), read(first))})",
                    SAME_FLAGS,
                )
        _same_settings(report, first)
    _same_skills_found(reports)


def _same_settings(report: ShardReport, first: ShardReport) -> None:
    """Every other setting, by its digest: the value may be a secret, the name is not."""
    mine, theirs = report.settings.fingerprint, first.settings.fingerprint
    differ = sorted(name for name in {*mine, *theirs} if mine.get(name) != theirs.get(name))
    if differ:
        raise MergeError(
            f"{report.source}: its setting(s) {', '.join(differ)} differ from {first.source}'s",
            SAME_FLAGS,
        )


def _same_skills_found(reports: Sequence[ShardReport]) -> None:
    """Every report of one run found the same skills, whichever cases it ran: a shard that
    found none (or fewer) was run on another path, and its cases ran nowhere."""
    most = max(reports, key=lambda r: r.record.skills_found)
    for report in reports:
        found = report.record.skills_found
        if found != most.record.skills_found:
            said = "no skill" if found == 0 else f"{found} skill(s)"
            raise MergeError(
                f"{report.source} found {said}, where {most.source} found "
                f"{most.record.skills_found}: was it run on another path?",
                "run every shard with the same skill paths, on the same commit, and merge "
                "their reports again",
            )


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
    where: dict[ItemIdentity, str] = {}
    for report in reports:
        record = report.record
        found = [identity(keys(o)) for o in record.outcomes]
        found += [identity(e) for e in record.not_run]
        for key in found:
            if key in where:
                skill, case, runner, arm, repeat = key
                raise MergeError(
                    f"{where[key]} and {report.source} both hold {skill} :: {case} ({runner}, "
                    f"{arm}, repeat {repeat + 1})",
                    "the shards must run the same command on the same commit, each with its "
                    "own --skill-lens-shard K/N",
                )
            where[key] = report.source


def _difference(mine: object, theirs: object) -> str:
    """``mine against theirs``; for settings, the first one that differs, by name."""
    if is_dataclass(mine) and is_dataclass(theirs):
        for f in fields(mine):
            if getattr(mine, f.name) != getattr(theirs, f.name):
                return f"{f.name} {getattr(mine, f.name)!r} against {getattr(theirs, f.name)!r}"
    return f"{mine} against {theirs}"
