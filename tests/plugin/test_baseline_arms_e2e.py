"""Several baseline arms in one run: ``--skill-lens-baseline none,placebo``, side by side.

The runner ``follower`` answers what its skill's instructions say after ``SAY:``; with no
instructions (the ``none`` arm) it answers ``nothing``; with the placebo's neutral text it
answers ``PASS`` for case ``one`` only. So against ``none`` the skill gains +100%, and
against the placebo +50%: the placebo explains half the gain. The pydantic-ai test plays
the same agent from the local scripted server, which tells the arms apart by the system
prompt it is sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from model_server import ScriptedModelServer, text
from runs import LensRun, Report, run_merge
from skillfactory import make_skill, write_file

from pytest_skill_lens.run.models.prompt import NEUTRAL_PROMPT

FOLLOWER = """
import re

from pytest_skill_lens.run.result import RunResult


class Follower:
    name = "follower"

    def run(self, skill, case, workspace):
        said = re.search(r"^SAY: (.+)$", skill.instructions, re.M)
        if said:
            return RunResult(output=said.group(1))
        if not skill.instructions.strip():
            return RunResult(output="nothing")
        return RunResult(output="PASS" if case.name == "one" else "nothing")


def pytest_skill_lens_runners(config):
    return {"follower": lambda context: Follower()}
