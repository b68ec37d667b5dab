"""auto:N's questions per skill, its early stop, and the gate's reading of them (pure)."""

from __future__ import annotations

from pytest_skill_lens.gate.judging import judge_record
from pytest_skill_lens.gate.record import GateSettings, RunRecord, RunSettings
from pytest_skill_lens.gate.sequential_gate import (
    complete,
    record_decisions,
    skill_questions,
    stop_reason,
)
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome

CASES = ("a", "b", "c", "d")


def run(
    case: str, status: Status, repeat: int, *, skill: str = "greet", arm: Arm = "candidate"
) -> Outcome:
    order = repeat * 100 + CASES.index(case) * 2 + (arm == "baseline")  # round-major, as auto
    return Outcome(
        skill_name=skill,
        case_name=case,
        runner="fake",
        status=status,
        arm=arm,
        repeat_index=repeat,
        order=order,
    )


def rounds(
    statuses: dict[str, Status], count: int, skill: str = "greet", arm: Arm = "candidate"
) -> list[Outcome]:
    return [run(c, s, r, skill=skill, arm=arm) for r in range(count) for c, s in statuses.items()]


def planned(
    *cases: str, skill: str = "greet", arms: tuple[str, ...] = ("candidate",)
) -> set[tuple[str, str, str, str]]:
    return {(skill, case, "fake", arm) for case in cases for arm in arms}


ALL_PASS: dict[str, Status] = dict.fromkeys(CASES, "passed")
ALL_FAIL: dict[str, Status] = dict.fromkeys(CASES, "failed")


def test_a_round_in_flight_is_no_evidence() -> None:
    # Round 1 has three of four cases (d still running): only round 0 is read.
    outcomes = rounds(ALL_PASS, 1) + [run(c, "passed", 1) for c in "abc"]
    kept = complete(outcomes, planned(*CASES))
    assert {o.repeat_index for o in kept} == {0}
    # Without the plan, three cases could pass for a whole round: the plan says four.
    assert complete(outcomes, planned("a", "b", "c")) != kept


def test_a_skill_stops_once_its_own_bar_and_its_share_are_settled() -> None:
    gate = GateSettings(min_pass_rate=0.5, per_skill_min={"greet": 0.7})
    expected = planned(*CASES)
    two = skill_questions(rounds(ALL_PASS, 2), "greet", gate, max_rounds=6, expected=expected)
    assert [q.decision.verdict for q in two] == ["continue", "pass"]  # 70%: not yet
    assert stop_reason(two, 6) is None
    three = skill_questions(rounds(ALL_PASS, 3), "greet", gate, max_rounds=6, expected=expected)
    assert [q.decision.verdict for q in three] == ["pass", "pass"]
    assert stop_reason(three, 6) == (
        "stopped early: decided pass after round 3 of 6 (betting test, alpha 0.05)"
    )


def test_a_share_decided_fail_settles_nothing_but_a_failed_own_bar_stops_at_once() -> None:
    expected = planned(*CASES)
    pooled_only = GateSettings(min_pass_rate=0.5)
    failing = skill_questions(
        rounds(ALL_FAIL, 4), "greet", pooled_only, max_rounds=6, expected=expected
    )
    assert [q.decision.verdict for q in failing] == ["fail"]
    assert stop_reason(failing, 6) is None  # the pool may still pass: the skill runs on
    own = GateSettings(min_pass_rate=0.5, per_skill_min={"greet": 0.5})
    decided = skill_questions(rounds(ALL_FAIL, 2), "greet", own, max_rounds=6, expected=expected)
    assert stop_reason(decided, 6) == (
        "stopped early: decided fail after round 2 of 6 (betting test, alpha 0.05)"
    )


def test_the_default_bar_of_100_percent_never_stops_a_passing_skill() -> None:
    questions = skill_questions(
        rounds(ALL_PASS, 6), "greet", GateSettings(), max_rounds=6, expected=planned(*CASES)
    )
    assert [q.decision.verdict for q in questions] == ["undecided"]
    assert stop_reason(questions, 6) is None


