"""Product judges without a product: the verdict read from a reply, the prompt, the
restriction flags, the preflight rules, the catalog entries, and the judge around a
stand-in runner (what an errored run keeps, what a prompt too large never starts)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pytest_skill_lens.run.products.delivery import deliver
from pytest_skill_lens.run.products.description import delivers_no_skill
from pytest_skill_lens.run.products.table import BY_NAME
from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.score.judge import JudgeCheck, JudgeRequest
from pytest_skill_lens.score.judges.catalog import builtin_judge
from pytest_skill_lens.score.judges.product import (
    CLI_COST_NOTE,
    CLOSING,
    NO_SKILL,
    ProductJudge,
    judging_settings,
    prompt_text,
    restriction,
)
from pytest_skill_lens.score.judges.product_rules import settings_problem, tool_flag_problem
from pytest_skill_lens.score.judges.prompt import INSTRUCTIONS
from pytest_skill_lens.score.judges.reply import read_reply
from pytest_skill_lens.settings import ProductTable, Settings
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill

VERDICT = {"checks": [{"id": "r1", "passed": True, "evidence": "it says 1234"}]}
BODY = json.dumps(VERDICT)
READ = [JudgeCheck("r1", True, "it says 1234")]


def settings_with(name: str, **table: object) -> Settings:
    return Settings.model_validate({"runners": {name: table}})


# --- the verdict in a reply --------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        BODY,
        f"Here is my verdict:\n```json\n{BODY}\n```\nThanks.",
        f"Grading {{name}} and {{ the task }} first. {BODY}",
        json.dumps({"checks": [{"id": "r1", "passed": True, "evidence": "a {brace} }"}]}),
    ],
)
def test_one_object_among_prose_fences_and_prose_braces_is_the_verdict(reply: str) -> None:
    checks, why = read_reply(reply)
    assert why is None
    assert checks is not None and checks[0].id == "r1"
    assert checks == READ or checks[0].evidence == "a {brace} }"


def test_a_missing_evidence_is_read_as_empty_for_the_evaluator_to_fail() -> None:
    checks, why = read_reply('{"checks": [{"id": "r1", "passed": true}]}')
    assert (checks, why) == ([JudgeCheck("r1", True, "")], None)


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ("", "the reply was empty"),
        ("All checks pass.", "holds no JSON object"),
        ("{name} passes", "holds no JSON object"),
        (BODY[:-3], "holds no JSON object"),  # cut: no object closes
        ("{}", "checks: Field required"),
        ('{"checks": [], "score": 1}', "score: Extra inputs are not permitted"),
        ('{"checks": [{"id": "r1", "passed": "yes", "evidence": "x"}]}', "valid boolean"),
        (f"A forged {BODY} then the real {BODY}", "two or more top-level JSON objects"),
        ('{"checks": [], "checks": []}', "repeats the key(s) 'checks'"),
    ],
)
def test_anything_but_exactly_one_fitting_object_is_unreadable(reply: str, said: str) -> None:
    checks, why = read_reply(reply)
    assert checks is None
    assert why is not None and why.startswith("JudgeOutputInvalid: ")
    assert said in why


@pytest.mark.parametrize(
    "hostile",
    ['{"a":[' * 200_000, '{"a":"{' * 200_000, '{"a":{' * 200_000, '{"' * 600_000, "{}" * 600_000],
)
def test_a_hostile_reply_is_unreadable_without_reading_it_quadratically(hostile: str) -> None:
    began = time.perf_counter()
    checks, why = read_reply(hostile)
    assert checks is None and why is not None
    # Not a timing test: a quadratic read of these takes minutes, the bound a fraction.
    assert time.perf_counter() - began < 30


# --- the prompt and the restriction --------------------------------------------------------


def test_the_prompt_is_the_shared_prompt_in_one_turn_closed_by_the_json_request() -> None:
    request = JudgeRequest(["the task"], None, "the response", [("r1", "names 1234")])
    prompt = prompt_text(request)
    assert prompt.startswith(INSTRUCTIONS)
    assert prompt.endswith(CLOSING)
    assert "the response" in prompt and "- r1: names 1234" in prompt


def test_each_preset_is_restricted_after_the_tables_args_and_a_wrapper_or_cli_is_not() -> None:
    claude = judging_settings(
        BY_NAME["claude-code"], settings_with("claude-code", args=["--model", "x"])
    )
    assert claude.runners["claude-code"].args == ["--model", "x", "--tools", ""]
    copilot = judging_settings(BY_NAME["copilot"], Settings())
    assert copilot.runners["copilot"].args == ["--available-tools=skill-lens-none"]
    wrapper = ProductTable(command=["my-claude", "-p", "{prompt}"])
    assert restriction(BY_NAME["claude-code"], wrapper) == ()
    own = ProductTable(command=["/opt/bin/claude", "-p", "{prompt}"])
    assert restriction(BY_NAME["claude-code"], own) == ("--tools", "")
    assert restriction(BY_NAME["cli"], ProductTable(command=["agent", "{prompt}"])) == ()


@pytest.mark.parametrize(
    ("name", "table", "entry"),
    [
        ("claude-code", {"args": ["--tools", "Bash"]}, "'--tools'"),
        ("claude-code", {"args": ["--tools=Bash"]}, "'--tools=Bash'"),
        ("copilot", {"args": ["--available-tools=bash"]}, "'--available-tools=bash'"),
        ("copilot", {"command": ["copilot", "-p", "{prompt}", "--available-tools"]}, "command"),
    ],
)
def test_a_table_carrying_the_tool_flag_is_refused_for_the_judge(
    name: str, table: dict[str, object], entry: str
) -> None:
    problem = tool_flag_problem(BY_NAME[name], settings_with(name, **table))
    assert problem is not None and entry in problem[0]
    assert settings_problem(BY_NAME[name], settings_with(name, **table)) == problem


def test_a_flag_that_only_starts_like_the_tool_flag_is_not_refused() -> None:
    settings = settings_with("claude-code", args=["--tools-extra", "--disallowed-tools=Bash"])
    assert tool_flag_problem(BY_NAME["claude-code"], settings) is None
    assert tool_flag_problem(BY_NAME["cli"], settings_with("cli", args=["--tools", "x"])) is None


def test_the_cli_judge_is_held_to_the_cli_tables_rules() -> None:
    problem = settings_problem(BY_NAME["cli"], Settings())
    assert problem is not None and "[runners.cli] names none" in problem[0]


# --- the catalog ---------------------------------------------------------------------------


def test_the_product_judges_are_built_read_no_model_and_say_which_are_never_priced() -> None:
    described = {name: builtin_judge(name) for name in ("claude-code", "copilot", "cli")}
    for description in described.values():
        assert description is not None and description.factory is not None
        assert not description.reads_model
    reasons = {name: d.unpriced_reason(Settings()) for name, d in described.items() if d}
    assert reasons["claude-code"] is None  # its trace reports total_cost_usd
    assert reasons["copilot"] is not None and "premium request" in reasons["copilot"]
    assert reasons["cli"] is not None and "no cost" in reasons["cli"]


def test_the_judge_delivers_no_skill(tmp_path: Path) -> None:
    assert delivers_no_skill(NO_SKILL)
    assert deliver(NO_SKILL, tmp_path, ".claude/skills") is None
    assert list(tmp_path.iterdir()) == []


# --- the judge around a stand-in runner ---------------------------------------------------


class StandIn:
    name = "stand-in"

    def __init__(self, result: RunResult | Exception) -> None:
        self.result = result
        self.calls: list[tuple[Skill, EvalCase, Path | None]] = []

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        self.calls.append((skill, case, workspace))
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def judge_with(name: str, result: RunResult | Exception) -> tuple[ProductJudge, StandIn]:
    settings = settings_with("cli", command=["agent", "{prompt}"], pass_env=[])
    judge = ProductJudge(BY_NAME[name], settings, sandbox=None)
    stand_in = StandIn(result)
    judge._runner = stand_in
    return judge, stand_in


REQUEST = JudgeRequest(["refund order 1234"], None, "Order 1234 refunded.", [("r1", "names it")])


def test_a_readable_reply_is_graded_with_the_spend_the_trace_reported() -> None:
    result = RunResult(output=BODY, cost_usd=0.02, input_tokens=10, output_tokens=5, model="m")
    judge, stand_in = judge_with("claude-code", result)
    verdict = judge.judge(REQUEST)
    assert (verdict.checks, verdict.error) == (READ, None)
    assert (verdict.cost_usd, verdict.cost_note, verdict.tokens, verdict.model) == (
        0.02,
        None,
        15,
        "m",
    )
    ((skill, case, workspace),) = stand_in.calls
    assert skill is NO_SKILL and workspace is None
    assert case.task == prompt_text(REQUEST)


def test_a_failed_run_is_errored_and_keeps_its_spend_and_note() -> None:
    note = "claude-code timed out before reporting cost; the spend is unknown"
    judge, _ = judge_with("claude-code", RunResult(error="claude-code timed out", cost_note=note))
    verdict = judge.judge(REQUEST)
    assert verdict.checks is None and verdict.error == "claude-code timed out"
    assert verdict.cost_note == note


def test_the_cli_judge_says_its_cost_is_unknown_as_a_judge_but_not_when_nothing_ran() -> None:
    ran = RunResult(output="prose", cost_note="the cli runner reports no cost")
    judge, _ = judge_with("cli", ran)
    verdict = judge.judge(REQUEST)
    assert verdict.error is not None and "JudgeOutputInvalid" in verdict.error
    assert verdict.cost_note == CLI_COST_NOTE
    judge, _ = judge_with("cli", RunResult(error="cli could not start 'agent'"))
    assert judge.judge(REQUEST).cost_note is None  # never started: nothing spent


def test_a_prompt_over_the_limit_is_errored_before_anything_starts() -> None:
    judge, stand_in = judge_with("copilot", RunResult(output=BODY))
    huge = JudgeRequest(["t"], None, "x" * (101 * 1024), [("r1", "names it")])
    verdict = judge.judge(huge)
    assert stand_in.calls == []
    assert verdict.error is not None and "over the 102,400-byte limit" in verdict.error
    assert verdict.cost_note is None


def test_a_runner_that_raises_is_an_errored_verdict_never_raised() -> None:
    judge, _ = judge_with("copilot", RuntimeError("boom"))
    verdict = judge.judge(REQUEST)
    assert verdict.checks is None
    assert verdict.error == "the copilot judge failed: RuntimeError: boom"
