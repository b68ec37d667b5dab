"""Shards of one run selected the same suite: the same cases, items and skill content.

Each ``--skill-lens-shard`` report says what the whole run selected, every shard's part
included: each skill's cases in eval-file order (``run.case_order``) and, as digests
(``run.selection``), every selected item (skill, case, runner, arm, repeat) and each
skill's content (its SKILL.md and its selected cases' definitions). A shard run with
another ``-k``/``-m``, on another commit or on a path that holds no skill says
something else, and the merge refuses it, naming its file: its part of the suite would
otherwise be judged by the other shards' outcomes alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from .shards import MergeError, ShardReport

SAME_COMMIT = "run every shard on the same commit, with the same flags and skill-lens.toml"


def same_selection(reports: Sequence[ShardReport]) -> None:
    """Under ``--skill-lens-shard`` (every report a shard's): each selected alike."""
    for report in reports:
        if report.record.selection is None:
            raise MergeError(
                f"{report.source}: shard {report.settings.shard} says nothing of what the "
                "run selected (run.selection)",
                "re-run the shard with this version of pytest-skill-lens and --skill-lens-json",
            )
    _none_empty(reports)
    first = reports[0]
    for report in reports[1:]:
        _same_cases(report, first)
        _same_items(report, first)
        _same_content(report, first)


def _none_empty(reports: Sequence[ShardReport]) -> None:
    """A shard that selected no case, beside one that did, ran with another selection."""
    full = next((r for r in reports if r.record.case_order), None)
    empty = next((r for r in reports if not r.record.case_order), None)
    if full is None or empty is None:
        return  # every shard selected the same nothing: the gate says no case ran
    cases = sum(len(names) for names in full.record.case_order.values())
    raise MergeError(
        f"{empty.source} selected no case, where {full.source} selected {cases} case(s) of "
        f"{len(full.record.case_order)} skill(s): a -k or -m that matched nothing there?",
        SAME_COMMIT,
    )


def _same_cases(report: ShardReport, first: ShardReport) -> None:
    """The same cases, in the same order, whichever of them each shard ran."""
    mine, theirs = report.record.case_order, first.record.case_order
    if mine == theirs:
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
        SAME_COMMIT,
    )


def _case_at(cases: Sequence[str], index: int) -> str:
    return repr(cases[index]) if index < len(cases) else "missing"


def _same_items(report: ShardReport, first: ShardReport) -> None:
    """The same items of those cases: a -k or -m can pick runners, arms or repeats."""
    mine, theirs = report.record.selection, first.record.selection
    assert mine is not None and theirs is not None  # checked by same_selection
    if (mine.items, mine.digest) != (theirs.items, theirs.digest):
        raise MergeError(
            f"{report.source} selected other items than {first.source} of the same cases "
            f"({mine.items} against {theirs.items} item(s)): another -k or -m, or other "
            "runners, arms or repeats",
            SAME_COMMIT,
        )


def _same_content(report: ShardReport, first: ShardReport) -> None:
    """The same version of every skill: its SKILL.md and its selected cases' definitions."""
    mine, theirs = report.record.selection, first.record.selection
    assert mine is not None and theirs is not None
    for skill in sorted({*mine.skills, *theirs.skills}):
        if mine.skills.get(skill) != theirs.skills.get(skill):
            raise MergeError(
                f"{report.source}: skill {skill!r} (its SKILL.md or the definitions of its "
                f"selected cases) differ from {first.source}'s: another commit?",
                SAME_COMMIT,
            )
