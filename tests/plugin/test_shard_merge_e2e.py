"""A suite split with ``--skill-lens-shard K/N`` and merged with ``pytest-skill-lens merge``
gives the gate, the delta and the counts the unsharded run gives, and its exit code.

The runner ``scripted`` answers each case from a script by its name; handed the emptied
skill of the ``none`` baseline (no instructions), it answers from a second script, so
the two arms differ and the delta is not zero. Figures are exact binary fractions and
latency is the script's, so every sum is the same in any order and on any machine. The
cases' names are not in their eval-file order: the merge lists them in that order, from
the case order every shard's report carries, so the reports can be compared whole.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun, Report, run_merge
from skillfactory import make_skill, scripted_runner_conftest, write_file

CASES = ["c3", "c1", "c5", "c2", "c4"]  # eval-file order, not their names' order
SKILLS = ("alpha", "beta")
# Without the skill only c1 and c2 pass: the skill adds three cases of five.
WITHOUT_SKILL = {"c1": "PASS", "c2": "PASS"}

BASELINE_AWARE = """
class WithoutSkill(Scripted):
    def run(self, skill, case, workspace):
        if not skill.instructions.strip():  # the none baseline's emptied skill
            said = {without!r}.get(case.name, "plain")
            return RunResult(output=said, input_tokens=3, cost_usd=0.125, latency_ms=2.0)
        return super().run(skill, case, workspace)


def pytest_skill_lens_runners(config):
    return {{"scripted": lambda context: WithoutSkill()}}
