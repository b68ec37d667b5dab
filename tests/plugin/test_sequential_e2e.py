"""``--skill-lens-repeat auto:N`` end to end: rounds, early stops, the gate and the reports.

Three skills under the fake runner, whose verdict is a function of the case alone, so every
round of a skill repeats the last and the sequential rule's decision is known by hand
(``tests/unit/test_sequential.py`` holds the rule's arithmetic):

* ``sure``: four cases that always pass, bar 70%: decided ``pass`` after round 3 of 6;
* ``broken``: four cases that always fail, bar 50%: decided ``fail`` after round 2 of 6;
* ``coin``: one case that passes and one that fails, bar 50%: undecided at round 6, so
  the gate reads the fixed-sample figure (50%, which meets the bar).

So ``sure`` runs 12 items and is not spent on 12, ``broken`` runs 8 and is not spent on 16,
``coin`` runs all 12. The same numbers must come out in one process, under xdist and under
the concurrency pool.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun, Report, run_merge
from skillfactory import make_skill, scripted_runner_conftest, write_file

PASSES = {"assertions": [{"kind": "contains", "value": "handled"}]}
FAILS = {"assertions": [{"kind": "contains", "value": "never said"}]}
TOML = """\
repeat = "auto:6"
min_pass_rate = 0.0
[per_skill_min]
sure = 0.7
broken = 0.5
coin = 0.5
"""
LENS = LensRun(runner="fake", json="report.json", markdown="report.md")
METHOD = "(betting test, alpha 0.05)"


def write_suite(root: Path, toml: str = TOML) -> None:
    skills = root / "skills"
    make_skill(skills, "sure", [{"name": f"s{i}", "task": "t", **PASSES} for i in range(4)])
    make_skill(skills, "broken", [{"name": f"b{i}", "task": "t", **FAILS} for i in range(4)])
    make_skill(
        skills,
        "coin",
        [{"name": "heads", "task": "t", **PASSES}, {"name": "tails", "task": "t", **FAILS}],
    )
    write_file(root / "skill-lens.toml", toml)


def ran(report: Report) -> Counter[str]:
    return Counter(o["skill_name"] for o in report.outcomes)


def stopped(report: Report) -> dict[str, list[dict[str, Any]]]:
    by_skill: dict[str, list[dict[str, Any]]] = {}
    for entry in report["stopped_early"]:
        by_skill.setdefault(entry["skill_name"], []).append(entry)
    return by_skill


def check_run(result: pytest.RunResult, report: Report) -> None:
    assert result.ret == 1, result.stdout.str()
    assert ran(report) == {"sure": 12, "broken": 8, "coin": 12}
    early = stopped(report)
    assert sorted(early) == ["broken", "sure"]
    assert len(early["sure"]) == 12 and len(early["broken"]) == 16
    assert {e["reason"] for e in early["sure"]} == {
        f"stopped early: decided pass after round 3 of 6 {METHOD}"
    }
    assert {e["reason"] for e in early["broken"]} == {
        f"stopped early: decided fail after round 2 of 6 {METHOD}"
    }
    # Which items: every case's repetitions after the deciding round, none before.
    assert sorted({e["repeat_index"] for e in early["sure"]}) == [3, 4, 5]
    assert sorted({e["repeat_index"] for e in early["broken"]}) == [2, 3, 4, 5]
    assert report["not_run"] == []  # not spent is not "did not run": no gate reason
    assert report.gate["reasons"] == [
        "skill 'broken' pass rate is below the required 50%: decided after round 2 "
        "(betting test, alpha 0.05; 0% so far)"
    ]
    questions = {(q["question"], q["skill_name"]): q for q in report["sequential"]["questions"]}
    assert questions["per_skill_min", "sure"]["verdict"] == "pass"
    assert questions["per_skill_min", "sure"]["decided_at"] == 3
    assert questions["per_skill_min", "broken"]["verdict"] == "fail"
    assert questions["per_skill_min", "coin"]["verdict"] == "undecided"
    assert questions["per_skill_min", "coin"]["rounds"] == 6
    assert "the gate read the fixed-sample figure" in questions["per_skill_min", "coin"]["text"]
    assert report["sequential"]["max_rounds"] == 6
    assert report.summary["not_spent"]["stopped_early"] == 28
    assert report.summary["total"] == 32
    text = result.stdout.str()
    assert "28 run(s) not spent: stopped early" in text
    assert "12 skipped" not in text and "28 skipped" in text  # pytest's own count


def test_auto_stops_each_skill_once_its_question_is_decided(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path)
    result = LENS(pytester)
    report = LENS.report(pytester)
    check_run(result, report)
    # Round by round: every case's repetition r before any case's r + 1, within a skill.
    sure = [
        (o["repeat_index"], o["case_name"]) for o in report.outcomes if o["skill_name"] == "sure"
    ]
    assert [r for r, _ in sure] == sorted(r for r, _ in sure)
    markdown = (pytester.path / "report.md").read_text(encoding="utf-8")
    assert "not spent" in markdown and "stopped early" in markdown


def test_auto_under_xdist_sends_each_skill_to_one_worker(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path)
    lens = LensRun(runner="fake", json="report.json", subprocess=True, timeout=300)
    result = lens(pytester, "-n", "2")
    check_run(result, lens.report(pytester))
    result.stdout.fnmatch_lines(["*each skill's items go to one worker (--dist loadscope)*"])


def test_auto_under_the_concurrency_pool_reads_complete_rounds(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path)
    result = LENS(pytester, "--skill-lens-concurrency", "2")
    check_run(result, LENS.report(pytester))


def test_the_flag_overrides_the_file_and_a_fixed_count_stops_nothing(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester.path)
    result = LENS(pytester, "--skill-lens-repeat", "3")
    report = LENS.report(pytester)
    assert ran(report) == {"sure": 12, "broken": 12, "coin": 6}
    assert report["stopped_early"] == [] and report["sequential"] is None
    assert "skill 'broken' pass rate 0% is below its required 50%" in report.gate["reasons"]
    assert result.ret == 1


@pytest.mark.parametrize(
    ("toml", "args", "said"),
    [
        ("", ("--skill-lens-repeat", "auto:x"), "auto:N takes a whole number of rounds, got 'x'"),
        ("", ("--skill-lens-repeat", "auto:1"), "auto:N needs at least 2 rounds"),
        ('repeat = "auto:0"\n', (), "field 'repeat'"),
        ('repeat = "2"\n', (), "field 'repeat'"),
    ],
)
def test_a_bad_auto_is_refused_before_anything_runs(
    pytester: pytest.Pytester, toml: str, args: tuple[str, ...], said: str
) -> None:
    make_skill(pytester.path / "skills", "sure", [{"name": "s", "task": "t", **PASSES}])
    write_file(pytester.path / "skill-lens.toml", toml)
    result = LENS(pytester, *args)
    assert result.ret == 2
    assert said in result.stdout.str() + result.stderr.str()
    assert (
        not (pytester.path / "report.json").exists()
        or Report.read(pytester.path / "report.json").outcomes == []
    )


def test_shards_keep_each_skill_whole_and_the_merge_decides_again(
    pytester: pytest.Pytester,
) -> None:
    write_suite(pytester.path)
    for k in (1, 2):
        lens = LensRun(runner="fake", json=f"shard-{k}.json", options=("-p", "no:cacheprovider"))
        lens(pytester, "--skill-lens-shard", f"{k}/2")
    shards = [Report.read(pytester.path / f"shard-{k}.json") for k in (1, 2)]
    # Under auto the skill is the unit: no skill has outcomes on both shards.
    on_each = [set(ran(report)) for report in shards]
    assert on_each[0].isdisjoint(on_each[1]) and on_each[0] | on_each[1] == {
        "sure",
        "broken",
        "coin",
    }

    merged = run_merge(pytester, "shard-2.json", "shard-1.json", "--json", "merged.json")
    assert merged.returncode == 1, merged.stdout + merged.stderr
    report = Report.read(pytester.path / "merged.json")
    assert ran(report) == {"sure": 12, "broken": 8, "coin": 12}
    assert report.gate["reasons"] == [
        "skill 'broken' pass rate is below the required 50%: decided after round 2 "
        "(betting test, alpha 0.05; 0% so far)"
    ]
    verdicts = {
        q["skill_name"]: (q["verdict"], q["decided_at"])
        for q in report["sequential"]["questions"]
        if q["question"] == "per_skill_min"
    }
    assert verdicts == {"broken": ("fail", 2), "coin": ("undecided", None), "sure": ("pass", 3)}
    assert report.summary["not_spent"]["stopped_early"] == 28
    assert "28 run(s) not spent: stopped early" in merged.stdout


def test_a_round_the_spend_ceiling_cut_is_no_evidence(pytester: pytest.Pytester) -> None:
    # Four cases at $1 each, a $5 ceiling: round 1 runs one case and the rest is refused.
    cases = [{"name": f"c{i}", "task": "t", **PASSES} for i in range(4)]
    make_skill(pytester.path / "skills", "sure", cases)
    step = {"output": "handled", "cost_usd": 1.0}
    pytester.makeconftest(scripted_runner_conftest({f"c{i}": step for i in range(4)}))
    write_file(pytester.path / "skill-lens.toml", TOML)
    lens = LensRun(runner="scripted", json="report.json")
    result = lens(pytester, "--skill-lens-max-spend", "5")
    report = lens.report(pytester)
    assert result.ret == 1
    assert len(report.outcomes) == 5 and report["stopped_early"] == []
    assert len(report["not_run"]) == 19  # refused by the ceiling: the gate's not-run reason
    (question,) = [q for q in report["sequential"]["questions"] if q["question"] == "per_skill_min"]
    assert (question["verdict"], question["rounds"]) == ("continue", 1)  # round 2 was cut
    assert any("did not run" in reason for reason in report.gate["reasons"])


WITHOUT_SKILL = """
class WithoutSkill(Scripted):
    def run(self, skill, case, workspace):
        if not skill.instructions.strip():  # the none baseline's emptied skill
            return RunResult(output="plain")
        return super().run(skill, case, workspace)


