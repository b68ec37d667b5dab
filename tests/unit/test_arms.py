"""Several baseline arms side by side: each arm paired alone, rows by hand, the gate's words."""

from __future__ import annotations

import pytest

from pytest_skill_lens.gate.arm_rows import ALL, arm_rows
from pytest_skill_lens.gate.arms import DeltaAsk, arm_gate_reasons, arm_kinds, build_deltas
from pytest_skill_lens.gate.delta import BaselineNote, build_delta
from pytest_skill_lens.labels import Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.arms_view import cell_text
from pytest_skill_lens.settings import Settings


def out(skill: str, case: str, status: Status, kind: str | None = None, order: int = 0) -> Outcome:
    arm = "candidate" if kind is None else "baseline"
    return Outcome(skill, case, "fake", status, arm=arm, baseline_kind=kind, order=order)


# greet: candidate passes both cases; none fails both; the placebo passes "one" only.
# audit: candidate passes "x"; none and the placebo fail it.
SUITE = [
    out("greet", "one", "passed", order=0),
    out("greet", "one", "failed", "none", 1),
    out("greet", "one", "passed", "placebo", 2),
    out("greet", "two", "passed", order=3),
    out("greet", "two", "failed", "none", 4),
    out("greet", "two", "failed", "placebo", 5),
    out("audit", "x", "passed", order=6),
    out("audit", "x", "failed", "none", 7),
    out("audit", "x", "failed", "placebo", 8),
]


def test_each_arm_is_paired_with_the_candidate_alone() -> None:
    none, placebo = build_deltas(SUITE, baseline_kind="none,placebo")
    assert (none.baseline_kind, none.comparable_cases, none.pass_rate_delta) == ("none", 3, 1.0)
    assert placebo.baseline_kind == "placebo"
    assert placebo.pass_rate_baseline == pytest.approx(1 / 3)
    assert placebo.pass_rate_delta == pytest.approx(2 / 3)
    # One arm: exactly the one delta a one-arm run has.
    alone = [o for o in SUITE if o.baseline_kind != "placebo"]
    (only,) = build_deltas(alone, baseline_kind="none")
    assert only == build_delta(alone, baseline_kind="none")
    assert arm_kinds("") == () and build_deltas(SUITE, baseline_kind="") == ()


def test_rows_weigh_each_case_once_and_the_all_row_is_each_arms_delta() -> None:
    deltas = build_deltas(SUITE, baseline_kind="none,placebo")
    greet, audit, total = arm_rows(deltas)
    assert (greet.skill_name, greet.runner, greet.pass_rate_candidate) == ("greet", "fake", 1.0)
    assert [(c.baseline_kind, c.comparable_cases) for c in greet.cells] == [
        ("none", 2),
        ("placebo", 2),
    ]
    assert [(c.pass_rate_baseline, c.pass_rate_delta) for c in greet.cells] == [
        (0.0, 1.0),
        (0.5, 0.5),
    ]
    assert [(c.pass_rate_baseline, c.pass_rate_delta) for c in audit.cells] == [
        (0.0, 1.0),
        (0.0, 1.0),
    ]
    assert total.skill_name == ALL
    assert total.cells[1].pass_rate_delta == deltas[1].pass_rate_delta
    # Newcombe over greet's two placebo pairs, (1, 1) and (1, 0): [-27%, +91%].
    assert cell_text(greet.cells[1]) == "+50% [-27%, +91%] (50%)"


def test_the_gate_holds_min_delta_against_every_arm_naming_it() -> None:
    deltas = build_deltas(SUITE, baseline_kind="none,placebo,previous")
    note = BaselineNote("greet", "unavailable", "not inside a git repository", arm="previous")
    reasons = arm_gate_reasons(
        SUITE, "none,placebo,previous", deltas, [note], DeltaAsk(0.8, None, 1.0)
    )
    assert reasons == [
        "pass-rate delta vs placebo +67% is below the required +80%",
        "no previous baseline arm ran, so the pass-rate delta vs previous cannot meet the "
        "required +80%",
        "skill 'greet' has no resolvable previous baseline: not inside a git repository",
    ]
    assert note.text == "greet: baseline previous unavailable — not inside a git repository"


def test_auto_s_decision_against_one_arm_spares_that_arm_s_bar_only() -> None:
    # auto:N decided the delta vs placebo at least +80% (its rounds said so); the
    # fixed-sample +67% is not held to the bar again, and the none arm is still judged.
    deltas = build_deltas(SUITE, baseline_kind="none,placebo")
    ask = DeltaAsk(0.8, None, None, {"placebo": frozenset({"fake"})})
    assert arm_gate_reasons(SUITE, "none,placebo", deltas, [], ask) == []
    ask = DeltaAsk(1.01, None, None, {"placebo": frozenset({"fake"})})
    assert arm_gate_reasons(SUITE, "none,placebo", deltas, [], ask) == [
        "pass-rate delta vs none +100% is below the required +101%"
    ]


def test_one_arm_keeps_its_words() -> None:
    alone = [o for o in SUITE if o.baseline_kind != "none"]
    deltas = build_deltas(alone, baseline_kind="placebo")
    reasons = arm_gate_reasons(alone, "placebo", deltas, [], DeltaAsk(0.8, None, None))
    assert reasons == ["pass-rate delta +67% is below the required +80%"]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (["none", "none"], "must name each baseline arm once; 'none' is named twice"),
        (["none", "nothing"], "'nothing' is none of them"),
        ([], "must name at least one baseline arm"),
        ("sometimes", "must name arms from 'none', 'previous' and 'placebo'"),
    ],
)
def test_the_setting_refuses_unknown_repeated_and_empty_arms(value: object, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        Settings(baseline=value)


def test_the_setting_reads_one_arm_or_several_in_order() -> None:
    assert Settings(baseline="placebo").baselines == ("placebo",)
    several = Settings(baseline=["placebo", "previous", "none"])
    assert several.baselines == ("placebo", "previous", "none")
    assert several.baseline_kind == "placebo,previous,none"
    assert Settings().baselines == ()
