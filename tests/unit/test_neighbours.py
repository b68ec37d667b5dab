"""Neighbours: resolving ``neighbours:``, offering every skill, and the triggering verdict."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.plugin.outcome_wire import ReportFacts, compact_outcome, outcome_from_wire
from pytest_skill_lens.report.json_read import ReportError, read_report
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.run.result import RunResult, ToolCall
from pytest_skill_lens.run.sessions import merge_results
from pytest_skill_lens.run.tools.skill_tool import offered_tools, skills_triggered
from pytest_skill_lens.score.check import CheckResult
from pytest_skill_lens.score.neighbours import among_neighbours
from pytest_skill_lens.score.trajectory import trajectory_checks
from pytest_skill_lens.suite.loaded import LoadedCase
from pytest_skill_lens.suite.model import EvalCase, ToolSpec, Trajectory
from pytest_skill_lens.suite.neighbours import case_neighbours
from pytest_skill_lens.suite.skill import Skill, load_skill


def write_skill(root: Path, name: str, description: str | None = None) -> Path:
    directory = root / name
    directory.mkdir(parents=True)
    about = f"description: {description}\n" if description is not None else ""
    (directory / "SKILL.md").write_text(f"---\nname: {name}\n{about}---\nDo {name}.\n")
    return directory


def skill_at(directory: Path) -> Skill:
    return load_skill(directory / "SKILL.md")


def loaded(*neighbours: str, tools: list[ToolSpec] | None = None) -> LoadedCase:
    case = EvalCase(
        name="c", task="t", mode="offered", neighbours=list(neighbours), tools=tools or []
    )
    return LoadedCase(case, Path("evals/cases.yaml"), 3, 0, {"neighbours[1]": 5})


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    for name in ("refunds", "shipping", "billing"):
        write_skill(tmp_path, name, f"Handles {name}.")
    return tmp_path


# --- resolving neighbours: at collection, every mistake named -----------------------------------


def test_paths_and_globs_resolve_relative_to_the_skill_and_a_glob_skips_the_skill_itself(
    suite: Path,
) -> None:
    refunds = skill_at(suite / "refunds")

    found, errors = case_neighbours(refunds, loaded("../*"))

    assert errors == []
    assert [s.name for s in found] == ["billing", "shipping"]
    found, errors = case_neighbours(refunds, loaded("../shipping", "../billing/SKILL.md"))
    assert errors == [] and [s.name for s in found] == ["shipping", "billing"]


def test_a_case_without_neighbours_has_none() -> None:
    case = EvalCase(name="c", task="t", mode="offered")
    skill = Skill("refunds", "d", "i", Path("x/SKILL.md"))
    assert case_neighbours(skill, LoadedCase(case, Path("e.yaml"), 1, 0)) == ((), [])


@pytest.mark.parametrize(
    ("entry", "problem", "fix"),
    [
        (".", "is the skill itself", "name only the other skills"),
        ("../nowhere", "matches nothing", "directory holding SKILL.md"),
        ("../plain", "holds no SKILL.md", "a skill's directory"),
        ("/etc", "relative to the skill's directory", "../other-skill"),
        ("", "relative to the skill's directory", "../other-skill"),
    ],
)
def test_a_neighbour_that_is_not_another_skill_is_an_authoring_error_naming_the_entry(
    suite: Path, entry: str, problem: str, fix: str
) -> None:
    (suite / "plain").mkdir()
    refunds = skill_at(suite / "refunds")

    _, errors = case_neighbours(refunds, loaded("../shipping", entry))

    (error,) = errors
    assert problem in error.problem and fix in (error.fix or "")
    assert (error.where.field, error.where.line, error.where.case_name) == ("neighbours[1]", 5, "c")
    assert str(Path("evals/cases.yaml")) in error.message


def test_two_neighbours_of_one_tool_name_and_one_without_a_description_are_refused(
    suite: Path,
) -> None:
    write_skill(suite / "more", "shipping", "Another shipping skill.")
    write_skill(suite, "silent")
    refunds = skill_at(suite / "refunds")

    _, errors = case_neighbours(refunds, loaded("../shipping", "../more/shipping", "../silent"))

    assert len(errors) == 2
    assert "offered as the tool 'shipping', as the skill 'shipping' is" in errors[0].problem
    assert "'silent' has no description" in errors[1].problem
    assert all(e.where.field == "neighbours" for e in errors)


def test_a_case_tool_named_as_a_neighbours_tool_is_refused(suite: Path) -> None:
    refunds = skill_at(suite / "refunds")

    _, errors = case_neighbours(refunds, loaded("../shipping", tools=[ToolSpec(name="shipping")]))

    (error,) = errors
    assert error.where.field == "tools[0].name"
    assert "tool name of the neighbour 'shipping'" in error.problem


# --- offering: one tool per skill, none in a privileged place -----------------------------------


def test_every_offered_skill_is_a_tool_in_the_order_of_its_name(suite: Path) -> None:
    refunds = skill_at(suite / "refunds")
    neighbours = (skill_at(suite / "shipping"), skill_at(suite / "billing"))
    skill = replace(refunds, neighbours=neighbours)
    case = EvalCase(name="c", task="t", mode="offered", neighbours=["../*"])

    tools = offered_tools(skill, case)

    assert [(t.name, t.description) for t in tools] == [
        ("billing", "Handles billing."),
        ("refunds", "Handles refunds."),
        ("shipping", "Handles shipping."),
    ]
    assert tools[2].call({}) == "Do shipping."


def test_skills_triggered_names_each_offered_skill_called_once_in_order(suite: Path) -> None:
    refunds = skill_at(suite / "refunds")
    skill = replace(refunds, neighbours=(skill_at(suite / "shipping"),))
    case = EvalCase(name="c", task="t", mode="offered")
    calls = [ToolCall(n, {}) for n in ("lookup", "shipping", "refunds", "shipping")]

    assert skills_triggered(skill, case, calls) == ["shipping", "refunds"]
    assert skills_triggered(skill, case, []) == []
    assert skills_triggered(skill, EvalCase(name="c", task="t"), calls) is None


def test_sessions_merge_every_sessions_skills_and_an_untold_session_makes_it_untold() -> None:
    told = merge_results(
        [RunResult(skills_triggered=["a"]), RunResult(skills_triggered=["b", "a"])]
    )
    assert told.skills_triggered == ["a", "b"]
    untold = merge_results([RunResult(skills_triggered=["a"]), RunResult()])
    assert untold.skills_triggered is None


# --- the verdict ---------------------------------------------------------------------------------


def verdict(expected: bool, own: bool, triggered: list[str] | None) -> tuple[bool, str]:
    rules = Trajectory(skill_triggered=expected)
    result = RunResult(skill_triggered=own, skills_triggered=triggered)
    (check,) = trajectory_checks(rules, result, None, "refunds")
    return check.passed, check.evidence


def test_a_neighbour_loaded_instead_fails_a_positive_control_naming_it() -> None:
    assert verdict(True, False, ["shipping"]) == (
        False,
        "the agent loaded the neighbour 'shipping' instead; the agent did not load the "
        "skill; expected to load it",
    )


def test_the_intended_skill_passes_a_positive_control_and_the_evidence_names_a_neighbour_too() -> (
    None
):
    assert verdict(True, True, ["refunds"]) == (
        True,
        "the agent loaded the skill; expected to load it",
    )
    assert verdict(True, True, ["shipping", "refunds"]) == (
        True,
        "the agent loaded the skill; expected to load it (it also loaded the neighbour 'shipping')",
    )


def test_a_negative_control_passes_only_when_no_offered_skill_was_loaded() -> None:
    assert verdict(False, False, []) == (
        True,
        "the agent did not load the skill; expected to leave it alone",
    )
    passed, evidence = verdict(False, False, ["shipping", "billing"])
    assert not passed
    assert evidence.startswith("the agent loaded the neighbours 'shipping', 'billing';")


def test_without_skills_triggered_or_a_skill_name_the_check_is_the_skills_own() -> None:
    own = CheckResult("skill_triggered", False, "the agent did not load the skill")
    assert among_neighbours(own, True, RunResult(skills_triggered=None), "refunds") is own
    assert among_neighbours(own, True, RunResult(skills_triggered=["x"]), None) is own
    unreported = CheckResult("skill_triggered", False, "not evaluated: no decision", False)
    assert among_neighbours(unreported, False, RunResult(skills_triggered=["x"]), "r") is unreported


# --- carried whole: across xdist and through the JSON report --------------------------------------


def test_skills_triggered_and_the_expectation_survive_the_xdist_wire_and_the_json_report() -> None:
    outcome = Outcome(
        "refunds",
        "c",
        "pydantic-ai",
        "failed",
        skill_triggered=False,
        skills_triggered=["shipping"],
        trigger_expected=True,
        nodeid="n",
    )
    report = ReportFacts("n", "refunds :: c (pydantic-ai)", "failed")
    data = compact_outcome(outcome, report)
    assert (data["skills_triggered"], data["trigger_expected"]) == (["shipping"], True)
    assert outcome_from_wire(data, report) == outcome
    text = render_json(RunRecord(outcomes=[outcome]), GateResult(False, 1, ("r",)))
    (again,) = read_report(text).outcomes
    assert (again.skills_triggered, again.trigger_expected) == (["shipping"], True)
    listed = '"skills_triggered": ["shipping"]'  # an outcome is one line of the file
    assert listed in text
    with pytest.raises(ReportError, match="skills_triggered"):
        read_report(text.replace(listed, '"skills_triggered": [7]'))


def test_a_product_trace_counts_only_the_skills_skill_lens_delivered_in_the_order_asked() -> None:
    from pytest_skill_lens.run.products.trace import Expect, triggered_skills

    expect = Expect(mode="offered", skill="greet", neighbours=["farewell", "billing"])
    asked = ["pdf", "farewell", None, "greet", "farewell"]  # pdf: the product's own skill
    assert triggered_skills(expect, asked) == ["farewell", "greet"]
    assert triggered_skills(expect, []) == []
    assert triggered_skills(Expect(mode="loaded", skill="greet"), asked) is None
    # An arm without a skill of its own still counts its neighbours.
    assert triggered_skills(Expect(mode="offered", neighbours=["farewell"]), asked) == ["farewell"]


# --- cassettes: a recording made with other neighbours is stale ----------------------------------


def test_the_cassette_key_holds_the_neighbours_and_is_unchanged_without_them(suite: Path) -> None:
    from pytest_skill_lens.run.cassettes.key import runner_parts, stale_parts
    from pytest_skill_lens.settings import Settings

    refunds = skill_at(suite / "refunds")
    case = EvalCase(name="c", task="t", mode="offered")
    alone = runner_parts(refunds, case, "pydantic-ai", Settings(), 0)
    assert "neighbours" not in [p.name for p in alone]  # every existing cassette still fits
    shipping = skill_at(suite / "shipping")
    offered = replace(refunds, neighbours=(shipping,))
    recorded = {
        p.name: p.entry() for p in runner_parts(offered, case, "pydantic-ai", Settings(), 0)
    }
    (suite / "shipping" / "SKILL.md").write_text(
        "---\nname: shipping\ndescription: Ships.\n---\nX\n"
    )
    changed = replace(refunds, neighbours=(skill_at(suite / "shipping"),))
    now = runner_parts(changed, case, "pydantic-ai", Settings(), 0)
    assert stale_parts(recorded, now) == {
        "runner": ["the neighbours offered beside the skill changed"]
    }
    assert stale_parts(recorded, alone) == {
        "runner": ["the neighbours offered beside the skill was removed"]
    }
