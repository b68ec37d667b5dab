"""The baseline arm end to end: items beside the candidate's, the delta, and the gate on it.

The runner ``follower`` does what the skill it is handed says: instructions holding
``SAY: <text>`` make it answer ``<text>``; with no such line (the ``none`` baseline has no
instructions at all) it answers ``nothing``. A case asserts ``contains: PASS``, so the
candidate passes exactly when its SKILL.md says ``SAY: PASS``. With ``SAY-EACH: a,b,...``
it answers the next word each time the same case runs (a counter per case and arm in the
process), so repetitions can differ.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

FOLLOWER = """
import itertools
import re

from pytest_skill_lens.run.result import RunResult

_COUNTERS = {}


class Follower:
    name = "follower"

    def run(self, skill, case, workspace):
        each = re.search(r"^SAY-EACH: (.+)$", skill.instructions, re.M)
        if each:
            key = (skill.variant, case.name)
            counter = _COUNTERS.setdefault(key, itertools.count())
            words = each.group(1).split(",")
            return RunResult(output=words[next(counter) % len(words)])
        said = re.search(r"^SAY: (.+)$", skill.instructions, re.M)
        offered = case.mode == "offered"  # it reaches for the offered skill, and says so
        return RunResult(
            output=said.group(1) if said else "nothing", skill_triggered=True if offered else None
        )


def pytest_skill_lens_runners(config):
    return {"follower": lambda context: Follower()}
