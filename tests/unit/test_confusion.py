"""The triggering confusion matrix, precision, recall and the confused pairs, by hand."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_skill_lens.gate.confusion import NONE, ConfusedPair, confusion, counted
from pytest_skill_lens.perform.outcome import Outcome


def run(skill: str, expected: bool | None, took: list[str] | None, **more: Any) -> Outcome:
    status = more.pop("status", "passed")
    return Outcome(
        skill, "c", "pydantic-ai", status, trigger_expected=expected, skills_triggered=took, **more
    )


SUITE = [
    # Written for refunds: taken by refunds three times (twice with shipping beside it,
    # once called first), by nothing once.
    run("refunds", True, ["refunds"]),
    run("refunds", True, ["refunds", "shipping"]),
    run("refunds", True, ["shipping", "refunds"]),
    run("refunds", True, [], status="failed"),
    # Written for shipping: shipping twice, refunds once.
    run("shipping", True, ["shipping"]),
    run("shipping", True, ["shipping"]),
    run("shipping", True, ["refunds"], status="failed"),
    # Negative controls: nothing twice, billing once.
    run("refunds", False, []),
    run("shipping", False, []),
    run("refunds", False, ["billing"], status="failed"),
    # Said nothing about the choice: left out.
    run("refunds", True, None, status="errored", error="boom"),
    run("refunds", True, ["refunds"], status="errored"),
    run("refunds", True, ["shipping"], arm="baseline"),
    run("refunds", None, ["refunds"]),
    run("refunds", True, None),
]


def test_each_run_lands_in_the_cell_of_what_it_was_written_for_and_what_it_took() -> None:
    # The skill taken is the intended one when it was called at all (the case passes on
    # it), else the first called; each other skill called is also counted, beside it.
    matrix = confusion(SUITE)
    assert matrix is not None
    assert matrix.labels == ("billing", "refunds", "shipping", NONE)
    assert matrix.cells == {
        ("refunds", "refunds"): 3,
        ("refunds", NONE): 1,
        ("shipping", "shipping"): 2,
        ("shipping", "refunds"): 1,
        (NONE, NONE): 2,
        (NONE, "billing"): 1,
    }
    assert matrix.runs == 10
    assert matrix.count("billing", "refunds") == 0
    assert matrix.also == {("refunds", "shipping"): 2}
    assert [counted(o) for o in SUITE[10:]] == [None] * 5


def test_precision_and_recall_per_skill_with_wilson_intervals_computed_by_hand() -> None:
    matrix = confusion(SUITE)
    assert matrix is not None
    rates = {r.skill: r for r in matrix.rates}
    refunds, shipping, billing = rates["refunds"], rates["shipping"], rates["billing"]
    # refunds: 4 runs took it, 3 written for it; 4 written for it, 3 took it.
    assert (refunds.taken, refunds.also, refunds.written, refunds.hits) == (4, 0, 4, 3)
    assert refunds.precision is not None and refunds.recall is not None
    assert refunds.precision.estimate == refunds.recall.estimate == 0.75
    # Wilson at 3/4, z = 1.959964: centre 0.6275, half-width 0.3269.
    assert (refunds.recall.low, refunds.recall.high) == pytest.approx((0.3006, 0.9544), abs=5e-4)
    # shipping took 2 (its own) and was called beside refunds twice: its false positives.
    assert (shipping.taken, shipping.also, shipping.written, shipping.hits) == (2, 2, 3, 2)
    assert shipping.precision is not None and shipping.precision.estimate == 0.5
    # Wilson at 2/4: centre 0.5, half-width 0.3500.
    assert (shipping.precision.low, shipping.precision.high) == pytest.approx(
        (0.1500, 0.8500), abs=5e-4
    )
    # billing took a negative control and was written for nothing: no recall to speak of.
    assert (billing.taken, billing.written, billing.hits, billing.recall) == (1, 0, 0, None)
    assert billing.precision is not None and billing.precision.estimate == 0.0
    assert billing.precision.high == pytest.approx(0.7935, abs=5e-4)  # Wilson at 0/1


def test_the_pairs_that_take_each_others_cases_are_ranked_by_count() -> None:
    more = [run("billing", True, ["shipping"], status="failed")] * 3
    matrix = confusion([*SUITE, *more])
    assert matrix is not None
    assert matrix.pairs == (
        ConfusedPair("billing", "shipping", 3, 0),
        ConfusedPair("shipping", "refunds", 1, 0),
    )
    assert [p.count for p in matrix.pairs] == [3, 1]


def test_no_counted_run_is_no_matrix() -> None:
    assert confusion([]) is None
    assert confusion(SUITE[10:]) is None


# --- the reports ----------------------------------------------------------------------------------


def test_the_terminal_and_markdown_say_the_rates_the_pairs_and_the_grid() -> None:
    from pytest_skill_lens.report.confusion_view import confusion_block, confusion_lines

    matrix = confusion(SUITE)
    lines = confusion_lines(matrix)
    assert lines[0] == "Triggering among neighbours (candidate arm): 10 run(s) over 3 skill(s)"
    assert (
        "  refunds: precision 75% (3/4, 95% interval [30%, 95%]), "
        "recall 75% (3/4, 95% interval [30%, 95%])"
    ) in lines
    assert (
        "  shipping: precision 50% (2/4, 95% interval [15%, 85%]; called beside the skill "
        "taken in 2), recall 67% (2/3, 95% interval [21%, 94%])"
    ) in lines
    assert "  billing: precision 0% (0/1, 95% interval [0%, 79%]), recall none counted" in lines
    assert (
        "    shipping <-> refunds: 1 run(s); refunds took 1 written for shipping, "
        "shipping took 0 written for refunds"
    ) in lines
    assert "  Called beside the skill taken (each a false positive of the skill called):" in lines
    assert "    shipping in 2 run(s) written for refunds" in lines
    head = "  Rows: written for; columns: the skill the agent took (its own when called)"
    grid = lines[lines.index(head) :]
    assert grid[1:] == [
        "              billing  refunds  shipping  none",
        "    billing         0        0         0     0",
        "    refunds         0        3         0     1",
        "    shipping        0        1         2     0",
        "    none            1        0         0     2",
    ]
    block = confusion_block(matrix, lambda text: text.replace("|", "\\|"))
    assert block is not None
    assert "| refunds | 0 | 3 | 0 | 1 |" in block and "- shipping <-> refunds: 1 run(s)" in block
    assert "- shipping in 2 run(s) written for refunds" in block
    assert confusion_lines(None) == [] and confusion_block(None, str) is None


def test_the_json_block_reads_back_strictly() -> None:
    import json

    from pytest_skill_lens.gate.record import GateResult, RunRecord
    from pytest_skill_lens.report.json_fields import ReportError
    from pytest_skill_lens.report.json_read import read_report
    from pytest_skill_lens.report.json_report import render_json

    text = render_json(RunRecord(outcomes=SUITE[:10]), GateResult(False, 1, ("r",)))
    block = json.loads(text)["triggering"]
    assert block["labels"] == ["billing", "refunds", "shipping", "none"]
    assert {"written_for": "none", "took": "billing", "runs": 1} in block["cells"]
    (refunds,) = [s for s in block["skills"] if s["skill_name"] == "refunds"]
    assert (refunds["taken"], refunds["written"], refunds["hits"]) == (4, 4, 3)
    assert refunds["recall"]["estimate"] == 0.75
    (shipping,) = [s for s in block["skills"] if s["skill_name"] == "shipping"]
    assert (shipping["taken"], shipping["also"], shipping["precision"]["estimate"]) == (2, 2, 0.5)
    assert block["also"] == [{"written_for": "refunds", "called": "shipping", "runs": 2}]
    assert block["pairs"] == [
        {
            "first": "shipping",
            "second": "refunds",
            "first_taken_by_second": 1,
            "second_taken_by_first": 0,
            "runs": 1,
        }
    ]
    read_report(text)  # as written, it reads
    data = json.loads(text)
    data["triggering"]["skills"][0]["precision"]["high"] = 1.5
    with pytest.raises(ReportError, match="triggering"):
        read_report(json.dumps(data))
    data = json.loads(text)
    data["triggering"]["also"][0]["runs"] = -1
    with pytest.raises(ReportError, match="triggering"):
        read_report(json.dumps(data))