def pytest_skill_lens_runners(config):
    return {"scripted": lambda context: WithoutSkill()}
"""


def test_the_delta_is_asked_per_skill_and_a_decided_gain_stops_both_arms(
    pytester: pytest.Pytester,
) -> None:
    # Three cases the skill passes and its absence fails: +100% a case, against a bar of 0.
    cases = [{"name": f"c{i}", "task": "t", **PASSES} for i in range(3)]
    make_skill(pytester.path / "skills", "sure", cases)
    script = {f"c{i}": {"output": "handled"} for i in range(3)}
    pytester.makeconftest(scripted_runner_conftest(script, WITHOUT_SKILL))
    write_file(pytester.path / "skill-lens.toml", 'repeat = "auto:6"\nmin_pass_rate = 0.0\n')
    lens = LensRun(runner="scripted", json="report.json")
    result = lens(pytester, "--skill-lens-baseline", "none", "--skill-lens-min-delta", "0")
    report = lens.report(pytester)
    assert result.ret == 0, result.stdout.str()
    (delta,) = [q for q in report["sequential"]["questions"] if q["question"] == "min_delta"]
    assert (delta["runner"], delta["verdict"], delta["decided_at"]) == ("scripted", "pass", 2)
    assert len(report.outcomes) == 12  # 3 cases x 2 arms x 2 rounds
    early = report["stopped_early"]
    assert len(early) == 24 and {e["arm"] for e in early} == {"candidate", "baseline"}
    assert report.gate["reasons"] == []


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_summary_says_what_changed_skills_and_early_stops_saved_together(
    pytester: pytest.Pytester,
) -> None:
    from test_changed_e2e import commit, edit, run, suite

    suite(pytester.path)  # alpha (failing), beta and gamma (passing), each two cases
    edit(pytester.path / "skills/beta/SKILL.md")
    commit(pytester.path, "beta says more")

    # By flags: a changed skill-lens.toml would mark every skill changed.
    auto = ("--skill-lens-repeat", "auto:6", "--skill-lens-min-pass-rate", "0.5")
    result = run(pytester, "--skill-lens-changed", *auto)

    assert result.ret == 0, result.stdout.str()
    not_spent = Report.read(pytester.path / "out.json").summary["not_spent"]
    assert not_spent["unchanged_skills"] == ["alpha", "gamma"]
    assert not_spent["unchanged_since"].startswith("main (")
    # beta's two passing cases clear 50% after round 3: 6 runs made, 6 not spent.
    assert (not_spent["runs_made"], not_spent["stopped_early"]) == (6, 6)
    text = result.stdout.str()
    assert "2 skill(s) not run: unchanged since main (" in text
    assert f"{not_spent['stopped_early']} run(s) not spent: stopped early" in text


def test_each_baseline_arm_asks_its_own_delta_and_one_left_open_keeps_the_skill_running(
    pytester: pytest.Pytester,
) -> None:
    # The emptied skill (none) fails every case and the placebo passes them all: against
    # a bar of 0 the delta vs none (+100%) is decided pass at round 2, the delta vs placebo
    # (0) can never be, so the skill runs its six rounds in all three arms.
    cases = [{"name": f"c{i}", "task": "t", **PASSES} for i in range(3)]
    make_skill(pytester.path / "skills", "sure", cases)
    script = {f"c{i}": {"output": "handled"} for i in range(3)}
    pytester.makeconftest(scripted_runner_conftest(script, WITHOUT_SKILL))
    write_file(pytester.path / "skill-lens.toml", 'repeat = "auto:6"\nmin_pass_rate = 0.0\n')
    lens = LensRun(runner="scripted", json="report.json")
    result = lens(pytester, "--skill-lens-baseline", "none,placebo", "--skill-lens-min-delta", "0")
    report = lens.report(pytester)
    assert result.ret == 0, result.stdout.str()
    deltas = [q for q in report["sequential"]["questions"] if q["question"] == "min_delta"]
    assert [(q["arm"], q["runner"], q["verdict"], q["decided_at"]) for q in deltas] == [
        ("none", "scripted", "pass", 2),
        ("placebo", "scripted", "undecided", None),
    ]
    assert "pass-rate delta vs placebo under runner 'scripted'" in deltas[1]["text"]
    assert len(report.outcomes) == 54  # 3 cases x 3 arms x 6 rounds: nothing stopped
    assert (
        "Plan: up to 3 arm(s) x at most 6 round(s) x 1 runner(s) x 3 case(s) = 54 runs "
        "(--skill-lens-repeat auto:6 may stop a skill early, once its questions are decided; "
        "6 is the most rounds)"
    ) in result.stdout.lines
    assert report["stopped_early"] == []
    assert report.gate["reasons"] == []  # the placebo's fixed-sample delta, 0, meets 0


MARKED_ONLY = """
class MarkedOnly(Scripted):
    def run(self, skill, case, workspace):
        if "MARK-7" not in skill.instructions:  # neither the emptied skill nor the placebo
            return RunResult(output="plain")
        return super().run(skill, case, workspace)