"""

CASES = [
    {"name": n, "task": f"task {n}", "assertions": [{"kind": "contains", "value": "PASS"}]}
    for n in ("one", "two")
]
ARMS = ("--skill-lens-baseline", "none,placebo")

lens = LensRun(runner="follower", json="out.json", markdown="out.md")


def _suite(pytester: pytest.Pytester) -> None:
    write_file(pytester.path / "conftest.py", FOLLOWER)
    make_skill(pytester.path / "skills", "greet", CASES, body="SAY: PASS\n")


def _arm_row(report: Mapping[str, Any]) -> list[tuple[str, float, float]]:
    (row,) = report["arms"]["rows"]
    return [
        (a["baseline_kind"], a["pass_rate_baseline"], a["pass_rate_delta"]) for a in row["by_arm"]
    ]


def test_two_arms_run_each_case_once_per_arm_and_are_reported_side_by_side(
    pytester: pytest.Pytester,
) -> None:
    _suite(pytester)
    result = lens(pytester, *ARMS, "--skill-lens-min-delta", "0.6", "-v")
    assert result.ret == 1, result.stdout.str()
    # With several arms the arm is in the item's id (one arm keeps `-baseline`).
    result.stdout.fnmatch_lines_random(
        [
            "*one[[]follower[]] PASSED*",
            "*one[[]follower-baseline-none[]] BASELINE FAILED*",
            "*one[[]follower-baseline-placebo[]] BASELINE PASSED*",
            "*two[[]follower-baseline-placebo[]] BASELINE FAILED*",
        ]
    )
    report = lens.report(pytester)
    assert len(report.outcomes) == 6
    assert sorted((o["case_name"], o["arm"], o["baseline_kind"]) for o in report.outcomes) == [
        ("one", "baseline", "none"),
        ("one", "baseline", "placebo"),
        ("one", "candidate", None),
        ("two", "baseline", "none"),
        ("two", "baseline", "placebo"),
        ("two", "candidate", None),
    ]
    assert report["run"]["baseline_kind"] == "none,placebo"
    # The first arm's delta where a one-arm report has it; every arm's under "arms".
    assert report["delta"]["baseline_kind"] == "none"
    arms = report["arms"]
    assert arms["kinds"] == ["none", "placebo"]
    assert [(d["baseline_kind"], d["pass_rate_delta"]) for d in arms["deltas"]] == [
        ("none", 1.0),
        ("placebo", 0.5),
    ]
    assert _arm_row(report) == [("none", 0.0, 1.0), ("placebo", 0.5, 0.5)]
    (row,) = arms["rows"]
    assert (row["skill_name"], row["runner"], row["pass_rate_candidate"]) == (
        "greet",
        "follower",
        1.0,
    )
    assert [a["comparable_cases"] for a in row["by_arm"]] == [2, 2]
    assert row["by_arm"][0]["pass_rate_delta_interval"]["low"] > 0
    # min_delta holds against every arm: none clears +60%, the placebo does not.
    assert report.gate["reasons"] == ["pass-rate delta vs placebo +50% is below the required +60%"]
    result.stdout.fnmatch_lines(
        [
            "Delta vs baseline (none): 2 of 2 case(s) comparable*",
            "Delta vs baseline (placebo): 2 of 2 case(s) comparable*",
            "Baseline arms side by side (candidate - arm, pass-rate delta [95% interval]):",
            "  skill / runner*candidate*vs none*vs placebo",
            "  greet / follower*100%*+100% [[]*[]] (0%)*+50% [[]*[]] (50%)",
            "*min_delta +60% against each baseline arm (none, placebo)*",
        ]
    )
    markdown = (pytester.path / "out.md").read_text(encoding="utf-8")
    assert "| skill | runner | candidate | vs none | vs placebo |" in markdown
    assert "| greet | follower | 100% | +100% [" in markdown
    assert "### Delta vs baseline (placebo)" in markdown


def test_the_arms_come_from_a_list_in_the_config_file_and_one_arm_keeps_its_ids(
    pytester: pytest.Pytester,
) -> None:
    _suite(pytester)
    write_file(pytester.path / "skill-lens.toml", 'baseline = ["none", "placebo"]\n')
    listed = pytester.runpytest("--skill-lens", "skills", "--collect-only", "-q")
    ids = [line.split("::")[-1] for line in listed.outlines if "::" in line]
    assert ids == [
        "one[fake]",
        "one[fake-baseline-none]",
        "one[fake-baseline-placebo]",
        "two[fake]",
        "two[fake-baseline-none]",
        "two[fake-baseline-placebo]",
    ]
    write_file(pytester.path / "skill-lens.toml", 'baseline = ["placebo"]\n')
    listed = pytester.runpytest("--skill-lens", "skills", "--collect-only", "-q")
    ids = [line.split("::")[-1] for line in listed.outlines if "::" in line]
    assert ids == ["one[fake]", "one[fake-baseline]", "two[fake]", "two[fake-baseline]"]


def test_the_fake_runner_wires_two_arms(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "greet", CASES)
    fake = LensRun(json="out.json")
    result = fake(pytester, *ARMS, "--skill-lens-min-pass-rate", "0")
    assert result.ret == 0, result.stdout.str()
    report = fake.report(pytester)
    assert [d["baseline_kind"] for d in report["arms"]["deltas"]] == ["none", "placebo"]
    assert _arm_row(report) == [("none", 0.0, 0.0), ("placebo", 0.0, 0.0)]


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("none,plaecbo", "must name arms from 'none', 'previous' and 'placebo'; 'plaecbo'"),
        ("none,none", "must name each baseline arm once; 'none' is named twice"),
        ("none,", "must name arms from 'none', 'previous' and 'placebo'; '' is none of them"),
    ],
)
def test_an_unknown_or_repeated_arm_on_the_flag_is_exit_2_with_the_fix(
    pytester: pytest.Pytester, given: str, said: str
) -> None:
    _suite(pytester)
    result = lens(pytester, "--skill-lens-baseline", given)
    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            f"*configuration error: --skill-lens-baseline {said}*",
            "*fix: give --skill-lens-baseline another value: it must name *",
        ]
    )
    assert not (pytester.path / "out.json").exists() or not lens.report(pytester).outcomes


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ('["none", "none"]', "must name each baseline arm once; 'none' is named twice"),
        ('["none", "nothing"]', "must name arms from 'none', 'previous' and 'placebo'"),
        ("[]", "must name at least one baseline arm"),
    ],
)
def test_an_unknown_or_repeated_arm_in_the_config_file_is_exit_2_naming_it(
    pytester: pytest.Pytester, value: str, said: str
) -> None:
    _suite(pytester)
    write_file(pytester.path / "skill-lens.toml", f"baseline = {value}\n")
    result = lens(pytester)
    assert result.ret == 2
    result.stderr.fnmatch_lines([f"*skill-lens.toml*baseline {said}*", "*fix: change baseline*"])


def test_shards_of_a_two_arm_run_merge_to_the_whole_run(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    whole = lens(pytester, *ARMS)
    assert whole.ret == 0
    expected = lens.report(pytester)
    for k in (1, 2):
        shard = LensRun(runner="follower", json=f"shard-{k}.json")
        assert shard(pytester, *ARMS, "--skill-lens-shard", f"{k}/2").ret in (0, 1)
    merged = run_merge(pytester, "shard-1.json", "shard-2.json", "--json", "merged.json")
    assert merged.returncode == 0, merged.stderr
    report = Report.read(pytester.path / "merged.json")
    assert report["arms"]["kinds"] == ["none", "placebo"]
    assert _arm_row(report) == _arm_row(expected) == [("none", 0.0, 1.0), ("placebo", 0.5, 0.5)]
    assert [d["pass_rate_delta"] for d in report["arms"]["deltas"]] == [1.0, 0.5]


# --- pydantic-ai against the scripted server --------------------------------------------------


class ArmServer(ScriptedModelServer):
    """Scripts each conversation by ``<arm>|<task>``, the arm read from the system prompt."""

    def task_of(self, body: Mapping[str, Any]) -> str:
        system = " ".join(
            str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "system"
        )
        if "SAY: PASS" in system:
            arm = "candidate"
        elif system.strip() == NEUTRAL_PROMPT:
            arm = "none"
        else:
            arm = "placebo"
        return f"{arm}|{super().task_of(body)}"


@pytest.fixture
def arm_server() -> Iterator[ArmServer]:
    with ArmServer() as running:
        yield running


@pytest.mark.slow
@pytest.mark.usefixtures("openai_key")
def test_pydantic_ai_two_arms_against_the_scripted_server_with_distinct_cassettes(
    pytester: pytest.Pytester, arm_server: ArmServer
) -> None:
    pytest.importorskip("pydantic_ai.models.openai")
    pytest.importorskip("genai_prices")
    make_skill(pytester.path / "skills", "greet", CASES, body="SAY: PASS\n")
    write_file(pytester.path / "skill-lens.toml", "retry_backoff_seconds = 0.0\n")
    for case in ("one", "two"):
        arm_server.script[f"candidate|task {case}"] = [text("PASS")]
        arm_server.script[f"none|task {case}"] = [text("nothing")]
        arm_server.script[f"placebo|task {case}"] = [text("PASS" if case == "one" else "no")]
    served = (
        *("--skill-lens-base-url", arm_server.url),
        *("--skill-lens-model", "openai:gpt-4o-mini"),
    )
    real = LensRun(runner="pydantic-ai", json="out.json")
    result = real(pytester, *ARMS, *served, "--skill-lens-record", "all")
    assert result.ret == 0, result.stdout.str()
    report = real.report(pytester)
    assert _arm_row(report) == [("none", 0.0, 1.0), ("placebo", 0.5, 0.5)]
    tasks = sorted(arm_server.task_of(r.body) for r in arm_server.requests)
    assert tasks == sorted(
        f"{arm}|task {c}" for arm in ("candidate", "none", "placebo") for c in ("one", "two")
    )
    cassettes = sorted(
        path.name for path in (pytester.path / "skills" / "greet").rglob("cassettes/**/*.json")
    )
    assert len(cassettes) == 6 and len(set(cassettes)) == 6
    assert sum(".baseline-placebo." in name for name in cassettes) == 2
    assert sum(".baseline-none." in name for name in cassettes) == 2
    # A replay of the recording answers every arm from its own cassette: nothing is sent.
    sent = len(arm_server.requests)
    again = real(pytester, *ARMS, *served, "--skill-lens-record", "none")
    assert again.ret == 0, again.stdout.str()
    assert len(arm_server.requests) == sent
    assert _arm_row(real.report(pytester)) == _arm_row(report)
    assert all(o["replayed"] for o in real.report(pytester).outcomes)
    assert json.loads((pytester.path / "out.json").read_text())["arms"]["kinds"] == [
        "none",
        "placebo",
    ]


def test_holm_counts_each_arms_decision_in_one_family(pytester: pytest.Pytester) -> None:
    # none: +100% over two cases, p = 0.0140, shown alone at 95%; the placebo: +50%, not
    # shown. Holm over the two asks the first for 0.0125: neither is shown after it.
    _suite(pytester)
    write_file(pytester.path / "skill-lens.toml", 'multiplicity = "holm"\n')
    gate = ("--skill-lens-min-delta", "0", "--skill-lens-min-delta-confidence", "0.95")
    result = lens(pytester, *ARMS, *gate)
    assert result.ret == 1, result.stdout.str()
    report = lens.report(pytester)
    [family] = report["multiplicity"]
    assert [
        (d["arm"], d["runner"], d["raw_holds"], d["adjusted_holds"]) for d in family["decisions"]
    ] == [("none", None, True, False), ("placebo", None, False, False)]
    assert round(family["decisions"][0]["adjusted_p_value"], 4) == 0.028
    reasons = report.gate["reasons"]
    assert reasons[0].startswith("pass-rate delta vs placebo +50% is not shown at 95% confidence")
    assert reasons[1] == (
        "pass-rate delta vs none +100% is shown at 95% confidence alone but not after Holm's "
        "correction over 2 decision(s): p = 0.0140, adjusted p = 0.0280, above 0.0250"
    )
    result.stdout.fnmatch_lines(["  pass-rate delta vs none +100% against +0%: p = 0.0140*"])


def test_an_arm_that_cannot_be_had_is_noted_and_gated_under_its_own_name(
    pytester: pytest.Pytester,
) -> None:
    # No git here: `previous` has no version to run, `none` runs as asked.
    _suite(pytester)
    result = lens(pytester, "--skill-lens-baseline", "none,previous", "--skill-lens-min-delta", "0")
    assert result.ret == 1, result.stdout.str()
    report = lens.report(pytester)
    [note] = report["baseline_notes"]
    assert (note["skill_name"], note["kind"], note["arm"]) == ("greet", "unavailable", "previous")
    assert [d["baseline_kind"] for d in report["arms"]["deltas"]] == ["none"]
    reasons = report.gate["reasons"]
    assert reasons[0] == (
        "no previous baseline arm ran, so the pass-rate delta vs previous cannot meet the "
        "required +0%"
    )
    assert reasons[1].startswith("skill 'greet' has no resolvable previous baseline: ")
    assert len(reasons) == 2  # none clears +0%
    result.stdout.fnmatch_lines(
        [
            "No previous baseline arm ran, so there is no delta against it.",
            "  - greet: baseline previous unavailable — *",
            "  greet / follower*+100% [[]*[]] (0%)*no baseline ran",
        ]
    )


def test_two_arms_under_xdist_agree_with_a_plain_run(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    assert lens(pytester, "--skill-lens-baseline", "none,previous").ret == 0
    plain = lens.report(pytester)
    spread = LensRun(runner="follower", json="out.json")
    assert spread(pytester, "--skill-lens-baseline", "none,previous", "-n", "2").ret == 0
    report = spread.report(pytester)
    assert _arm_row(report) == _arm_row(plain) == [("none", 0.0, 1.0)]
    assert report["baseline_notes"] == plain["baseline_notes"]
    assert [n["arm"] for n in report["baseline_notes"]] == ["previous"]
    assert sorted((o["case_name"], o["baseline_kind"] or "") for o in report.outcomes) == sorted(
        (o["case_name"], o["baseline_kind"] or "") for o in plain.outcomes
    )


def test_several_arms_with_a_minimum_delta_under_auto_ask_each_arm_its_own_question(
    pytester: pytest.Pytester,
) -> None:
    # Each arm's delta is its own question, the candidate paired with that arm alone.
    _suite(pytester)
    result = lens(
        pytester,
        "--skill-lens-baseline",
        "none,placebo",
        "--skill-lens-min-delta",
        "0",
        "--skill-lens-repeat",
        "auto:4",
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    questions = lens.report(pytester)["sequential"]["questions"]
    deltas = [(q["arm"], q["runner"]) for q in questions if q["question"] == "min_delta"]
    assert deltas == [("none", "follower"), ("placebo", "follower")]
    texts = [q["text"] for q in questions if q["question"] == "min_delta"]
    assert "pass-rate delta vs none under runner 'follower'" in texts[0]
    assert "pass-rate delta vs placebo under runner 'follower'" in texts[1]
    # Without a minimum delta the arms run under auto: only pass-rate questions stop them.
    ran = lens(pytester, "--skill-lens-baseline", "none,placebo", "--skill-lens-repeat", "auto:2")
    assert ran.ret in (0, 1), ran.stdout.str() + ran.stderr.str()
    kinds = {o.get("baseline_kind") for o in lens.report(pytester).outcomes}
    assert kinds == {None, "none", "placebo"}