"""

PASSES = {"kind": "contains", "value": "PASS"}


def _case(name: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "task": "t", "assertions": [PASSES], **more}


def _skill(root: Path, name: str, says: str, cases: list[dict[str, Any]]) -> Path:
    return make_skill(root / "skills", name, cases, body=f"{says}\n")


def _setup(pytester: pytest.Pytester) -> None:
    write_file(pytester.path / "conftest.py", FOLLOWER)


lens = LensRun(runner="follower", json="out.json")


def _reasons(pytester: pytest.Pytester) -> list[str]:
    return list(lens.report(pytester).gate["reasons"])


def test_none_baseline_items_run_beside_the_candidate_and_never_fail_the_run(
    pytester: pytest.Pytester,
) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one"), _case("two")])
    result = lens(pytester, "--skill-lens-baseline", "none", "-v", "--junitxml", "junit.xml")
    assert result.ret == 0  # the baseline failed both cases; the candidate passed both
    result.stdout.fnmatch_lines(
        [
            "*SKILL.md::one?follower? PASSED*",
            "*SKILL.md::one?follower-baseline? BASELINE FAILED*",
            "*2 passed, 2 baseline failed*",
        ]
    )
    report = lens.report(pytester)
    arms = [(o["case_name"], o["arm"], o["status"]) for o in report["outcomes"]]
    assert arms == [
        ("one", "candidate", "passed"),
        ("one", "baseline", "failed"),
        ("two", "candidate", "passed"),
        ("two", "baseline", "failed"),
    ]
    baseline_output = {o["output"] for o in report["outcomes"] if o["arm"] == "baseline"}
    assert baseline_output == {"nothing"}  # the none arm never saw the skill's text
    assert report["summary"]["total"] == 2  # baseline outcomes never count as cases
    delta = report["delta"]
    assert delta["baseline_kind"] == "none"
    assert (delta["pass_rate_candidate"], delta["pass_rate_baseline"]) == (1.0, 0.0)
    assert delta["pass_rate_delta"] == 1.0
    assert delta["comparable_cases"] == 2
    # Two cases that both improved: Wilson 2/2 is [0.3424, 1], 0/2 is [0, 0.6576]; with no
    # concordant pair phi = 0, so Newcombe's low bound is 1 - sqrt(2 * 0.6576^2) = 0.0700.
    interval = delta["intervals"]["delta"]
    assert round(interval["low"], 4) == 0.0700 and interval["high"] == 1.0
    assert interval["method"].startswith("newcombe")
    assert delta["confidence"] == "low"
    assert [c["exclusion_reason"] for c in delta["cases"]] == [None, None]
    assert report["baseline_notes"] == []
    # JUnit: a baseline testcase never fails; its verdict is the status property.
    tree = ET.parse(pytester.path / "junit.xml")
    baseline = next(c for c in tree.iter("testcase") if "follower-baseline" in c.get("name", ""))
    assert baseline.find("failure") is None and baseline.find("error") is None
    properties = {p.get("name"): p.get("value") for p in baseline.iter("property")}
    assert (properties["arm"], properties["status"]) == ("baseline", "failed")


def test_a_failing_baseline_says_why_under_its_case(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one")])
    result = lens(pytester, "--skill-lens-baseline", "none")
    result.stdout.fnmatch_lines(
        [
            "    greet :: one (follower)  candidate 1/1  baseline 0/1  +100%",
            '      baseline: failed assertion contains[[]0[]]: "PASS" does not appear in the '
            'output: "nothing"',
        ]
    )


def test_the_terminal_shows_the_delta_with_its_intervals(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one"), _case("two")])
    result = lens(pytester, "--skill-lens-baseline", "none")
    result.stdout.fnmatch_lines(
        [
            "Delta vs baseline (none): 2 of 2 case(s) comparable",
            "  pass rate  baseline 0% -> candidate 100%  delta +100%   (higher is better)",
            # Wilson at n=2: 2/2 is [34%, 100%], 0/2 is [0%, 66%].
            "  95% intervals: baseline [0%, 66%], candidate [34%, 100%], delta [+7%, +100%]",
            "  confidence in the delta: low (newcombe*, 2 case(s))",
            "  Per case:",
            "    greet :: one (follower)  candidate 1/1  baseline 0/1  +100%",
            "*never change the exit code*",
        ]
    )


def test_min_delta_holds_and_fails_with_the_reason(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one"), _case("two")])
    assert lens(pytester, "--skill-lens-baseline", "none", "--skill-lens-min-delta", "1").ret == 0
    _skill(pytester.path, "greet", "SAY: nothing", [_case("one"), _case("two")])
    result = lens(pytester, "--skill-lens-baseline", "none", "--skill-lens-min-delta", "0.1")
    assert result.ret == 1
    assert "pass-rate delta +0% is below the required +10%" in _reasons(pytester)


def test_min_delta_meets_its_bar_within_float_tolerance(pytester: pytest.Pytester) -> None:
    """0.6 - 0.4 is 0.19999999999999996 in floating point; it meets a 0.2 bar."""
    _setup(pytester)
    both = {"kind": "not_contains", "value": "zzz"}  # holds in both arms
    never = {"kind": "contains", "value": "NEVER"}  # holds in neither
    cases = [
        _case("c0"),  # the candidate only: 1 of 5 apart
        _case("c1", assertions=[both]),
        _case("c2", assertions=[both]),
        _case("c3", assertions=[never]),
        _case("c4", assertions=[never]),
    ]
    _skill(pytester.path, "greet", "SAY: PASS", cases)
    args = ("--skill-lens-baseline", "none", "--skill-lens-min-pass-rate", "0")
    result = lens(pytester, *args, "--skill-lens-min-delta", "0.2")
    delta = lens.report(pytester)["delta"]
    assert (delta["pass_rate_candidate"], delta["pass_rate_baseline"]) == (0.6, 0.4)
    assert result.ret == 0, _reasons(pytester)
    result = lens(pytester, *args, "--skill-lens-min-delta", "0.21")
    assert result.ret == 1
    assert _reasons(pytester) == ["pass-rate delta +20% is below the required +21%"]
    # c1 and c2 held in both arms: their check tells the arms apart nowhere.
    low = [(c["case_name"], c["check_id"]) for c in lens.report(pytester)["delta"]["low_signal"]]
    assert low == [("c1", "not_contains[0]"), ("c2", "not_contains[0]")]


def test_min_delta_confidence_asks_the_interval_to_clear_the_bar(
    pytester: pytest.Pytester,
) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one"), _case("two")])
    args = ("--skill-lens-baseline", "none", "--skill-lens-min-delta", "0.2")
    assert lens(pytester, *args).ret == 0  # +100% clears +20%...
    result = lens(pytester, *args, "--skill-lens-min-delta-confidence", "0.95")
    assert result.ret == 1  # ...but from two cases the interval starts at +7%
    assert _reasons(pytester) == [
        "pass-rate delta +100% is not shown at 95% confidence: its interval (newcombe paired "
        "hybrid score (method 10) on wilson intervals) starts at +7%, below the required +20%"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--skill-lens-baseline", "none", "--skill-lens-min-delta-confidence", "0.95"],
            "*a delta confidence level needs a minimum delta*",
        ),
        (
            [
                "--skill-lens-baseline",
                "none",
                "--skill-lens-min-delta",
                "0",
                "--skill-lens-min-delta-confidence",
                "1",
            ],
            "*--skill-lens-min-delta-confidence must be more than 0 and less than 1, got 1.0*",
        ),
        (["--skill-lens-min-case-pass-rate", "1.5"], "*must be between 0.0 and 1.0, got 1.5*"),
        (["--skill-lens-min-delta", "0.1"], "*a minimum delta needs a baseline arm*"),
    ],
    ids=["confidence-without-min-delta", "level-of-one", "case-rate-above-one", "no-baseline"],
)
def test_comparison_flag_mistakes_exit_2_before_anything_runs(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one")])
    result = LensRun(runner="follower")(pytester, *args)
    assert result.ret == 2
    result.stderr.fnmatch_lines([message])


def test_an_offered_case_has_no_none_baseline_and_says_so(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    offered = _case("offered", mode="offered")
    _skill(pytester.path, "greet", "SAY: PASS", [_case("loaded"), offered])
    result = lens(pytester, "--skill-lens-baseline", "none", "-rs")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*SKIPPED*greet :: offered: baseline skipped — mode: offered has no skill to offer*"]
    )
    report = lens.report(pytester)
    assert report["baseline_notes"] == [
        {
            "skill_name": "greet",
            "case_name": "offered",
            "kind": "skipped",
            "reason": "mode: offered has no skill to offer when the baseline is none",
        }
    ]
    reasons = {c["case_name"]: c["exclusion_reason"] for c in report["delta"]["cases"]}
    assert reasons == {"loaded": None, "offered": "no baseline run"}
    assert report["not_run"] == []  # a skipped baseline owes no outcome


def test_min_case_pass_rate_finds_the_case_an_average_hides(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    # Each repetition of "flaky" answers the next word: PASS, nothing, nothing.
    _skill(pytester.path, "greet", "SAY-EACH: PASS,nothing,nothing", [_case("flaky")])
    _skill(pytester.path, "solid", "SAY: PASS", [_case(f"s{i}") for i in range(7)])
    args = ("--skill-lens-repeat", "3", "--skill-lens-min-pass-rate", "0.8")
    assert lens(pytester, *args).ret == 0  # 22 of 24 runs: 92%
    result = lens(pytester, *args, "--skill-lens-min-case-pass-rate", "0.5")
    assert result.ret == 1
    assert _reasons(pytester) == [
        "case 'greet :: flaky' (follower) passed 1 of 3 repetition(s), 33%, below the "
        "required per-case 50%"
    ]


def test_repeats_give_pass_at_k_and_flag_high_variance(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY-EACH: PASS,nothing,PASS", [_case("flaky")])
    result = lens(pytester, "--skill-lens-baseline", "none", "--skill-lens-repeat", "3")
    assert result.ret == 1  # at min_pass_rate 1.0 every repetition must pass
    case = lens.report(pytester)["delta"]["cases"][0]
    candidate = case["candidate"]
    assert (candidate["runs"], candidate["passed"]) == (3, 2)
    # n = 3 runs, c = 2 passed. pass@k = 1 - C(1, k)/C(3, k): k=1 1 - 1/3, and C(1, k) = 0
    # for k >= 2, so 1. pass^k = C(2, k)/C(3, k): k=1 2/3, k=2 1/3, k=3 0/1.
    estimates = [(k["k"], k["pass_at_k"], k["pass_hat_k"]) for k in candidate["k_estimates"]]
    expected = [(1, 2 / 3, 2 / 3), (2, 1.0, 1 / 3), (3, 1.0, 0.0)]
    assert [k for k, _, _ in estimates] == [1, 2, 3]
    assert [v for _, *pair in estimates for v in pair] == pytest.approx(
        [v for _, *pair in expected for v in pair]
    )
    # Population std-dev of 1, 0, 1: sqrt(2/3 * 1/3) = 0.4714.
    assert round(candidate["stddev"], 4) == 0.4714
    assert case["high_variance"] is True
    flagged = lens.report(pytester)["delta"]["high_variance"]
    assert [(c["arm"], round(c["pass_rate"], 4)) for c in flagged] == [("candidate", 0.6667)]
    result.stdout.fnmatch_lines(
        ["*greet :: flaky (follower)  candidate 2/3 ?pass@3 100%, pass^3 0%?  baseline 0/3*"]
    )


# --- previous: real git histories -------------------------------------------------------


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


def _repository(root: Path) -> None:
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "first")


def _run_isolated(pytester: pytest.Pytester, temp: Path, *args: str) -> pytest.RunResult:
    """A subprocess run whose system temp directory is ``temp``, so what it leaves is seen."""
    temp.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(temp)
    try:
        return replace(lens, subprocess=True)(pytester, "-p", "no:cacheprovider", *args)
    finally:
        del os.environ["TMPDIR"]


def test_previous_runs_the_committed_version_and_removes_its_copy(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: nothing", [_case("one")])
    write_file(pytester.path / "skills" / "greet" / "references" / "old.md", "the old bundle\n")
    _repository(pytester.path)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one")])  # the working copy improves
    temp = tmp_path / "tmp"
    result = _run_isolated(pytester, temp, "--skill-lens-baseline", "previous", "-v")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*one?follower-baseline? BASELINE FAILED*"])
    report = lens.report(pytester)
    outputs = {o["arm"]: o["output"] for o in report["outcomes"]}
    assert outputs == {"candidate": "PASS", "baseline": "nothing"}
    assert report["delta"]["baseline_kind"] == "previous"
    assert report["delta"]["pass_rate_delta"] == 1.0
    first = _git(pytester.path, "rev-parse", "HEAD").strip()
    assert report["baseline_sources"] == [
        {"skill_name": "greet", "commit": first, "path": "skills/greet/SKILL.md", "version": ""}
    ]
    result.stdout.fnmatch_lines([f"  baseline of greet: commit {first[:8]}, skills/greet/SKILL.md"])
    assert list(temp.iterdir()) == []  # the extracted bundle is gone


def test_previous_outside_git_is_a_note_and_fails_a_min_delta_gate(
    pytester: pytest.Pytester,
) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one")])
    result = lens(pytester, "--skill-lens-baseline", "previous", "-rs")
    assert result.ret == 0  # no gate asks for a delta: the note is information
    result.stdout.fnmatch_lines(["*SKIPPED*greet: baseline unavailable — *"])
    notes = lens.report(pytester)["baseline_notes"]
    assert [(n["skill_name"], n["kind"]) for n in notes] == [("greet", "unavailable")]
    assert "not inside a git repository" in notes[0]["reason"]
    result = lens(pytester, "--skill-lens-baseline", "previous", "--skill-lens-min-delta", "0")
    assert result.ret == 1
    reasons = _reasons(pytester)
    assert reasons[0] == (
        "no baseline arm ran, so the pass-rate delta cannot meet the required +0%"
    )
    assert reasons[1].startswith("skill 'greet' has no resolvable baseline: ")


def test_previous_with_no_earlier_version_is_a_note(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one")])
    _repository(pytester.path)  # the working copy is the only version there is
    lens(pytester, "--skill-lens-baseline", "previous")
    notes = lens.report(pytester)["baseline_notes"]
    assert [n["reason"] for n in notes] == [
        "no earlier version of SKILL.md found in the last 50 commits"
    ]
    assert lens.report(pytester)["delta"] is None


def test_a_deselected_skill_costs_no_git_call_and_no_note(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one")])
    _skill(pytester.path, "other", "SAY: PASS", [_case("two")])
    lens(pytester, "--skill-lens-baseline", "previous", "-k", "two")
    notes = lens.report(pytester)["baseline_notes"]
    assert [n["skill_name"] for n in notes] == ["other"]


def test_xdist_gives_the_same_delta_and_gate(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    both = {"kind": "not_contains", "value": "zzz"}
    cases = [_case("c0"), _case("c1", assertions=[both]), _case("c2", mode="offered")]
    _skill(pytester.path, "greet", "SAY: PASS", cases)
    _skill(pytester.path, "other", "SAY: nothing", [_case("d0"), _case("d1")])
    args = (
        "--skill-lens-baseline",
        "none",
        "--skill-lens-min-delta",
        "0.1",
        "--skill-lens-repeat",
        "2",
    )
    plain = lens(pytester, *args)
    serial = lens.report(pytester)
    parallel = lens(pytester, *args, "-n", "2")
    spread = lens.report(pytester)
    assert (plain.ret, parallel.ret) == (1, 1)  # other fails every case: the rate gate
    for key in ("delta", "baseline_notes", "gate"):
        assert spread[key] == serial[key], key
    assert serial["delta"]["comparable_cases"] == 4


def test_markdown_has_the_delta_table(pytester: pytest.Pytester) -> None:
    _setup(pytester)
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one"), _case("two")])
    lens(pytester, "--skill-lens-baseline", "none", "--skill-lens-markdown", "out.md")
    text = (pytester.path / "out.md").read_text(encoding="utf-8")
    assert "### Delta vs baseline (none)" in text
    assert "| all | 2 | 0% | 100% | **+100%** [+7%, +100%] | low | +0 | +$0.0000 | +0ms |" in text


def test_several_runners_get_a_delta_each(pytester: pytest.Pytester) -> None:
    write_file(
        pytester.path / "conftest.py",
        FOLLOWER
        + textwrap.dedent(
            """
            class Stubborn:
                name = "stubborn"

                def run(self, skill, case, workspace):
                    return RunResult(output="PASS")  # whatever the skill says


            def pytest_skill_lens_runners(config):
                return {"follower": lambda c: Follower(), "stubborn": lambda c: Stubborn()}
            """
        ),
    )
    _skill(pytester.path, "greet", "SAY: PASS", [_case("one")])
    both = replace(lens, runner=("follower", "stubborn"))
    result = both(pytester, "--skill-lens-baseline", "none", "--skill-lens-min-delta", "0.5")

    assert result.ret == 1
    runners = {r["runner"]: r["pass_rate_delta"] for r in lens.report(pytester)["delta"]["runners"]}
    assert runners == {"follower": 1.0, "stubborn": 0.0}
    assert _reasons(pytester) == [
        "pass-rate delta under runner 'stubborn' +0% is below the required +50%"
    ]