def pytest_skill_lens_runners(config):
    return {"scripted": lambda context: MarkedOnly()}
"""


@pytest.mark.parametrize(
    "pool",
    [(), ("--skill-lens-concurrency", "2"), ("-n", "2")],
    ids=["plain", "pool", "xdist"],
)
def test_every_arm_s_delta_decided_stops_all_three_arms_at_once(
    pytester: pytest.Pytester, pool: tuple[str, ...]
) -> None:
    # Only the real skill passes: +100% against none and against the placebo, both decided
    # pass after round 2, so every arm's rounds 3 to 6 are not spent.
    cases = [{"name": f"c{i}", "task": "t", **PASSES} for i in range(3)]
    make_skill(pytester.path / "skills", "sure", cases, body="Say handled. MARK-7\n")
    script = {f"c{i}": {"output": "handled"} for i in range(3)}
    pytester.makeconftest(scripted_runner_conftest(script, MARKED_ONLY))
    write_file(pytester.path / "skill-lens.toml", 'repeat = "auto:6"\nmin_pass_rate = 0.0\n')
    xdist = "-n" in pool
    lens = LensRun(runner="scripted", json="report.json", subprocess=xdist, timeout=300)
    args = ("--skill-lens-baseline", "none,placebo", "--skill-lens-min-delta", "0", *pool)
    result = lens(pytester, *args)
    report = lens.report(pytester)
    assert result.ret == 0, result.stdout.str()
    deltas = [q for q in report["sequential"]["questions"] if q["question"] == "min_delta"]
    assert [(q["arm"], q["verdict"], q["decided_at"]) for q in deltas] == [
        ("none", "pass", 2),
        ("placebo", "pass", 2),
    ]
    assert len(report.outcomes) == 18  # 3 cases x 3 arms x 2 rounds
    kinds = Counter(e.get("arm") for e in report["stopped_early"])
    assert kinds == {"candidate": 12, "baseline": 24}