def test_the_delta_share_pairs_only_cases_with_both_arms() -> None:
    gate = GateSettings(min_pass_rate=0.0, min_delta=0.0)
    outcomes = rounds(ALL_PASS, 3) + rounds(ALL_FAIL, 3, arm="baseline")
    both = planned(*CASES, arms=("candidate", "baseline"))
    questions = skill_questions(outcomes, "greet", gate, max_rounds=6, expected=both)
    delta = [q for q in questions if q.question == "min_delta"]
    assert [(q.runner, q.decision.verdict) for q in delta] == [("fake", "pass")]
    assert delta[0].bounds[0] > 0.0  # on the delta's own scale
    # No baseline planned for the skill: no delta share to wait for.
    alone = skill_questions(
        rounds(ALL_PASS, 3), "greet", gate, max_rounds=6, expected=planned(*CASES)
    )
    assert [q.question for q in alone] == ["min_pass_rate"]


def judged(outcomes: list[Outcome], gate: GateSettings, *, auto: bool = True) -> tuple[str, ...]:
    record = RunRecord(outcomes=outcomes, run=RunSettings(gate=gate, repeat=6, repeat_auto=auto))
    return judge_record(record, gate)[1].reasons


def test_the_gate_reads_a_decided_fail_as_the_reason_with_its_round() -> None:
    gate = GateSettings(min_pass_rate=0.0, per_skill_min={"greet": 0.5})
    assert judged(rounds(ALL_FAIL, 2), gate) == (
        "skill 'greet' pass rate is below the required 50%: decided after round 2 "
        "(betting test, alpha 0.05; 0% so far)",
    )
    # A fixed count reads the same outcomes by the fixed-sample rule.
    assert judged(rounds(ALL_FAIL, 2), gate, auto=False) == (
        "skill 'greet' pass rate 0% is below its required 50%",
    )


def test_a_decided_pass_adds_no_reason_and_an_undecided_one_falls_back() -> None:
    coin: dict[str, Status] = {"a": "passed", "b": "failed"}
    gate = GateSettings(min_pass_rate=0.0, per_skill_min={"greet": 0.7, "coin": 0.6})
    outcomes = rounds(ALL_PASS, 3) + rounds(coin, 6, skill="coin")
    record = RunRecord(outcomes=outcomes, run=RunSettings(gate=gate, repeat=6, repeat_auto=True))
    judged_record, verdict = judge_record(record, gate)
    # coin is undecided: the fixed-sample rule reads its 50% against 60%.
    assert verdict.reasons == ("skill 'coin' pass rate 50% is below its required 60%",)
    assert judged_record.sequential is not None
    by_skill = {
        q.skill_name: q.decision.verdict
        for q in judged_record.sequential.questions
        if q.question == "per_skill_min"
    }
    assert by_skill == {"greet": "pass", "coin": "undecided"}


def test_the_pooled_rate_is_decided_only_when_every_share_passed() -> None:
    gate = GateSettings(min_pass_rate=0.6)
    mixed: dict[str, Status] = {"a": "passed", "b": "passed", "c": "passed", "d": "failed"}
    # greet passes its share; other, at 75% with too few rounds, does not yet.
    outcomes = rounds(ALL_PASS, 6) + rounds(mixed, 2, skill="other")
    decisions = record_decisions(outcomes, [], gate, 6)
    shares = {q.skill_name: q.decision.verdict for q in decisions.questions}
    assert shares == {"greet": "pass", "other": "continue"}
    # Undecided pool: the fixed-sample figure (30 of 32, 94%) stands, and meets 60%.
    assert judged(outcomes, gate) == ()
    # Every share decided pass: the pool is decided, whatever the fixed figure says.
    decided = record_decisions(rounds(ALL_PASS, 6), [], gate, 6)
    assert [q.decision.verdict for q in decided.questions] == ["pass"]


def test_a_round_the_ceiling_cut_is_not_evidence_after_the_run() -> None:
    gate = GateSettings(min_pass_rate=0.0, per_skill_min={"greet": 0.5})
    # Round 1 lost case d to the spend ceiling: only round 0 is read, which decides nothing.
    outcomes = rounds(ALL_FAIL, 1) + [run(c, "failed", 1) for c in "abc"]
    cut = [{"skill_name": "greet", "case_name": "d", "runner": "fake", "arm": "candidate"}]
    decisions = record_decisions(outcomes, cut, gate, 6)
    assert decisions.questions[0].decision.rounds == 1
    assert decisions.questions[0].decision.verdict == "continue"
