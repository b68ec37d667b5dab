"""The spend ceiling end to end: items stop starting once it is reached or blinded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_skill, scripted_runner_conftest, write_file

STOPPED = "not run: the spend ceiling stopped the run"


def _suite(pytester: pytest.Pytester, steps: dict[str, dict[str, Any]]) -> None:
    cases = [
        {"name": name, "task": "t", "assertions": [{"kind": "contains", "value": "ok"}]}
        for name in steps
    ]
    make_skill(pytester.path / "skills", "greet", cases)
    write_file(pytester.path / "conftest.py", scripted_runner_conftest(steps))


lens = LensRun(runner="scripted", json="out.json", options=("-rs",))


def _costing(*costs: float) -> dict[str, dict[str, Any]]:
    return {f"c{i}": {"output": "ok", "cost_usd": cost} for i, cost in enumerate(costs, 1)}


def test_items_stop_starting_once_the_ceiling_is_reached(pytester: pytest.Pytester) -> None:
    _suite(pytester, _costing(0.4, 0.4, 0.4, 0.4))
    result = lens(pytester, "--skill-lens-max-spend", "1")
    # c1 starts at $0, c2 at $0.40, c3 at $0.80 (below $1); c4 would start at $1.20.
    assert result.ret == 1
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines([f"SKIPPED * {STOPPED}"])
    report = lens.report(pytester)
    ceiling = report["spend_ceiling"]
    assert (ceiling["max_spend_usd"], ceiling["unpriced"]) == (1.0, None)
    assert ceiling["spent_usd"] == pytest.approx(1.2)
    assert [(n["case_name"], n["reason"]) for n in report["not_run"]] == [
        ("c4", "the spend ceiling stopped the run")
    ]
    assert report["gate"]["reasons"] == [
        "the spend ceiling of $1.00 was reached ($1.2000 recorded)",
        "1 case(s) did not run: the spend ceiling stopped the run",
    ]
    assert report["summary"]["not_run"] == 1
    result.stdout.fnmatch_lines(["*Spend ceiling: $1.00 ($1.2000 recorded)*"])


def test_a_ceiling_crossed_by_the_last_item_fails_nothing(pytester: pytest.Pytester) -> None:
    _suite(pytester, _costing(0.4, 0.4, 0.4))
    result = lens(pytester, "--skill-lens-max-spend", "1")
    assert result.ret == 0
    result.assert_outcomes(passed=3)
    assert lens.report(pytester)["spend_ceiling"]["spent_usd"] == pytest.approx(1.2)


def test_an_unpriced_outcome_blinds_the_ledger_and_fails_the_gate(
    pytester: pytest.Pytester,
) -> None:
    steps = _costing(0.1, 0.1, 0.1)
    steps["c1"]["cost_note"] = "the provider reported no model name"
    _suite(pytester, steps)
    result = lens(pytester, "--skill-lens-max-spend", "5")
    assert result.ret == 1
    result.assert_outcomes(passed=1, skipped=2)
    assert lens.report(pytester).gate["reasons"] == [
        "the spend ceiling of $5.00 could not be enforced: spend was not priced for "
        "greet :: c1 (scripted): the provider reported no model name",
        "2 case(s) did not run: the spend ceiling stopped the run",
    ]


def test_both_arms_spend_against_one_ceiling(pytester: pytest.Pytester) -> None:
    _suite(pytester, _costing(0.3, 0.3))
    result = lens(pytester, "--skill-lens-max-spend", "1", "--skill-lens-baseline", "none")
    # Planned order: c1, c1 baseline, c2, c2 baseline: the fourth would start at $0.90,
    # below $1, so all four run; $1.20 is recorded.
    assert result.ret == 0
    assert lens.report(pytester)["spend_ceiling"]["spent_usd"] == pytest.approx(1.2)
    result = lens(pytester, "--skill-lens-max-spend", "0.5", "--skill-lens-baseline", "none")
    assert result.ret == 1
    not_run = [(n["case_name"], n["arm"]) for n in lens.report(pytester)["not_run"]]
    assert not_run == [("c2", "candidate"), ("c2", "baseline")]
    # A case the ceiling cut short drops out of the delta, both arms.
    cases = {c["case_name"]: c["exclusion_reason"] for c in lens.report(pytester)["delta"]["cases"]}
    assert cases == {"c1": None, "c2": "the run stopped before every repetition of both arms ran"}


def test_reaching_the_ceiling_exactly_refuses_the_next_item(pytester: pytest.Pytester) -> None:
    _suite(pytester, _costing(0.5, 0.5, 0.5))
    result = lens(pytester, "--skill-lens-max-spend", "1")
    # c3 would start at exactly $1.00: the ceiling is reached, so it does not.
    assert result.ret == 1
    result.assert_outcomes(passed=2, skipped=1)


def test_under_xdist_the_ceiling_holds_across_workers(pytester: pytest.Pytester) -> None:
    steps = _costing(*[0.4] * 8)
    for step in steps.values():
        step["sleep"] = 0.2  # both workers busy at once
    _suite(pytester, steps)
    result = lens(pytester, "--skill-lens-max-spend", "1", "-n", "2")
    assert result.ret == 1
    report = lens.report(pytester)
    ran = len(report["outcomes"])
    # Three items reach $1.20; each of the two workers may start one more that the other's
    # last record had already ruled out: at most one in flight per worker.
    assert 3 <= ran <= 4, ran
    assert len(report["not_run"]) == 8 - ran
    assert report["spend_ceiling"]["spent_usd"] == pytest.approx(0.4 * ran)


def test_a_model_that_can_never_be_priced_is_refused_before_anything_runs(
    pytester: pytest.Pytester,
) -> None:
    _suite(pytester, _costing(0.1))
    result = LensRun(runner="pydantic-ai")(
        pytester,
        "--skill-lens-model",
        "openai:no-such-model-anywhere",
        "--skill-lens-max-spend",
        "1",
    )
    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "*max_spend_usd is set, but the spend of runner 'pydantic-ai' can never be priced: "
            "genai-prices has no price for model 'no-such-model-anywhere'*"
        ]
    )


def test_the_ledger_directory_is_removed_at_the_end(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _suite(pytester, _costing(0.1))
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    isolated = LensRun(runner="scripted", subprocess=True)
    result = isolated(pytester, "--skill-lens-max-spend", "1", "-p", "no:cacheprovider")
    assert result.ret == 0
    assert list(temp.iterdir()) == []


def test_the_plan_comes_before_the_first_case(pytester: pytest.Pytester) -> None:
    _suite(pytester, _costing(0.1, 0.1))
    budget = {"max_cost_usd": 0.5}
    cases = [
        {
            "name": n,
            "task": "t",
            "assertions": [{"kind": "contains", "value": "ok"}],
            "budget": budget,
        }
        for n in ("c1", "c2")
    ]
    make_skill(pytester.path / "skills", "greet", cases)
    result = lens(pytester, "--skill-lens-baseline", "none", "--skill-lens-max-spend", "3")
    lines = result.stdout.lines
    at = lines.index("Plan: up to 2 arm(s) x 1 repeat(s) x 1 runner(s) x 2 case(s) = 4 runs")
    assert lines[at + 1] == (
        "Spend: at most the $3.00 ceiling, plus what one run in flight may add; about $2.00 if "
        "every run keeps to its max_cost_usd budget (judging extra)"
    )
    first_item = next(i for i, line in enumerate(lines) if line.startswith("skills/greet"))
    assert at < first_item


def test_a_fake_run_prints_no_plan(pytester: pytest.Pytester) -> None:
    _suite(pytester, _costing(0.1))
    result = LensRun()(pytester)
    assert not [line for line in result.stdout.lines if line.startswith("Plan:")]
