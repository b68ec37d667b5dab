"""Product judges end to end: the REAL Claude Code and Copilot binaries grade, offline.

The fake runner answers every case (``[fake] <skill> handled: <task>``), and the judge
named in skill-lens.toml grades it: Claude Code and Copilot talk to the scripted
Anthropic server on 127.0.0.1, and ``cli`` is a small Python script. The server answers
the judge by a phrase of the graded task, which the judge prompt quotes. Controls come
in pairs: a verdict that passes is matched by one that fails, a readable reply by an
unreadable one.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import AnthropicServer, text
from product_harness import CLAUDE_TOML, anthropic_as_server, run_skill  # noqa: F401
from product_harness import requests_about as about
from product_scenarios import RUBRIC, judge_score, verdict_text

from pytest_skill_lens.score.judges.product import CLOSING

# slow: starts the real products as judges (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "product_env")]

SKILL = "order-support"
PREMIUM = "copilot bills per premium request, not in dollars"
PROSE = "Grading {name} now."  # the prose before a verdict, its braces as written
PASSING = verdict_text(
    ("r1", True, "'order 1234' is named"), ("r2", True, "'handled' is civil"), prose=PROSE
)
FAILING = verdict_text(
    ("r1", True, "'order 1234' is named"), ("r2", False, "it is curt"), prose=PROSE
)


def case(name: str, task: str) -> dict[str, Any]:
    return {"name": name, "task": task, "judge": {"rubric": RUBRIC}}


def run(
    pytester: pytest.Pytester,
    judge: str,
    cases: Sequence[Mapping[str, Any]],
    *args: str,
    toml: str = "",
    runner: str = "fake",
) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Skill ``order-support`` under ``runner``, graded by ``judge``; the JSON report.

    In-process, refusals at configure time too (tests/conftest.py's ``pytester``).
    """
    return run_skill(pytester, runner, cases, *args, skill=SKILL, toml=f'judge = "{judge}"\n{toml}')


def outcome(report: Mapping[str, Any], name: str) -> dict[str, Any]:
    (found,) = [o for o in report["outcomes"] if o["case_name"] == name]
    return found  # type: ignore[no-any-return]


# --- claude-code -----------------------------------------------------------------------------


def test_claude_code_grades_a_pass_and_a_fail_with_no_tools_and_its_cost_as_overhead(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["refund order 1234"] = [text(PASSING, usage=(10, 5))]
    server.by_content["cancel order 1234"] = [text(FAILING, usage=(10, 5))]
    cases = [case("kind", "refund order 1234"), case("curt", "cancel order 1234")]
    result, report = run(pytester, "claude-code", cases, toml=CLAUDE_TOML)
    assert result.ret == 1, result.stdout.str()
    assert outcome(report, "kind")["status"] == "passed"
    assert outcome(report, "curt")["status"] == "failed"
    curt = judge_score(outcome(report, "curt"))
    checks = [(c["id"], c["passed"], c["evidence"]) for c in curt["checks"]]
    assert checks == [("r1", True, "'order 1234' is named"), ("r2", False, "it is curt")]
    score = judge_score(outcome(report, "kind"))
    # Claude Code's own total_cost_usd is the judge overhead; the fake run spent nothing.
    assert score["cost_usd"] == pytest.approx(0.00014)
    assert score["cost_note"] is None
    assert report["summary"]["judge_cost_usd"] == pytest.approx(0.00028)
    (request,) = about(server, "refund order 1234")
    assert request.body.get("tools", []) == []  # --tools "": nothing to act with
    said = request.task
    assert said.rstrip().endswith(CLOSING)  # one user turn, closed by the JSON request
    assert "[fake] order-support handled: refund order 1234" in said
    assert "/order-support" not in said  # no skill invoked, none delivered
    assert ".claude/skills" not in json.dumps(request.body)


def test_claude_code_judge_and_runner_share_one_table(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    """The same product grades its own runner's output: the judge gets no skill."""
    server.by_content["# Rubric"] = [text(PASSING)]
    server.by_content["refund order 1234"] = [text("Order 1234 is refunded, kindly.")]
    result, report = run(
        pytester,
        "claude-code",
        [case("both", "refund order 1234")],
        toml=CLAUDE_TOML,
        runner="claude-code",
    )
    assert result.ret == 0, result.stdout.str()
    assert outcome(report, "both")["status"] == "passed"
    (graded,) = [r for r in server.requests if "# Rubric" in r.task or "## Rubric" in r.task]
    assert "Order 1234 is refunded, kindly." in graded.task
    assert graded.body.get("tools", []) == []
    assert result.stdout.str().count("product claude-code ") == 1  # both seats, one line


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (PASSING + "\n" + FAILING, "two or more top-level JSON objects"),
        ("Both checks hold.", "holds no JSON object"),
        ('{"checks": [], "score": 1}', "score: Extra inputs are not permitted"),
    ],
)
def test_claude_code_reply_that_is_not_one_verdict_is_errored_never_a_low_score(
    pytester: pytest.Pytester, server: AnthropicServer, reply: str, said: str
) -> None:
    server.by_content["refund order 1234"] = [text(reply)]
    result, report = run(
        pytester, "claude-code", [case("unread", "refund order 1234")], toml=CLAUDE_TOML
    )
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    score = judge_score(outcome(report, "unread"))
    assert score["errored"] is True
    assert score["detail"].startswith("judge failed: JudgeOutputInvalid: ")
    assert said in score["detail"]
    assert score["cost_usd"] == pytest.approx(0.00014)  # what it spent is still overhead


