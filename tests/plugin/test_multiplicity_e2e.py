"""Holm's correction over the delta gate's per-runner decisions, end to end.

Two runners, ``left`` and ``right``, do what the skill says (``SAY: PASS`` answers PASS;
the ``none`` baseline, with no instructions, answers ``nothing``). Two cases, both
improved under each runner: each runner's delta is +100% with a 95% interval starting at
+7%, a one-sided p of 0.0140 against a bar of 0. Alone each is shown at 95%; Holm asks
the first of the two for 0.0125, so after the correction neither is.
"""

from __future__ import annotations

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

RUNNERS = """
import re

from pytest_skill_lens.run.result import RunResult


class Follower:
    def __init__(self, name):
        self.name = name

    def run(self, skill, case, workspace):
        said = re.search(r"^SAY: (.+)$", skill.instructions, re.M)
        return RunResult(output=said.group(1) if said else "nothing")


def pytest_skill_lens_runners(config):
    return {"left": lambda c: Follower("left"), "right": lambda c: Follower("right")}
"""

GATE = (
    "--skill-lens-baseline",
    "none",
    "--skill-lens-min-delta",
    "0",
    "--skill-lens-min-delta-confidence",
    "0.95",
)


lens = LensRun(runner=("left", "right"), json="out.json", markdown="out.md")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:

    write_file(pytester.path / "conftest.py", RUNNERS)
    cases = [
        {"name": n, "task": "t", "assertions": [{"kind": "contains", "value": "PASS"}]}
        for n in ("one", "two")
    ]
    make_skill(pytester.path / "skills", "greet", cases, body="SAY: PASS\n")
    return lens(pytester, *args)


def test_holm_turns_two_raw_passes_into_two_adjusted_failures(pytester: pytest.Pytester) -> None:
    raw = _run(pytester, *GATE)
    assert raw.ret == 0  # the default, "none": each runner's interval clears 0 alone
    [block] = lens.report(pytester)["multiplicity"]
    assert (block["criterion"], block["method"]) == ("min_delta_confidence", "none")
    assert [(d["runner"], d["raw_holds"], d["adjusted_holds"]) for d in block["decisions"]] == [
        ("left", True, True),
        ("right", True, True),
    ]
    write_file(pytester.path / "skill-lens.toml", 'multiplicity = "holm"\n')
    result = _run(pytester, *GATE)
    assert result.ret == 1
    report = lens.report(pytester)
    [block] = report["multiplicity"]
    assert (block["method"], block["level"], block["alpha"]) == ("holm", 0.95, pytest.approx(0.025))
    assert [
        (d["runner"], round(d["p_value"], 4), d["raw_holds"], round(d["adjusted_p_value"], 4))
        for d in block["decisions"]
    ] == [("left", 0.014, True, 0.028), ("right", 0.014, True, 0.028)]
    assert [d["adjusted_holds"] for d in block["decisions"]] == [False, False]
    assert report["run"]["gate_settings"]["multiplicity"] == "holm"
    assert report["gate"]["reasons"] == [
        f"pass-rate delta under runner '{runner}' +100% is shown at 95% confidence alone but "
        "not after Holm's correction over 2 decision(s): p = 0.0140, adjusted p = 0.0280, "
        "above 0.0250"
        for runner in ("left", "right")
    ]
    result.stdout.fnmatch_lines(
        [
            "*Interval decisions of min_delta_confidence at 95% confidence: 2 decision(s), "
            "one-sided error 0.0250 each, Holm's step-down correction",
            "*pass-rate delta under runner 'left' +100% against +0%: p = 0.0140, raw shown; "
            "Holm-adjusted p = 0.0280 (Holm level 97.5%), not shown",
            "*2 decision(s) shown alone are not shown after the correction*",
        ]
    )
    markdown = (pytester.path / "out.md").read_text(encoding="utf-8")
    row = "| pass-rate delta under runner 'left' | +100% | +0% | 0.0140 | shown | 0.0280 |"
    assert row + " **not shown** |" in markdown


def test_an_unknown_multiplicity_is_refused_before_any_run(pytester: pytest.Pytester) -> None:
    write_file(pytester.path / "skill-lens.toml", 'multiplicity = "bonferroni"\n')
    result = _run(pytester, *GATE)
    assert result.ret == 2
    result.stderr.fnmatch_lines(["*multiplicity must be one of 'holm' or 'none'*bonferroni*"])
    assert not (pytester.path / "out.json").exists() or not lens.report(pytester).outcomes


def test_holm_without_a_confidence_level_is_refused(pytester: pytest.Pytester) -> None:
    # Nothing to correct: per-skill minimums and min_delta alone are point decisions.
    write_file(pytester.path / "skill-lens.toml", 'multiplicity = "holm"\n')
    result = _run(pytester, "--skill-lens-baseline", "none", "--skill-lens-min-delta", "0")
    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            '*multiplicity = "holm" corrects the gate\'s interval decisions, and none is asked*',
            "*add --skill-lens-min-delta-confidence*drop multiplicity in skill-lens.toml*",
        ]
    )


def test_per_skill_minimums_under_the_fake_runner_holm_differs(pytester: pytest.Pytester) -> None:
    # Two skills of four cases, each passing under fake (its line says "handled"): 4 of 4
    # against 50%, p = 1 - Phi(2) = 0.0228 each. Alone each is shown at 95%; after Holm,
    # the first needs 0.0125, so neither is.
    cases = [
        {"name": f"c{i}", "task": "t", "assertions": [{"kind": "contains", "value": "handled"}]}
        for i in range(4)
    ]
    for name in ("greet", "audit"):
        make_skill(pytester.path / "skills", name, cases)
    config = "per_skill_min = { greet = 0.5, audit = 0.5 }\nper_skill_min_confidence = 0.95\n"
    write_file(pytester.path / "skill-lens.toml", config)
    fake = LensRun(json="out.json")
    assert fake(pytester).ret == 0
    write_file(pytester.path / "skill-lens.toml", config + 'multiplicity = "holm"\n')
    result = fake(pytester)
    assert result.ret == 1
    [family] = lens.report(pytester)["multiplicity"]
    assert family["criterion"] == "per_skill_min_confidence"
    assert [
        (d["skill"], round(d["p_value"], 4), d["raw_holds"], d["adjusted_holds"])
        for d in family["decisions"]
    ] == [("greet", 0.0228, True, False), ("audit", 0.0228, True, False)]
    assert lens.report(pytester).gate["reasons"][0] == (
        "skill 'greet' pass rate 100% is shown at 95% confidence alone but not after Holm's "
        "correction over 2 decision(s): p = 0.0228, adjusted p = 0.0455, above 0.0250"
    )


def test_a_skill_confidence_without_skill_minimums_is_refused(pytester: pytest.Pytester) -> None:
    write_file(pytester.path / "skill-lens.toml", "per_skill_min_confidence = 0.95\n")
    result = _run(pytester)
    assert result.ret == 2
    result.stderr.fnmatch_lines(["*per_skill_min_confidence needs per_skill_min*"])
