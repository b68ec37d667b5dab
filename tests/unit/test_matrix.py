"""The portability matrix, on worked examples computed by hand.

Each example states its cells, the pass rates and the intervals a reader can redo on
paper: Wilson for a runner's rate (2 of 3 cases: [20.8%, 93.9%]), Newcombe's paired
interval for two runners' difference, both from gate/intervals.py, whose own tests pin
them to the published values.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_skill_lens.gate.intervals import (
    NEWCOMBE,
    WILSON,
    paired_delta_interval,
    wilson_interval,
)
from pytest_skill_lens.gate.matrix import (
    ALL_PAIRS_UP_TO,
    Matrix,
    build_matrix,
    not_evaluated,
)
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.score.check import CheckResult, Score


def run(
    case: str,
    runner: str,
    status: Status,
    *,
    repeat: int = 0,
    arm: Arm = "candidate",
    evidence: str | None = None,
    evaluated: bool = True,
    skill: str = "greet",
) -> Outcome:
    scores: list[Score] = []
    if evidence is not None:  # one failing check with this evidence
        check = CheckResult("max_tokens", False, evidence, evaluated)
        scores = [Score("budget", False, 0.0, "max_tokens not evaluated", (check,))]
    return Outcome(
        skill_name=skill,
        case_name=case,
        runner=runner,
        status=status,
        arm=arm,
        repeat_index=repeat,
        scores=scores,
    )


def matrix_of(
    outcomes: Sequence[Outcome],
    runners: Sequence[str] = ("a", "b"),
    not_run: Sequence[dict[str, object]] = (),
) -> Matrix:
    matrix = build_matrix(outcomes, runners=runners, not_run=not_run)
    assert matrix is not None
    return matrix


def verdicts(matrix: Matrix) -> dict[str, list[str]]:
    return {row.case_name: [cell.verdict for cell in row.cells] for row in matrix.cases}


def test_one_runner_has_no_matrix() -> None:
    outcomes = [run("c1", "a", "passed"), run("c2", "a", "failed")]
    assert build_matrix(outcomes, runners=["a"]) is None
    # Two runners named, but only one produced an outcome: still no matrix.
    assert build_matrix(outcomes, runners=["a", "b"]) is None


def test_three_cases_under_two_runners_worked_by_hand() -> None:
    # c1 passes in both; c2 passes in a and fails in b; c3 fails in both.
    outcomes = [
        run("c1", "a", "passed"),
        run("c1", "b", "passed"),
        run("c2", "a", "passed"),
        run("c2", "b", "failed"),
        run("c3", "a", "failed"),
        run("c3", "b", "failed"),
    ]
    matrix = matrix_of(outcomes)
    assert verdicts(matrix) == {
        "c1": ["passed", "passed"],
        "c2": ["passed", "failed"],
        "c3": ["failed", "failed"],
    }
    a, b = matrix.runners
    assert (a.runner, a.cases, a.passed, a.judged, a.pass_rate) == ("a", 3, 2, 3, 2 / 3)
    assert (b.runner, b.cases, b.passed, b.judged, b.pass_rate) == ("b", 3, 1, 3, 1 / 3)
    # Wilson, 2 of 3 at 95%: centre 0.5731, half-width 0.3655.
    assert a.interval is not None and a.interval.method == WILSON
    assert a.interval.low == pytest.approx(0.2077, abs=1e-4)
    assert a.interval.high == pytest.approx(0.9385, abs=1e-4)
    assert a.interval == wilson_interval(2, 3)
    assert b.interval == wilson_interval(1, 3)
    assert a.confidence == "low"  # wider than 0.4
    (pair,) = matrix.pairs
    assert (pair.first, pair.second, pair.cases) == ("a", "b", 3)
    assert pair.difference == pytest.approx(1 / 3)
    assert (pair.first_only, pair.second_only) == (1, 0)
    # The paired table: both pass 1, a only 1, b only 0, neither 1.
    assert pair.interval == paired_delta_interval([(1.0, 1.0), (1.0, 0.0), (0.0, 0.0)])
    assert pair.interval is not None and pair.interval.method == NEWCOMBE
    assert pair.interval.low < 0 < pair.interval.high  # one divergent case proves nothing
    assert [(r.case_name, r.passed_in, r.failed_in) for r in matrix.divergent] == [
        ("c2", ("a",), ("b",))
    ]
    assert matrix.not_comparable == ()
    assert matrix.pairing == "every pair"


def test_errored_not_evaluated_and_not_run_cells_are_never_a_pass_or_a_fail() -> None:
    outcomes = [
        run("c1", "a", "passed"),
        run("c1", "b", "errored"),
        run("c2", "a", "passed"),
        run("c2", "b", "failed", evidence="token budget not evaluated: ...", evaluated=False),
        run("c3", "a", "failed"),
        run("c4", "a", "passed"),
        run("c4", "b", "failed"),
    ]
    not_run: list[dict[str, object]] = [
        {"skill_name": "greet", "case_name": "c3", "runner": "b", "arm": "candidate"}
    ]
    matrix = matrix_of(outcomes, not_run=not_run)
    assert verdicts(matrix) == {
        "c1": ["passed", "errored"],
        "c2": ["passed", "not_evaluated"],
        "c3": ["failed", "not_run"],
        "c4": ["passed", "failed"],
    }
    a, b = matrix.runners
    assert (a.cases, a.passed, a.judged) == (4, 3, 4)
    # b has one cell with a verdict, a failure: 0 of 1, never 0 of 4.
    assert (b.cases, b.passed, b.judged, b.pass_rate) == (1, 0, 1, 0.0)
    assert (b.errored, b.not_evaluated, b.not_run, b.not_selected) == (1, 1, 1, 0)
    assert b.interval == wilson_interval(0, 1)
    (pair,) = matrix.pairs
    assert pair.cases == 1  # only c4 has a verdict in both
    assert pair.interval == paired_delta_interval([(1.0, 0.0)])
    assert [r.case_name for r in matrix.divergent] == ["c4"]
    assert [
        (r.case_name, [(c.runner, c.verdict) for c in r.unscored]) for r in matrix.not_comparable
    ] == [
        ("c1", [("b", "errored")]),
        ("c2", [("b", "not_evaluated")]),
        ("c3", [("b", "not_run")]),
    ]


def test_a_cell_no_item_ran_for_is_not_selected() -> None:
    # -k "not b" deselected b's item of c2: the cell is shown, empty, and compares nothing.
    outcomes = [run("c1", "a", "passed"), run("c1", "b", "passed"), run("c2", "a", "failed")]
    matrix = matrix_of(outcomes)
    assert verdicts(matrix)["c2"] == ["failed", "not_selected"]
    assert [r.case_name for r in matrix.not_comparable] == ["c2"]
    assert matrix.runners[1].not_selected == 1


def test_repeats_are_one_case_each_and_errored_repeats_are_left_out() -> None:
    # a: c1 3/3, c2 1/3 (mixed). b: c1 2/2 and one errored repeat, c2 0/3.
    outcomes = [
        *(run("c1", "a", "passed", repeat=i) for i in range(3)),
        run("c2", "a", "passed", repeat=0),
        run("c2", "a", "failed", repeat=1),
        run("c2", "a", "failed", repeat=2),
        run("c1", "b", "passed", repeat=0),
        run("c1", "b", "errored", repeat=1),
        run("c1", "b", "passed", repeat=2),
        *(run("c2", "b", "failed", repeat=i) for i in range(3)),
    ]
    matrix = matrix_of(outcomes)
    assert verdicts(matrix) == {"c1": ["passed", "passed"], "c2": ["mixed", "failed"]}
    c1_b = matrix.cases[0].cells[1]
    assert (c1_b.passed, c1_b.judged, c1_b.errored, c1_b.pass_rate) == (2, 2, 1, 1.0)
    a, b = matrix.runners
    # The pooled rate, as the delta's: a passed 4 of 6 scored repetitions, b 2 of 5.
    assert (a.passed, a.judged, a.pass_rate) == (4, 6, 4 / 6)
    assert (b.passed, b.judged, b.pass_rate) == (2, 5, 2 / 5)
    # The interval's unit is the case, entering as its rate: a (1 + 1/3) of 2, b 1 of 2.
    assert a.interval == wilson_interval(1 + 1 / 3, 2)
    assert b.interval == wilson_interval(1.0, 2)
    (pair,) = matrix.pairs
    assert pair.interval == paired_delta_interval([(1.0, 1.0), (1 / 3, 0.0)])
    # A mixed cell is neither a pass nor a fail: c2 does not diverge.
    assert matrix.divergent == ()
    assert matrix.not_comparable == ()


def test_the_baseline_arm_is_left_out() -> None:
    outcomes = [
        run("c1", "a", "passed"),
        run("c1", "b", "passed"),
        run("c1", "a", "failed", arm="baseline"),
        run("c1", "b", "failed", arm="baseline"),
    ]
    matrix = matrix_of(outcomes)
    assert verdicts(matrix) == {"c1": ["passed", "passed"]}
    assert [r.judged for r in matrix.runners] == [1, 1]
    # A baseline item that never ran is no hole in the candidate's grid.
    not_run: list[dict[str, object]] = [
        {"skill_name": "greet", "case_name": "c1", "runner": "b", "arm": "baseline"}
    ]
    assert verdicts(matrix_of(outcomes, not_run=not_run)) == {"c1": ["passed", "passed"]}


def test_every_pair_up_to_five_runners_then_each_against_the_first() -> None:
    names = [f"r{i}" for i in range(ALL_PAIRS_UP_TO)]
    outcomes = [run("c1", name, "passed") for name in names]
    matrix = matrix_of(outcomes, runners=names)
    assert matrix.pairing == "every pair"
    assert len(matrix.pairs) == ALL_PAIRS_UP_TO * (ALL_PAIRS_UP_TO - 1) // 2
    assert [(p.first, p.second) for p in matrix.pairs][:2] == [("r0", "r1"), ("r0", "r2")]
    more = [*names, "r5"]
    matrix = matrix_of([*outcomes, run("c1", "r5", "failed")], runners=more)
    assert matrix.pairing == "against the first"
    assert [(p.first, p.second) for p in matrix.pairs] == [("r0", n) for n in more[1:]]


def test_runners_come_in_the_order_named_and_cases_in_the_planned_order() -> None:
    outcomes = [
        Outcome("s", "second", "b", "passed", order=3),
        Outcome("s", "first", "b", "failed", order=1),
        Outcome("s", "first", "a", "passed", order=0),
        Outcome("s", "second", "a", "passed", order=2),
    ]
    matrix = matrix_of(outcomes, runners=("a", "b"))
    assert [r.runner for r in matrix.runners] == ["a", "b"]
    assert [row.case_name for row in matrix.cases] == ["first", "second"]
    assert matrix_of(list(reversed(outcomes))) == matrix  # the order outcomes arrive in
    # A runner no setting names (a merge of reports without one) comes where first seen.
    assert [r.runner for r in matrix_of(outcomes, runners=()).runners] == ["a", "b"]


def test_a_pair_with_no_case_scored_in_both_has_no_figures() -> None:
    outcomes = [run("c1", "a", "passed"), run("c1", "b", "errored")]
    (pair,) = matrix_of(outcomes).pairs
    assert (pair.cases, pair.difference, pair.interval, pair.confidence) == (0, None, None, "none")
    b = matrix_of(outcomes).runners[1]
    assert (b.cases, b.pass_rate, b.interval, b.confidence) == (0, None, None, "none")


@pytest.mark.parametrize(
    ("evidence", "evaluated", "expected"),
    [
        ("token budget not evaluated: the cli runner reports no usage", False, True),
        ("found report.md; not evaluated: /(a+)+$/ did not finish", False, True),
        ("any words at all", False, True),
        # Words that open as score/'s own do not make a graded check unmeasured.
        ("not evaluated as a greeting: it never says hi", True, False),
        ("token budget not evaluated, says the judge", True, False),
        ("used 900 tokens, limit is 500", True, False),
    ],
)
def test_a_failure_on_unmeasured_checks_only_is_not_evaluated(
    evidence: str, evaluated: bool, expected: bool
) -> None:
    outcome = run("c", "a", "failed", evidence=evidence, evaluated=evaluated)
    assert not_evaluated(outcome) is expected


def test_one_measured_failure_beside_an_unmeasured_one_is_a_failure() -> None:
    unmeasured = CheckResult("max_tokens", False, "token budget not evaluated: no usage", False)
    measured = CheckResult("contains[0]", False, "output does not contain 'hi'")
    outcome = Outcome(
        "greet",
        "c",
        "a",
        "failed",
        scores=[
            Score("budget", False, 0.0, "", (unmeasured,)),
            Score("assertions", False, 0.0, "", (measured,)),
        ],
    )
    assert not not_evaluated(outcome)
    # A failed score with no check to read (a judge's verdict) is a failure too.
    judged = Outcome("greet", "c", "a", "failed", scores=[Score("judge", False, 0.0, "no")])
    assert not not_evaluated(judged)
    assert not not_evaluated(run("c", "a", "passed"))


def test_a_case_that_never_ran_under_one_runner_takes_its_planned_place() -> None:
    outcomes = [
        Outcome("s", "first", "a", "passed", order=0),
        Outcome("s", "first", "b", "passed", order=1),
        Outcome("s", "third", "a", "passed", order=4),
        Outcome("s", "third", "b", "passed", order=5),
    ]
    not_run: list[dict[str, object]] = [
        {"skill_name": "s", "case_name": "second", "runner": r, "arm": "candidate", "order": o}
        for r, o in (("a", 2), ("b", 3))
    ]
    matrix = matrix_of(outcomes, not_run=not_run)
    assert verdicts(matrix) == {
        "first": ["passed", "passed"],
        "second": ["not_run", "not_run"],
        "third": ["passed", "passed"],
    }
    assert [row.case_name for row in matrix.cases] == ["first", "second", "third"]
    assert [r.not_run for r in matrix.runners] == [1, 1]
