"""Which rounds the sequential rule reads from a run's outcomes, and what the gate says of it."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_skill_lens.gate.sequential_rounds import (
    decision_text,
    delta_decisions,
    delta_rounds,
    rate_rounds,
    skill_decisions,
)
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome

CASES = ("a", "b", "c", "d", "e")


def run(
    case: str,
    status: Status,
    repeat: int,
    *,
    arm: Arm = "candidate",
    skill: str = "greet",
    runner: str = "fake",
) -> Outcome:
    # The planned order is case-major (case, arm, runner, repeat), as collection makes it.
    order = CASES.index(case) * 100 + (arm == "baseline") * 50 + repeat
    return Outcome(
        skill_name=skill,
        case_name=case,
        runner=runner,
        status=status,
        arm=arm,
        repeat_index=repeat,
        order=order,
    )


def test_rounds_are_repetitions_in_case_order_whatever_the_arrival_order() -> None:
    outcomes = [run(c, "passed" if c != "b" else "failed", r) for r in (1, 0) for c in "cba"]
    assert rate_rounds(outcomes, max_rounds=3) == [["passed", "failed", "passed"]] * 2


def test_the_first_incomplete_round_ends_the_reading() -> None:
    # Round 2 lost case b (the spend ceiling refused it): round 3 is not read either.
    outcomes = [run(c, "passed", r) for r in (0, 1, 2) for c in "ab" if (c, r) != ("b", 1)]
    assert rate_rounds(outcomes, max_rounds=3) == [["passed", "passed"]]


def test_rounds_past_the_maximum_are_not_read() -> None:
    outcomes = [run("a", "passed", r) for r in range(4)]
    assert len(rate_rounds(outcomes, max_rounds=2)) == 2


def test_a_skill_reads_its_own_candidates_only() -> None:
    outcomes = [
        run("a", "passed", 0),
        run("a", "failed", 0, arm="baseline"),
        run("a", "failed", 0, skill="other"),
    ]
    assert rate_rounds(outcomes, max_rounds=2, skill="greet") == [["passed"]]
    assert rate_rounds(outcomes, max_rounds=2) == [["passed", "failed"]]


def test_delta_rounds_pair_the_arms_and_need_both() -> None:
    outcomes = [
        run("a", "passed", 0),
        run("a", "failed", 0, arm="baseline"),
        run("b", "failed", 0),
        run("b", "errored", 0, arm="baseline"),
        run("a", "passed", 1),  # its baseline never ran: round 2 is incomplete
    ]
    assert delta_rounds(outcomes, max_rounds=3) == [[("passed", "failed"), ("failed", "errored")]]


def test_skill_decisions_read_each_skill_against_its_bar() -> None:
    # Five cases passing twice clear 50% (tests/unit/test_sequential.py); five failing
    # miss 80% in round 2: with N = 10 round 1 bets sqrt(5.991465 / 12.5) = 0.69233 and
    # reaches only (1 + 0.8 * 0.69233)^5 = 9.05.
    good = [run(c, "passed", r, skill="good") for r in (0, 1) for c in CASES]
    bad = [run(c, "failed", r, skill="bad") for r in (0, 1) for c in CASES]
    decisions = skill_decisions([*good, *bad], {"good": 0.5, "bad": 0.8}, max_rounds=10)
    assert [(k, d.verdict, d.decided_at) for k, d in decisions.items()] == [
        ("good", "pass", 2),
        ("bad", "fail", 2),
    ]


def test_delta_decisions_are_per_runner_when_several_ran() -> None:
    arms: tuple[tuple[Arm, Status, Status], ...] = (
        ("candidate", "passed", "failed"),
        ("baseline", "failed", "passed"),
    )
    outcomes = [
        run(c, when_better if better else otherwise, r, arm=arm, runner=runner)
        for runner, better in (("fake", True), ("cli", False))
        for r in (0, 1)
        for c in CASES
        for arm, when_better, otherwise in arms
    ]
    decisions = delta_decisions(outcomes, 0.0, max_rounds=6)
    assert {k: d.verdict for k, d in decisions.items()} == {"fake": "pass", "cli": "fail"}
    only_fake = [o for o in outcomes if o.runner == "fake"]
    assert list(delta_decisions(only_fake, 0.0, max_rounds=6)) == [""]


def test_the_gate_words() -> None:
    bad = [run(c, "failed", r, skill="bad") for r in (0, 1) for c in CASES]
    decision = skill_decisions(bad, {"bad": 0.8}, max_rounds=10)["bad"]
    assert decision_text("skill 'bad' pass rate", decision) == (
        "skill 'bad' pass rate is below the required 80%: decided after round 2 "
        "(betting test, alpha 0.05; 0% so far)"
    )
    going = skill_decisions(bad[:5], {"bad": 0.8}, max_rounds=10)["bad"]
    assert decision_text("skill 'bad' pass rate", going) == (
        "skill 'bad' pass rate against 80% not decided yet after 1 round(s) "
        "(betting test, alpha 0.05; 0% so far)"
    )
    half = [run(c, "passed" if c in "ab" else "failed", r) for r in (0, 1) for c in "abcd"]
    undecided = skill_decisions(half, {"greet": 0.5}, max_rounds=2)["greet"]
    assert decision_text("skill 'greet' pass rate", undecided) == (
        "skill 'greet' pass rate against 50% undecided after 2 round(s) "
        "(betting test, alpha 0.05; 50% so far); the gate read the fixed-sample figure"
    )
    delta = delta_decisions(
        [
            run(c, "passed", r, arm=a) if a == "candidate" else run(c, "failed", r, arm=a)
            for r in (0, 1)
            for c in CASES
            for a in ("candidate", "baseline")
        ],
        0.0,
        max_rounds=6,
    )[""]
    assert decision_text("pass-rate delta", delta, delta=True) == (
        "pass-rate delta is at least +0%: decided after round 2 "
        "(betting test, alpha 0.05; +100% so far)"
    )


def test_pairs_of_several_baseline_arms_are_refused_not_silently_one_taken() -> None:
    outcomes = [
        run("a", "passed", 0),
        dataclasses.replace(run("a", "failed", 0, arm="baseline"), baseline_kind="none"),
        dataclasses.replace(run("a", "passed", 0, arm="baseline"), baseline_kind="placebo"),
    ]
    with pytest.raises(ValueError, match="one baseline arm"):
        delta_rounds(outcomes, max_rounds=3)
    one = [o for o in outcomes if o.baseline_kind != "placebo"]
    assert delta_rounds(one, max_rounds=3) == [[("passed", "failed")]]
