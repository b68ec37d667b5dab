"""The plan printed before the first case: its counts and what it may say of spend."""

from __future__ import annotations

from pytest_skill_lens.plugin.plan import PlannedRun, plan_lines, plan_of, runs_from_node_ids


def runs(*budgets: float | None) -> list[PlannedRun]:
    return [PlannedRun("greet", f"c{i // 2}", b) for i, b in enumerate(budgets)]


def test_the_counts_are_an_upper_bound_over_distinct_cases() -> None:
    # Six runs of three cases (two arms each): 2 arms x 1 x 1 x 3 = 6.
    plan = plan_of(runs(*[0.1] * 6), arms=2, repeats=1, runners=1, max_spend_usd=None)
    assert (
        plan_lines(plan)[0]
        == "Plan: up to 2 arm(s) x 1 repeat(s) x 1 runner(s) x 3 case(s) = 6 runs"
    )


def test_budgets_on_every_run_give_an_estimate() -> None:
    plan = plan_of(runs(0.5, 0.5, 0.25, 0.25), arms=2, repeats=1, runners=1, max_spend_usd=None)
    assert plan_lines(plan)[1] == (
        "Spend: about $1.50 if every run keeps to its max_cost_usd budget (judging extra)"
    )


def test_a_run_without_a_budget_and_no_ceiling_is_said_plainly() -> None:
    plan = plan_of(runs(0.5, None, None), arms=1, repeats=1, runners=1, max_spend_usd=None)
    assert plan_lines(plan)[1] == (
        "Spend: no estimate and no ceiling: 2 of 3 run(s) declare no max_cost_usd budget "
        "(set --skill-lens-max-spend to bound it)"
    )


def test_the_ceiling_bounds_it_with_what_is_in_flight() -> None:
    plan = plan_of(runs(None), arms=1, repeats=1, runners=1, max_spend_usd=2.0, processes=4)
    assert plan_lines(plan)[1] == (
        "Spend: at most the $2.00 ceiling, plus what one run per worker (4) in flight may add"
    )


def test_an_xdist_controller_reads_runs_off_node_ids() -> None:
    ids = [
        "skills/greet/SKILL.md::hello[fake]",
        "skills/greet/SKILL.md::hello[fake-baseline]",
        "skills/greet/SKILL.md::bye[fake-r2]",
        "skills/empty/SKILL.md::(no eval cases)",
        "tests/test_x.py::test_y",
    ]
    found = runs_from_node_ids(ids)
    assert [(r.skill_name, r.case_name) for r in found] == [
        ("skills/greet/SKILL.md", "hello"),
        ("skills/greet/SKILL.md", "hello"),
        ("skills/greet/SKILL.md", "bye"),
    ]
    plan = plan_of(found, arms=2, repeats=2, runners=1, max_spend_usd=None, budgets_known=False)
    assert plan.upper_bound == 8
    assert plan_lines(plan)[1] == (
        "Spend: the cases' max_cost_usd budgets are not summed under pytest-xdist"
    )


def test_under_auto_the_plan_says_the_repeats_are_the_most_rounds_and_may_stop_early() -> None:
    plan = plan_of(runs(0.1, 0.1, 0.1), arms=1, repeats=5, runners=1, max_spend_usd=None, auto=True)
    assert plan_lines(plan)[0] == (
        "Plan: up to 1 arm(s) x at most 5 round(s) x 1 runner(s) x 2 case(s) = 10 runs "
        "(--skill-lens-repeat auto:5 may stop a skill early, once its questions are decided; "
        "5 is the most rounds)"
    )
