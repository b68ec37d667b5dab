"""mode: offered in the pure layers: the prompt, the skill's tool, the decision, the scoring."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.plugin.outcome_wire import ReportFacts, compact_outcome, outcome_from_wire
from pytest_skill_lens.report.excerpt import build_excerpt
from pytest_skill_lens.report.markdown import failure_entry
from pytest_skill_lens.run.fake import FakeRunner
from pytest_skill_lens.run.models.prompt import (
    NEUTRAL_PROMPT,
    OFFERED_PROMPT,
    WORKSPACE_PREAMBLE,
    system_prompt,
)
from pytest_skill_lens.run.result import RunResult, ToolCall
from pytest_skill_lens.run.sessions import merge_results
from pytest_skill_lens.run.tools.skill_tool import offered_tools, skill_tool, skill_triggered
from pytest_skill_lens.run.tools.toolkit import harness_tools
from pytest_skill_lens.run.workspace.workspace import Workspace
from pytest_skill_lens.score.check import ScoringContext
from pytest_skill_lens.score.trajectory import TrajectoryEvaluator
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill

INSTRUCTIONS = "Always look up the order before you answer.\n\nNever promise a refund."
SKILL = Skill(
    "order-support", "Handles refund requests.", INSTRUCTIONS, Path("/s/order-support/SKILL.md")
)
EMPTY = Skill("order-support", "", "", Path("/s/order-support/SKILL.md"), variant="baseline")


def case(**fields: Any) -> EvalCase:
    return EvalCase.model_validate({"name": "c", "task": "t", **fields})


# --- the prompt ----------------------------------------------------------------------------


def test_the_offered_prompt_carries_nothing_of_the_skill() -> None:
    prompt = system_prompt(SKILL, offered=True)
    assert prompt == OFFERED_PROMPT
    for text in ("order-support", "order_support", "refund", "look up"):
        assert text not in prompt.lower()


@pytest.mark.parametrize("skill", [SKILL, EMPTY])
def test_the_workspace_preamble_is_the_same_bytes_loaded_offered_and_neutral(
    skill: Skill,
) -> None:
    loaded = system_prompt(SKILL, workspace=True)
    neutral = system_prompt(EMPTY, workspace=True)
    offered = system_prompt(skill, workspace=True, offered=True)
    assert neutral == f"{NEUTRAL_PROMPT}\n\n{WORKSPACE_PREAMBLE}"
    assert offered == f"{OFFERED_PROMPT}\n\n{WORKSPACE_PREAMBLE}"
    assert loaded == f"{system_prompt(SKILL)}\n\n{WORKSPACE_PREAMBLE}"
    tails = {p[-len(WORKSPACE_PREAMBLE) - 2 :].encode() for p in (loaded, neutral, offered)}
    assert tails == {f"\n\n{WORKSPACE_PREAMBLE}".encode()}


def test_an_offered_prompt_does_not_depend_on_the_skill() -> None:
    # The baseline arm (an emptied skill) and the candidate are prompted alike when offered.
    assert system_prompt(SKILL, offered=True) == system_prompt(EMPTY, offered=True)


# --- the tool ------------------------------------------------------------------------------


def test_the_skill_tool_is_named_described_closed_and_returns_the_instructions() -> None:
    tool = skill_tool(SKILL)
    assert tool.name == "order_support"
    assert tool.description == "Handles refund requests."
    assert tool.schema == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert tool.call({}) == INSTRUCTIONS
    # Arguments a model sends anyway change nothing: the skill is asked for, not queried.
    assert tool.call({"query": "refund"}) == INSTRUCTIONS


@pytest.mark.parametrize(
    ("name", "tool_name"),
    [("café", "caf_"), ("2fa-helper", "skill_2fa_helper"), ("a" * 70, "a" * 64)],
)
def test_the_tool_name_is_the_normalised_skill_name(name: str, tool_name: str) -> None:
    assert skill_tool(Skill(name, "d", "i", Path("/s/SKILL.md"))).name == tool_name


def test_a_loaded_case_is_offered_no_skill_tool() -> None:
    assert offered_tools(SKILL, case()) == []
    assert [t.name for t in offered_tools(SKILL, case(mode="offered"))] == ["order_support"]


def test_harness_tools_put_the_skill_tool_before_the_workspace_tools(tmp_path: Path) -> None:
    offered = case(mode="offered", workspace={})
    settings = Settings()
    assert [t.name for t in harness_tools(SKILL, offered, None, settings)] == ["order_support"]
    workspace = Workspace.attach(tmp_path)
    names = [t.name for t in harness_tools(SKILL, offered, workspace, settings)]
    assert names == ["order_support", "list_files", "read_file", "write_file"]
    loaded = [t.name for t in harness_tools(SKILL, case(workspace={}), workspace, settings)]
    assert loaded == ["list_files", "read_file", "write_file"]


# --- the decision --------------------------------------------------------------------------


def test_triggered_is_read_from_the_recorded_calls() -> None:
    offered = case(mode="offered")
    assert skill_triggered(SKILL, offered, [ToolCall("order_support")]) is True
    assert skill_triggered(SKILL, offered, [ToolCall("lookup"), ToolCall("order_support")])
    assert skill_triggered(SKILL, offered, [ToolCall("lookup")]) is False
    assert skill_triggered(SKILL, offered, []) is False
    # The skill's own name (with its hyphen) is not the tool's name.
    assert skill_triggered(SKILL, offered, [ToolCall("order-support")]) is False
    assert skill_triggered(SKILL, case(), [ToolCall("order_support")]) is None


def test_the_fake_runner_reports_false_when_offered_and_nothing_when_loaded() -> None:
    offered = FakeRunner().run(SKILL, case(mode="offered"), None)
    assert (offered.skill_triggered, offered.tool_calls) == (False, [])
    assert FakeRunner().run(SKILL, case(), None).skill_triggered is None


# --- sessions: every session's own answer --------------------------------------------------


def sessions_case(expected: bool, count: int = 2) -> EvalCase:
    return EvalCase.model_validate(
        {
            "name": "c",
            "sessions": [f"s{n}" for n in range(1, count + 1)],
            "workspace": {},
            "mode": "offered",
            "trajectory": {"skill_triggered": expected},
        }
    )


def evaluate(case_: EvalCase, answers: list[bool | None]) -> Any:
    merged = merge_results([RunResult(skill_triggered=a) for a in answers])
    return TrajectoryEvaluator().evaluate(case_, merged, ScoringContext(runner="fake"))


def test_merge_keeps_each_sessions_answer_and_any_for_the_case() -> None:
    merged = merge_results([RunResult(skill_triggered=True), RunResult(skill_triggered=False)])
    assert merged.skill_triggered is True
    assert merged.skill_triggered_by_session == [True, False]
    assert RunResult().skill_triggered_by_session is None


@pytest.mark.parametrize(
    ("expected", "answers", "passed", "evidence"),
    [
        (
            True,
            [True, False],
            False,
            "session 1 loaded the skill; session 2 did not load it; "
            "expected every session to load it",
        ),
        (
            True,
            [True, True],
            True,
            "session 1 loaded the skill; session 2 loaded the skill; "
            "expected every session to load it",
        ),
        (
            False,
            [False, True],
            False,
            "session 1 did not load it; session 2 loaded the skill; "
            "expected every session to leave it alone",
        ),
        (
            False,
            [False, False],
            True,
            "session 1 did not load it; session 2 did not load it; "
            "expected every session to leave it alone",
        ),
    ],
)
def test_skill_triggered_must_hold_in_every_session(
    expected: bool, answers: list[bool | None], passed: bool, evidence: str
) -> None:
    score = evaluate(sessions_case(expected), answers)
    (check,) = score.checks
    assert (check.id, check.passed, check.evidence) == ("skill_triggered", passed, evidence)
    assert score.passed is passed and not score.errored


def test_a_session_without_an_answer_is_errored_not_passed() -> None:
    score = evaluate(sessions_case(False), [False, None])
    (check,) = score.checks
    assert not check.passed
    assert check.evidence == (
        "not evaluated: in session 2, the runner reported no triggering decision"
    )
    assert score.errored


def test_a_session_that_never_ran_is_not_evaluated() -> None:
    # The token budget ran out after session 1: session 2 has no answer to hold.
    score = evaluate(sessions_case(False, count=3), [False])
    (check,) = score.checks
    assert (check.passed, check.evidence) == (
        False,
        "not evaluated: only 1 of 3 sessions ran (session 1 did not load it)",
    )


# --- the Markdown report -------------------------------------------------------------------


def test_markdown_lists_each_sessions_answer() -> None:
    outcome = Outcome(
        skill_name="order-support",
        case_name="c",
        runner="fake",
        status="failed",
        skill_triggered=True,
        skill_triggered_by_session=[True, False],
    )
    entry = failure_entry(outcome, build_excerpt(outcome, full_output=False), 1)
    assert "Skill triggered by session: 1 yes, 2 no" in entry.splitlines()
    # It crosses to an xdist controller intact.
    nowhere = ReportFacts("", "", "")
    assert outcome_from_wire(compact_outcome(outcome, nowhere), nowhere) == outcome