def test_claude_code_timeout_is_errored_and_its_unknown_spend_is_a_note(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["refund order 1234"] = [text(PASSING)]
    toml = CLAUDE_TOML + "timeout_seconds = 0.01\n"
    result, report = run(pytester, "claude-code", [case("slow", "refund order 1234")], toml=toml)
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    score = judge_score(outcome(report, "slow"))
    assert score["errored"] is True
    assert "claude-code timed out after 0.01 s" in score["detail"]
    assert score["cost_note"] == "claude-code timed out before reporting cost; the spend is unknown"
    assert "Judge overhead: not priced" in result.stdout.str()


def test_claude_code_table_giving_tools_back_is_refused_before_any_case(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    toml = CLAUDE_TOML + 'args = ["--tools=Bash"]\n'
    result, _ = run(pytester, "claude-code", [case("any", "refund order 1234")], toml=toml)
    assert result.ret == 2
    assert "[runners.claude-code] args holds '--tools=Bash'" in result.stderr.str()
    assert server.requests == []


def test_a_judge_model_with_a_product_judge_is_refused(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    result, _ = run(
        pytester,
        "claude-code",
        [case("any", "refund order 1234")],
        "--skill-lens-judge-model",
        "openai:gpt-4o-mini",
        toml=CLAUDE_TOML,
    )
    assert result.ret == 2
    assert "--skill-lens-judge-model" in result.stderr.str()


# --- copilot ---------------------------------------------------------------------------------


def test_copilot_grades_a_pass_and_a_fail_with_no_tools_and_premium_requests_noted(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["refund order 1234"] = [text(PASSING)]
    server.by_content["cancel order 1234"] = [text(FAILING)]
    cases = [case("kind", "refund order 1234"), case("curt", "cancel order 1234")]
    result, report = run(pytester, "copilot", cases)
    assert result.ret == 1, result.stdout.str()
    assert outcome(report, "kind")["status"] == "passed"
    assert outcome(report, "curt")["status"] == "failed"
    score = judge_score(outcome(report, "kind"))
    assert score["cost_usd"] == 0
    assert score["cost_note"].startswith(PREMIUM)  # never priced: a count of requests
    (request,) = about(server, "refund order 1234")
    assert request.body.get("tools", []) == []  # --available-tools=skill-lens-none
    assert request.task.rstrip().endswith(CLOSING)


def test_copilot_reply_with_no_verdict_is_errored(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["refund order 1234"] = [text("I would rather not grade this.")]
    result, report = run(pytester, "copilot", [case("unread", "refund order 1234")])
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert "JudgeOutputInvalid" in judge_score(outcome(report, "unread"))["detail"]


def test_copilot_timeout_is_errored(pytester: pytest.Pytester, server: AnthropicServer) -> None:
    server.by_content["refund order 1234"] = [text(PASSING)]
    toml = "[runners.copilot]\ntimeout_seconds = 0.01\n"
    result, report = run(pytester, "copilot", [case("slow", "refund order 1234")], toml=toml)
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    score = judge_score(outcome(report, "slow"))
    assert "copilot timed out after 0.01 s" in score["detail"]
    assert score["cost_note"].startswith(PREMIUM)


def test_a_spend_ceiling_refuses_a_copilot_judge_up_front(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    result, _ = run(
        pytester,
        "copilot",
        [case("any", "refund order 1234")],
        toml="max_spend_usd = 1.0\n",
    )
    assert result.ret == 2
    assert "judge 'copilot' can never be priced" in result.stderr.str()
    assert server.requests == []


# --- cli -------------------------------------------------------------------------------------


def cli_toml(script: Path) -> str:
    command = json.dumps([sys.executable, str(script), "{prompt}"])
    return f"[runners.cli]\ncommand = {command}\npass_env = []\n"


def test_cli_grades_through_a_script_and_an_unreadable_reply_is_errored(
    pytester: pytest.Pytester,
) -> None:
    script = pytester.path / "grader.py"
    script.write_text(
        "import json, os, sys\n"
        "prompt = sys.argv[1]\n"
        "assert os.listdir('.') == [], os.listdir('.')  # an empty directory, no skill\n"
        "if 'cancel order' in prompt:\n"
        "    print('no verdict today')\n"
        "else:\n"
        f"    print({PASSING!r})\n",
        encoding="utf-8",
    )
    cases = [case("kind", "refund order 1234"), case("unread", "cancel order 1234")]
    result, report = run(pytester, "cli", cases, toml=cli_toml(script))
    assert result.ret == 1, result.stdout.str()
    assert outcome(report, "kind")["status"] == "passed"
    assert outcome(report, "unread")["status"] == "errored"
    score = judge_score(outcome(report, "kind"))
    assert score["cost_note"] == (
        "the cli judge reports no cost: what the command spent is not measured"
    )
    assert "Judge overhead: not priced" in result.stdout.str()  # nothing was priced


def test_cli_judge_that_exits_non_zero_is_errored(pytester: pytest.Pytester) -> None:
    script = pytester.path / "grader.py"
    script.write_text("import sys\nsys.exit(3)\n", encoding="utf-8")
    result, report = run(
        pytester, "cli", [case("broken", "refund order 1234")], toml=cli_toml(script)
    )
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert "cli exited with code 3" in judge_score(outcome(report, "broken"))["detail"]


def test_a_judge_whose_executable_is_missing_is_refused_before_any_case(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    toml = '[runners.claude-code]\ncommand = ["no-such-claude", "-p", "{prompt}"]\n'
    result, _ = run(pytester, "claude-code", [case("any", "refund order 1234")], toml=toml)
    assert result.ret == 2
    assert "the claude-code judge needs 'no-such-claude', which is not on PATH" in (
        result.stderr.str() + result.stdout.str()
    )
    assert server.requests == []
