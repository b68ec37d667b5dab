"""``merge`` of ``--skill-lens-repeat auto:N`` shards: the decisions are made again from the
merged outcomes, and a shard whose ``stopped_early`` items those decisions would not have
stopped is refused (exit 2 naming the shard and the question), so an edited shard, or
one another version wrote, cannot pass off items it never ran as "not needed".

The suite is test_sequential_e2e.py's: ``sure`` is decided pass after round 3 of 6,
``broken`` fail after round 2, ``coin`` is undecided and runs all six rounds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun, run_merge
from test_sequential_e2e import write_suite

SHARDS = ("shard-1.json", "shard-2.json")


def shards(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    write_suite(pytester.path)
    for k, name in enumerate(SHARDS, start=1):
        lens = LensRun(runner="fake", json=name, options=("-p", "no:cacheprovider"))
        lens(pytester, "--skill-lens-shard", f"{k}/2")
    return {name: json.loads((pytester.path / name).read_text()) for name in SHARDS}


def holding(reports: dict[str, dict[str, Any]], skill: str) -> str:
    (name,) = [
        n for n, r in reports.items() if any(o["skill_name"] == skill for o in r["outcomes"])
    ]
    return name


def pass_off(report: dict[str, Any], skill: str, repeat: int) -> None:
    """Edit ``report``: its ``skill`` outcomes of round ``repeat`` on become stopped early."""
    kept, moved = [], []
    for o in report["outcomes"]:
        (moved if o["skill_name"] == skill and o["repeat_index"] >= repeat else kept).append(o)
    report["outcomes"] = kept
    report["stopped_early"] += [
        {
            **{k: o[k] for k in ("skill_name", "case_name", "runner", "arm", "repeat_index")},
            "nodeid": o["nodeid"],
            "reason": "stopped early: decided pass after round 2 of 6 (betting test, alpha 0.05)",
        }
        for o in moved
    ]


def write(path: Path, report: dict[str, Any]) -> None:
    path.write_text(json.dumps(report), encoding="utf-8")


def test_the_untouched_shards_merge(pytester: pytest.Pytester) -> None:
    shards(pytester)
    merged = run_merge(pytester, *SHARDS)
    assert merged.returncode == 1, merged.stdout + merged.stderr  # broken fails the gate
    assert "28 run(s) not spent: stopped early" in merged.stdout


@pytest.mark.parametrize(
    ("skill", "repeat", "question"),
    [
        # coin is undecided after six rounds: after four, still open.
        ("coin", 4, "per_skill_min question of skill 'coin'"),
        # sure needs three rounds; two do not decide it, so round 3 was owed.
        ("sure", 2, "per_skill_min question of skill 'sure'"),
    ],
)
def test_a_shard_passing_off_unrun_items_as_not_needed_is_refused(
    pytester: pytest.Pytester, skill: str, repeat: int, question: str
) -> None:
    reports = shards(pytester)
    name = holding(reports, skill)
    pass_off(reports[name], skill, repeat)
    write(pytester.path / name, reports[name])
    merged = run_merge(pytester, *SHARDS, "--json", "merged.json")
    assert merged.returncode == 2, merged.stdout + merged.stderr
    assert name in merged.stderr
    assert f"{skill} :: " in merged.stderr and question in merged.stderr
    assert "not stopped by the decisions made again from the merged outcomes" in merged.stderr
    assert not (pytester.path / "merged.json").exists()


def test_a_stopped_item_in_a_fixed_count_run_is_refused(pytester: pytest.Pytester) -> None:
    reports = shards(pytester)
    for report in reports.values():  # as if the shards ran --skill-lens-repeat 6
        report["run"]["repeat_auto"] = False
        report["sequential"] = None
        report["stopped_early"] = []
    name = holding(reports, "coin")
    pass_off(reports[name], "coin", 5)
    for n, report in reports.items():
        write(pytester.path / n, report)
    merged = run_merge(pytester, *SHARDS)
    assert merged.returncode == 2, merged.stdout + merged.stderr
    assert name in merged.stderr and "not under --skill-lens-repeat auto" in merged.stderr


def test_a_stopped_item_before_its_skill_s_deciding_round_is_refused(
    pytester: pytest.Pytester,
) -> None:
    # sure is decided after round 3: an item of round 1 (repeat 0) was owed, whatever
    # the shard says of it.
    reports = shards(pytester)
    name = holding(reports, "sure")
    (model,) = [e for e in reports[name]["stopped_early"] if e["skill_name"] == "sure"][:1]
    reports[name]["stopped_early"].append({**model, "case_name": "ghost", "repeat_index": 0})
    write(pytester.path / name, reports[name])
    merged = run_merge(pytester, *SHARDS)
    assert merged.returncode == 2, merged.stdout + merged.stderr
    assert f"{name}: stopped_early item 'sure :: ghost' (fake, candidate, repeat 0)" in (
        merged.stderr
    )
    assert "the per_skill_min question of skill 'sure' was decided after round 3" in (merged.stderr)