"""


def _suite(root: Path, failing: str | None = None) -> None:
    """``skills/alpha`` and ``skills/beta``, five cases each; ``failing`` fails everywhere."""
    case = {"assertions": [{"kind": "contains", "value": "PASS"}]}
    for skill in SKILLS:
        make_skill(root / "skills", skill, [{"name": c, "task": "t", **case} for c in CASES])
    script = {
        c: {
            "output": "nope" if c == failing else "PASS",
            "input_tokens": 5,
            "output_tokens": 2,
            "cost_usd": 0.25,
            "latency_ms": 4.0,
            "model": "acme",
            "tool_calls": [["lookup", {"q": c}]],
        }
        for c in CASES
    }
    extra = BASELINE_AWARE.format(without=WITHOUT_SKILL)
    write_file(root / "conftest.py", scripted_runner_conftest(script, extra))


GATED = LensRun(
    runner="scripted",
    options=(
        *("--skill-lens-baseline", "none", "--skill-lens-repeat", "2"),
        *("--skill-lens-min-delta", "0", "--skill-lens-min-case-pass-rate", "1.0"),
        *("-p", "no:cacheprovider"),
    ),
)


def _run(pytester: pytest.Pytester, json_name: str, *args: str) -> pytest.RunResult:
    return replace(GATED, json=json_name)(pytester, *args)


def _load(pytester: pytest.Pytester, name: str) -> Report:
    return Report.read(pytester.path / name)


def _shards(pytester: pytest.Pytester, count: int = 3) -> list[pytest.RunResult]:
    return [
        _run(pytester, f"shard-{k}.json", "--skill-lens-shard", f"{k}/{count}")
        for k in range(1, count + 1)
    ]


def _identities(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    keys = ("skill_name", "case_name", "runner", "arm", "repeat_index")
    return [tuple(o[k] for k in keys) for o in report["outcomes"]]


def test_three_shards_merge_into_the_unsharded_run(pytester: pytest.Pytester) -> None:
    _suite(pytester.path)
    whole = _run(pytester, "whole.json")
    assert whole.ret == 0
    shards = _shards(pytester)
    assert [r.ret for r in shards] == [0, 0, 0]
    reports = [_load(pytester, f"shard-{k}.json") for k in (1, 2, 3)]
    # Every item of a case is on one shard: both arms, both repeats.
    for report in reports:
        by_case: dict[tuple[str, str], int] = {}
        for skill, case, *_ in _identities(report):
            by_case[skill, case] = by_case.get((skill, case), 0) + 1
        assert set(by_case.values()) == {4}
    assert sorted(len(_identities(r)) // 4 for r in reports) == [3, 3, 4]  # 10 cases, dealt
    assert [r["run"]["shard"] for r in reports] == ["1/3", "2/3", "3/3"]
    # Every shard says every skill's cases in eval-file order, its own and the others'.
    assert all(r["run"]["case_order"] == {s: CASES for s in SKILLS} for r in reports)
    assert _load(pytester, "whole.json")["run"]["case_order"] is None
    # ... and what the whole run selected, as digests: every shard says the same.
    selections = [r["run"]["selection"] for r in reports]
    assert selections[0]["items"] == 40 and sorted(selections[0]["skills"]) == list(SKILLS)
    assert selections == [selections[0]] * 3
    assert _load(pytester, "whole.json")["run"]["selection"] is None
    # pytest counts the other shards' items as deselected; the session does not call it -k.
    assert all(r["deselected_skills"] == [] for r in reports)
    shards[0].stdout.fnmatch_lines(["*deselected*"])

    merged = run_merge(
        pytester,
        "shard-1.json",
        "shard-2.json",
        "shard-3.json",
        "--json",
        "merged.json",
        "--markdown",
        "merged.md",
        "--junitxml",
        "merged.xml",
    )
    assert merged.returncode == 0, merged.stderr
    expected, got = _load(pytester, "whole.json"), _load(pytester, "merged.json")
    assert got["gate"] == expected["gate"] == {"passed": True, "exit_code": 0, "reasons": []}
    assert got["delta"] == expected["delta"]
    assert expected["delta"]["pass_rate_delta"] == pytest.approx(0.6)
    assert got["summary"] == expected["summary"]
    assert _identities(got) == _identities(expected)
    assert got["outcomes"] == expected["outcomes"]
    assert got["run"] == {**expected["run"], "shard": None}
    assert "Gate passed" in merged.stdout
    assert "Delta vs baseline (none): 10 of 10 case(s) comparable" in merged.stdout
    for label, name in (
        ("JSON", "merged.json"),
        ("Markdown", "merged.md"),
        ("JUnit", "merged.xml"),
    ):
        assert f"{label} report written: {pytester.path / name}" in merged.stdout
    assert (pytester.path / "merged.md").read_text(encoding="utf-8").startswith("## skill-lens")
    suite = ET.parse(pytester.path / "merged.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("40", "0", "0")


def test_a_failing_case_fails_the_unsharded_run_and_the_merge_alike(
    pytester: pytest.Pytester,
) -> None:
    _suite(pytester.path, failing="c4")
    whole = _run(pytester, "whole.json", "--junitxml", "whole.xml")
    assert whole.ret == 1
    shards = _shards(pytester)
    # Only the shard holding c4 fails its own gate; the merge is the verdict on the suite.
    held = [{i[:2] for i in _identities(_load(pytester, f"shard-{k}.json"))} for k in (1, 2, 3)]
    failing = [bool(cases & {("alpha", "c4"), ("beta", "c4")}) for cases in held]
    assert [r.ret for r in shards] == [1 if fails else 0 for fails in failing]

    shard_files = ("shard-3.json", "shard-1.json", "shard-2.json")  # in any order
    merged = run_merge(pytester, *shard_files, "--json", "merged.json", "--junitxml", "merged.xml")
    assert merged.returncode == 1
    expected, got = _load(pytester, "whole.json"), _load(pytester, "merged.json")
    assert got["gate"] == expected["gate"]
    assert got["gate"]["reasons"] == [
        "pass rate 80% is below the required 100%",
        "case 'alpha :: c4' (scripted) passed 0 of 2 repetition(s), 0%, below the required "
        "per-case 100%",
        "case 'beta :: c4' (scripted) passed 0 of 2 repetition(s), 0%, below the required "
        "per-case 100%",
    ]
    assert got["delta"] == expected["delta"]
    assert got["summary"] == expected["summary"]
    assert "Gate FAILED:" in merged.stdout
    failures = ET.parse(pytester.path / "merged.xml").getroot().findall(".//testcase/failure")
    assert len(failures) == 4  # c4 of both skills, two repeats each; baselines never fail
    whole_failures = ET.parse(pytester.path / "whole.xml").getroot().findall(".//failure")
    assert len(whole_failures) == 4


def test_a_shard_without_cases_fails_alone_and_the_merge_still_passes(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "solo", [{"name": "c1", "task": "t"}])
    write_file(pytester.path / "conftest.py", scripted_runner_conftest({"c1": {"output": "hi"}}))
    results = [
        LensRun(runner="scripted", json=f"s{k}.json")(pytester, "--skill-lens-shard", f"{k}/2")
        for k in (1, 2)
    ]
    empty = next(k for k, r in zip((1, 2), results, strict=True) if r.ret != 0)
    # Not a silent pass: the gate of a shard that ran nothing fails, and says why up front.
    assert results[empty - 1].ret == 1
    results[empty - 1].stdout.fnmatch_lines(
        ["*shard ?/2 holds none of the 1 selected case(s)*Use at most 1 shard(s).*"]
    )
    report = _load(pytester, f"s{empty}.json")
    assert report["deselected_skills"] == []  # the other shard's case, not a -k's
    assert report["gate"]["reasons"][0].startswith("no eval cases ran")

    merged = run_merge(pytester, "s1.json", "s2.json")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "1 passed, 0 failed, 0 errored" in merged.stdout


def test_a_merge_refuses_a_missing_or_aborted_shard(pytester: pytest.Pytester) -> None:
    _suite(pytester.path)
    _shards(pytester, 2)
    missing = run_merge(pytester, "shard-1.json")
    assert missing.returncode == 2
    assert "shard(s) 2/2 missing" in missing.stderr
    assert "fix:" in missing.stderr
    twice = run_merge(pytester, "shard-1.json", "shard-1.json")
    assert twice.returncode == 2
    assert "are both shard 1/2" in twice.stderr

    aborted = _run(pytester, "shard-2.json", "--skill-lens-shard", "2/2", "--collect-only")
    assert aborted.ret == 0
    refused = run_merge(pytester, "shard-1.json", "shard-2.json")
    assert refused.returncode == 2
    assert "shard-2.json: that run was aborted before its gate" in refused.stderr

    _run(pytester, "shard-2.json", "--skill-lens-shard", "2/2", "--skill-lens-min-pass-rate", "0.5")
    mixed = run_merge(pytester, "shard-1.json", "shard-2.json")
    assert mixed.returncode == 2
    assert "shard-2.json: its gate settings differ from shard-1.json's (min_pass_rate 0.5" in (
        mixed.stderr
    )


def test_a_merge_refuses_shards_that_collected_other_cases(pytester: pytest.Pytester) -> None:
    _suite(pytester.path)
    _shards(pytester, 2)
    # Shard 2 as run on another commit, where beta's third case was renamed.
    path = pytester.path / "shard-2.json"
    report = _load(pytester, "shard-2.json")
    report["run"]["case_order"]["beta"][2] = "c5-renamed"
    path.write_text(json.dumps(report), encoding="utf-8")
    refused = run_merge(pytester, "shard-1.json", "shard-2.json")
    assert refused.returncode == 2
    assert (
        "shard-2.json: the cases it collected for skill 'beta' differ from shard-1.json's "
        "(case 3 is 'c5-renamed' against 'c5'; 5 case(s) against 5)"
    ) in refused.stderr
    assert "run every shard on the same commit" in refused.stderr


def test_a_shard_under_xdist_runs_the_same_items(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    _suite(pytester.path)
    plain = _run(pytester, "plain.json", "--skill-lens-shard", "2/3")
    spread = _run(pytester, "spread.json", "--skill-lens-shard", "2/3", "-n", "2")
    assert plain.ret == spread.ret == 0
    expected, got = _load(pytester, "plain.json"), _load(pytester, "spread.json")
    assert _identities(got) == _identities(expected)
    assert got["deselected_skills"] == []
    assert got["gate"] == expected["gate"]
    assert got["run"]["case_order"] == expected["run"]["case_order"] == {s: CASES for s in SKILLS}
    # The workers' selection reaches the controller's report: a merge compares it.
    assert got["run"]["selection"] == expected["run"]["selection"]
    assert expected["run"]["selection"]["items"] == 40  # 10 cases, 2 arms, 2 repeats


def test_a_bad_shard_is_exit_2_with_the_fix(pytester: pytest.Pytester) -> None:
    # Each refused value is in tests/unit/test_shard.py; here, that it stops a real run.
    make_skill(pytester.path / "skills", "solo", [{"name": "c1", "task": "t"}])
    # In-process: tests/conftest.py's pytester follows a pytest.exit in configure.
    result = LensRun(quiet=False)(pytester, "--skill-lens-shard", "4/3")
    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "*--skill-lens-shard 4/3: K must be from 1 to N, and N at least 1*",
            "*fix: give each of N machines its own K/N*",
        ]
    )
