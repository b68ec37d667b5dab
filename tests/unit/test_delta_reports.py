"""The comparison as the reports show it: terminal lines, JSON data and the Markdown table."""

from __future__ import annotations

from pytest_skill_lens.gate.delta import BaselineNote, build_delta
from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.delta_json import delta_dict
from pytest_skill_lens.report.delta_lines import delta_lines, signed_usd
from pytest_skill_lens.report.delta_markdown import delta_block
from pytest_skill_lens.report.markdown import inline


def run(case: str, arm: Arm, status: Status, *, runner: str = "fake", cost: float = 0.0) -> Outcome:
    return Outcome("greet", case, runner, status, arm=arm, cost_usd=cost)


def record_of(outcomes: list[Outcome], notes: list[BaselineNote] | None = None) -> RunRecord:
    record = RunRecord(outcomes=outcomes, baseline_kind="none", baseline_notes=notes or [])
    record.delta = build_delta(outcomes, baseline_kind="none", notes=record.baseline_notes)
    return record


# Four cases: a improved, b held in both, c regressed, d failed in both.
FOUR = [
    run("a", "candidate", "passed", cost=0.03),
    run("a", "baseline", "failed", cost=0.01),
    run("b", "candidate", "passed", cost=0.03),
    run("b", "baseline", "passed", cost=0.01),
    run("c", "candidate", "failed", cost=0.03),
    run("c", "baseline", "passed", cost=0.01),
    run("d", "candidate", "failed", cost=0.03),
    run("d", "baseline", "failed", cost=0.01),
]


def test_a_single_arm_run_has_no_comparison_block() -> None:
    assert delta_lines(RunRecord(outcomes=[run("a", "candidate", "passed")])) == []
    assert delta_block(RunRecord(), inline) is None
    assert delta_dict(None) is None


def test_a_baseline_asked_for_but_never_run_says_so_with_the_notes() -> None:
    note = BaselineNote("greet", "unavailable", "git is not installed")
    record = record_of([run("a", "candidate", "passed")], [note])
    assert record.delta is None
    assert delta_lines(record) == [
        "No baseline arm ran, so there is no delta.",
        "  - greet: baseline unavailable — git is not installed",
    ]
    assert delta_block(record, inline) == (
        "### No baseline arm ran\n\n- greet: baseline unavailable — git is not installed"
    )


def test_terminal_figures_for_one_improvement_and_one_regression() -> None:
    lines = delta_lines(record_of(FOUR))
    # Both arms pass 2 of 4: delta 0. Wilson 2/4 at 95% is [15%, 85%]; the paired interval
    # has b = c = 1 discordant pair each way, a symmetric [-x, +x].
    assert lines[0] == "Delta vs baseline (none): 4 of 4 case(s) comparable"
    assert lines[1] == (
        "  pass rate  baseline 50% -> candidate 50%  delta +0%   (higher is better)"
    )
    assert lines[2].startswith("  95% intervals: baseline [15%, 85%], candidate [15%, 85%]")
    low, high = lines[2].split("delta [")[1].rstrip("]").split(", ")
    assert low == "-" + high.lstrip("+")  # symmetric
    assert lines[3].startswith("  confidence in the delta: low (newcombe")
    # 0.03 - 0.01 per run, negative is better.
    assert (
        lines[4] == "  per run    tokens +0 | cost +$0.0200 | latency +0ms   (negative is better)"
    )
    assert "    greet :: c (fake)  candidate 0/1  baseline 1/1  -100%" in lines
    assert lines[-1].endswith("they never change the exit code.")


def test_json_carries_reference_fields_then_additive_ones() -> None:
    data = delta_dict(record_of(FOUR).delta)
    assert data is not None
    assert list(data)[:8] == [
        "baseline_kind",
        "comparable_cases",
        "pass_rate_candidate",
        "pass_rate_baseline",
        "pass_rate_delta",
        "tokens_delta",
        "cost_usd_delta",
        "latency_ms_delta",
    ]
    assert data["intervals"]["candidate"]["method"] == "wilson score"
    # Wilson 2/4: centre (2 + 1.96^2/2) / (4 + 1.96^2) = 0.5; half-width
    # 1.96 * sqrt(2 * 2 / 4 + 1.96^2 / 4) / (4 + 1.96^2) * 2 = 0.3500, so [0.1500, 0.8500].
    assert round(data["intervals"]["candidate"]["low"], 4) == 0.1500
    case_a = data["cases"][0]
    assert (case_a["case_name"], case_a["candidate"]["passed"], case_a["baseline"]["passed"]) == (
        "a",
        1,
        0,
    )
    assert case_a["candidate"]["k_estimates"] == []  # one run says nothing of k > 1


def test_markdown_escapes_names_and_lists_each_runner() -> None:
    outcomes = [
        run("x|y", "candidate", "passed", runner="one"),
        run("x|y", "baseline", "failed", runner="one"),
        run("x|y", "candidate", "passed", runner="two"),
        run("x|y", "baseline", "passed", runner="two"),
    ]
    text = delta_block(record_of(outcomes), inline)
    assert text is not None
    assert "| one | 1 | 0% | 100% | **+100%**" in text
    assert "| two | 1 | 100% | 100% | **+0%**" in text
    assert "greet :: x\\|y" in text  # a pipe would have split the table's cell


def test_signed_dollars_put_the_sign_before_the_symbol() -> None:
    assert (signed_usd(0.02), signed_usd(-0.5), signed_usd(0.0)) == (
        "+$0.0200",
        "-$0.5000",
        "+$0.0000",
    )


def test_gate_reasons_are_added_after_the_gates_own() -> None:
    passed = GateResult(True, 0)
    assert passed.adding([]) is passed
    failed = GateResult(False, 1, ("pass rate 50% is below the required 100%",)).adding(["later"])
    assert failed == GateResult(False, 1, ("pass rate 50% is below the required 100%", "later"))
    assert passed.adding(["only"]) == GateResult(False, 1, ("only",))
