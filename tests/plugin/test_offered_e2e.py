"""mode: offered end to end: the skill offered as a tool over real HTTP, and skill_triggered.

Each framework test runs pytest as a user does against the scripted Chat Completions
server on 127.0.0.1 and asserts on what the server received (the system prompt without
the skill, the skill's tool with its normalised name and description, the instructions
as the tool's result), on ``skill_triggered`` in the outcome and the JSON report, and on
the ``skill_triggered`` check's verdict and evidence. The runners that need no server
(fake, a third-party runner) are tested for what they honestly report.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

# Speed only, as in test_pydantic_ai_e2e.py: imported once here, they stay imported.
pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

from model_server import ScriptedModelServer, failure, text, tool_calls
from runs import LensRun, Report, served_by
from skillfactory import make_skill, scripted_runner_conftest, write_file

from pytest_skill_lens.run.models.prompt import OFFERED_PROMPT, workspace_preamble

SKILL_FRONTMATTER = "name: order-support\ndescription: Handles refund requests.\n"
SKILL_BODY = "Always look up the order before you answer.\n"
INSTRUCTIONS = "# order-support\n\nAlways look up the order before you answer."
CLOSED_EMPTY = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
SKILL_TOOL = {
    "type": "function",
    "function": {
        "name": "order_support",
        "description": "Handles refund requests.",
        "parameters": CLOSED_EMPTY,
    },
}
LOOKUP = {
    "name": "lookup_order",
    "description": "Look up an order by its id",
    "parameters": {"order_id": "string"},
    "returns": '{"id": "1234", "days_since_delivery": 45}',
}
REFUND = "I want a refund for order 1234"
EGYPT = "What's the capital of Egypt?"
FRAMEWORK_RUNNERS = ["pydantic-ai", "langchain"]


def offered(name: str, task: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "mode": "offered", "task": task, **more}


# slow: real agent frameworks against a local server (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("openai_key")]


@pytest.fixture(params=FRAMEWORK_RUNNERS)
def runner(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def write_skill(pytester: pytest.Pytester, cases: Sequence[Mapping[str, Any]]) -> None:
    make_skill(
        pytester.path / "skills",
        "order-support",
        cases,
        frontmatter=SKILL_FRONTMATTER,
        body=SKILL_BODY,
    )
    write_file(pytester.path / "skill-lens.toml", "retry_backoff_seconds = 0.0\n")


def report(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    return Report.read(pytester.path / "report.json").by_case()


def run(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    runner: str,
    cases: Sequence[Mapping[str, Any]],
    script: Mapping[str, Sequence[Mapping[str, Any]]],
    *args: str,
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """Run skill ``order-support`` under ``runner`` against ``server``; outcomes by case."""
    server.script.update({task: list(replies) for task, replies in script.items()})
    write_skill(pytester, cases)
    result = LensRun(runner=runner, json="report.json")(pytester, *served_by(server.url), *args)
    return result, report(pytester)


def checks(outcome: Mapping[str, Any], evaluator: str = "trajectory") -> dict[str, Any]:
    (score,) = [s for s in outcome["scores"] if s["evaluator"] == evaluator]
    return {c["id"]: (c["passed"], c["evidence"]) for c in score["checks"]}


# --- the agent reaches for the skill -----------------------------------------------------------


def test_the_skill_is_a_tool_the_agent_calls_and_then_it_sees_the_instructions(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        offered(
            "reaches for the skill on a refund question",
            REFUND,
            tools=[LOOKUP],
            trajectory={"skill_triggered": True, "called": ["lookup_order"]},
        )
    ]
    script = {
        REFUND: [
            tool_calls([("order_support", "{}")]),
            tool_calls([("lookup_order", '{"order_id": "1234"}')]),
            text("Order 1234 is outside the return window."),
        ]
    }

    result, outcomes = run(pytester, server, runner, cases, script)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)
    outcome = outcomes["reaches for the skill on a refund question"]
    assert outcome["status"] == "passed"
    assert outcome["skill_triggered"] is True
    assert outcome["skill_triggered_by_session"] is None
    assert [c["name"] for c in outcome["tool_calls"]] == ["order_support", "lookup_order"]
    assert checks(outcome)["skill_triggered"] == (
        True,
        "the agent loaded the skill; expected to load it",
    )
    first, second, _ = server.requests
    # The skill is not in the prompt: only that tools exist.
    (system,) = first.messages("system")
    assert system["content"] == OFFERED_PROMPT
    for request in server.requests:
        assert "look up the order" not in json.dumps(request.messages("system"))
    # The case's tool as declared, then the skill's tool: normalised name, frontmatter
    # description, no parameters.
    assert [t["function"]["name"] for t in first.body["tools"]] == [
        "lookup_order",
        "order_support",
    ]
    assert first.body["tools"][1] == SKILL_TOOL
    # Calling it answers with the instructions, verbatim.
    assert second.messages("tool") == [
        {"role": "tool", "tool_call_id": "call_0", "content": INSTRUCTIONS}
    ]


def test_a_positive_control_fails_with_evidence_when_the_agent_leaves_the_skill_alone(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [offered("reaches for the skill", REFUND, trajectory={"skill_triggered": True})]
    script = {REFUND: [text("Please contact support.")]}

    result, outcomes = run(pytester, server, runner, cases, script)

    assert result.ret == 1
    result.assert_outcomes(failed=1)
    outcome = outcomes["reaches for the skill"]
    assert (outcome["status"], outcome["skill_triggered"], outcome["tool_calls"]) == (
        "failed",
        False,
        [],
    )
    assert checks(outcome)["skill_triggered"] == (
        False,
        "the agent did not load the skill; expected to load it",
    )
    result.stdout.fnmatch_lines(["*skill_triggered*did not load the skill; expected to load it*"])


# --- the negative control -----------------------------------------------------------------------


def test_a_negative_control_passes_when_the_skill_is_not_called(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        offered("leaves an unrelated question alone", EGYPT, trajectory={"skill_triggered": False})
    ]
    script = {EGYPT: [text("Cairo.")]}

    result, outcomes = run(pytester, server, runner, cases, script)

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["leaves an unrelated question alone"]
    assert (outcome["status"], outcome["skill_triggered"]) == ("passed", False)
    assert checks(outcome)["skill_triggered"] == (
        True,
        "the agent did not load the skill; expected to leave it alone",
    )
    # Offered and not taken: the tool was there to take.
    (request,) = server.requests
    assert request.body["tools"] == [SKILL_TOOL]


def test_a_negative_control_fails_with_evidence_when_the_skill_is_called(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        offered("leaves an unrelated question alone", EGYPT, trajectory={"skill_triggered": False})
    ]
    script = {EGYPT: [tool_calls([("order_support", "{}")]), text("Cairo.")]}

    result, outcomes = run(pytester, server, runner, cases, script)

    assert result.ret == 1
    result.assert_outcomes(failed=1)
    outcome = outcomes["leaves an unrelated question alone"]
    assert (outcome["status"], outcome["skill_triggered"]) == ("failed", True)
    assert checks(outcome)["skill_triggered"] == (
        False,
        "the agent loaded the skill; expected to leave it alone",
    )
    result.stdout.fnmatch_lines(["*skill_triggered*loaded the skill; expected to leave it alone*"])


# --- the call is a call like any other ---------------------------------------------------------


def test_the_skill_call_counts_toward_max_calls(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        offered(
            "one call only",
            REFUND,
            tools=[LOOKUP],
            trajectory={"skill_triggered": True, "max_calls": 1},
        )
    ]
    script = {
        REFUND: [
            tool_calls([("order_support", "{}")]),
            tool_calls([("lookup_order", '{"order_id": "1234"}')]),
            text("Outside the window."),
        ]
    }

    result, outcomes = run(pytester, server, runner, cases, script)

    assert result.ret == 1
    outcome = outcomes["one call only"]
    assert outcome["status"] == "failed"
    found = checks(outcome)
    assert found["skill_triggered"][0] is True
    assert found["max_calls"] == (
        False,
        "2 tool calls, over the limit of 1; calls made: order_support, lookup_order",
    )


def test_a_retried_attempt_decides_afresh(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    # Attempt 1 reaches for the skill, then the provider fails; attempt 2 (a fresh
    # conversation) answers without it. The result is attempt 2's: not triggered.
    cases = [offered("decides again", EGYPT, trajectory={"skill_triggered": False})]
    script = {EGYPT: [tool_calls([("order_support", "{}")]), failure(500), text("Cairo.")]}

    result, outcomes = run(pytester, server, runner, cases, script)

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["decides again"]
    assert (outcome["status"], outcome["skill_triggered"], outcome["tool_calls"]) == (
        "passed",
        False,
        [],
    )
    assert outcome["retry_cost_usd"] > 0
    assert len(server.requests) == 3
    assert [m["role"] for m in server.requests[2].body["messages"]] == ["system", "user"]


# --- workspace and sessions ---------------------------------------------------------------------


def test_sessions_hold_every_session_to_the_rule_and_report_each_answer(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        {
            "name": "reaches for it every time",
            "mode": "offered",
            "sessions": ["plan the refund", "carry on"],
            "workspace": {},
            "trajectory": {"skill_triggered": True},
        }
    ]
    script = {
        "plan the refund": [tool_calls([("order_support", "{}")]), text("Planned.")],
        "carry on": [text("Done.")],
    }

    result, outcomes = run(
        pytester, server, runner, cases, script, "--skill-lens-markdown", "report.md"
    )

    assert result.ret == 1
    outcome = outcomes["reaches for it every time"]
    assert outcome["status"] == "failed"
    # The report's skill_triggered is "any session"; each session keeps its own answer.
    assert outcome["skill_triggered"] is True
    assert outcome["skill_triggered_by_session"] == [True, False]
    assert checks(outcome)["skill_triggered"] == (
        False,
        "session 1 loaded the skill; session 2 did not load it; expected every session to load it",
    )
    markdown = (pytester.path / "report.md").read_text(encoding="utf-8")
    assert "Skill triggered by session: 1 yes, 2 no" in markdown
    # Every session is offered the skill, beside the workspace tools, with the same
    # preamble appended to the offered prompt.
    for task in ("plan the refund", "carry on"):
        opening = server.for_task(task)[0]
        assert opening.messages("system")[0]["content"] == (
            OFFERED_PROMPT + "\n\n" + workspace_preamble()
        )
        assert [t["function"]["name"] for t in opening.body["tools"]] == [
            "order_support",
            "list_files",
            "read_file",
            "write_file",
        ]


def test_a_negative_control_over_sessions_passes_when_no_session_calls_it(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        {
            "name": "never reaches for it",
            "mode": "offered",
            "sessions": ["what is 2+2?", "and 3+3?"],
            "workspace": {},
            "trajectory": {"skill_triggered": False},
        }
    ]
    script = {"what is 2+2?": [text("4")], "and 3+3?": [text("6")]}

    result, outcomes = run(pytester, server, runner, cases, script)

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["never reaches for it"]
    assert outcome["status"] == "passed"
    assert (outcome["skill_triggered"], outcome["skill_triggered_by_session"]) == (
        False,
        [False, False],
    )


def test_an_agent_that_triggers_the_skill_can_read_its_bundle(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    # The bundle tools are registered in an offered case too, after the skill's tool.
    write_file(
        pytester.path / "skills/order-support/references/policy.md", "Refunds within 30 days."
    )
    cases = [
        offered(
            "reads the policy",
            REFUND,
            workspace={},
            trajectory={"skill_triggered": True, "called": ["read_skill_file"]},
            assertions=[{"kind": "contains", "value": "30 days"}],
        )
    ]
    script = {
        REFUND: [
            tool_calls([("order_support", "{}")]),
            tool_calls([("read_skill_file", '{"path": "references/policy.md"}')]),
            text("Refunds are accepted within 30 days."),
        ]
    }

    result, outcomes = run(pytester, server, runner, cases, script)

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["reads the policy"]
    assert (outcome["status"], outcome["skill_triggered"]) == ("passed", True)
    assert [c["name"] for c in outcome["tool_calls"]] == ["order_support", "read_skill_file"]
    first, _, third = server.requests
    assert [t["function"]["name"] for t in first.body["tools"]] == [
        "order_support",
        "list_files",
        "read_file",
        "write_file",
        "list_skill_files",
        "read_skill_file",
    ]
    assert third.messages("tool")[-1]["content"] == "Refunds within 30 days."


# --- runners without a model --------------------------------------------------------------------


def _run_offline(pytester: pytest.Pytester, runner: str) -> pytest.RunResult:
    return LensRun(runner=runner, json="report.json")(pytester)


def test_the_fake_runner_calls_no_tool_so_it_never_triggers_the_skill(
    pytester: pytest.Pytester,
) -> None:
    cases = [
        offered("positive", REFUND, trajectory={"skill_triggered": True}),
        offered("negative", EGYPT, trajectory={"skill_triggered": False}),
        offered("unchecked", EGYPT),
    ]
    write_skill(pytester, cases)

    result = _run_offline(pytester, "fake")

    result.assert_outcomes(passed=2, failed=1)
    outcomes = report(pytester)
    assert {name: o["skill_triggered"] for name, o in outcomes.items()} == {
        "positive": False,
        "negative": False,
        "unchecked": False,
    }
    assert checks(outcomes["positive"])["skill_triggered"] == (
        False,
        "the agent did not load the skill; expected to load it",
    )
    assert outcomes["unchecked"]["status"] == "passed"


def test_a_runner_that_reports_no_decision_errors_every_offered_case(
    pytester: pytest.Pytester,
) -> None:
    # A third-party runner that never says whether the skill was triggered does not
    # support the mode: a negative control (or a case checking nothing) must not pass.
    cases = [
        offered("negative", EGYPT, trajectory={"skill_triggered": False}),
        offered("unchecked", EGYPT),
        {"name": "loaded", "task": EGYPT},
    ]
    write_skill(pytester, cases)
    step = {"output": "Cairo."}
    write_file(
        pytester.path / "conftest.py",
        scripted_runner_conftest({"negative": step, "unchecked": step, "loaded": step}),
    )

    result = _run_offline(pytester, "scripted")

    result.assert_outcomes(passed=1, errors=2)
    outcomes = report(pytester)
    expected = (
        "runner 'scripted' reported no skill-trigger decision for this mode: offered case "
        "(it does not support mode: offered)"
    )
    for name in ("negative", "unchecked"):
        assert outcomes[name]["status"] == "errored"
        assert outcomes[name]["error"] == expected
        assert outcomes[name]["skill_triggered"] is None
    assert outcomes["loaded"]["status"] == "passed"
    result.stdout.fnmatch_lines(["*reported no skill-trigger decision*"])


def test_a_session_without_a_decision_errors_the_case_naming_the_session(
    pytester: pytest.Pytester,
) -> None:
    cases = [
        {
            "name": "sessions",
            "mode": "offered",
            "sessions": ["one", "two"],
            "workspace": {},
            "trajectory": {"skill_triggered": False},
        }
    ]
    write_skill(pytester, cases)
    script: dict[str, dict[str, Any]] = {
        "sessions/one": {"output": "a", "skill_triggered": False},
        "sessions/two": {"output": "b"},
    }
    write_file(pytester.path / "conftest.py", scripted_runner_conftest(script))

    result = _run_offline(pytester, "scripted")

    result.assert_outcomes(errors=1)
    outcome = report(pytester)["sessions"]
    assert outcome["error"] == (
        "session 2 of 2: runner 'scripted' reported no skill-trigger decision for this "
        "mode: offered case (it does not support mode: offered)"
    )
    assert outcome["skill_triggered_by_session"] == [False, None]


# --- a name the offered tool cannot take -------------------------------------------------------


def test_a_skill_offered_under_a_built_in_tools_name_is_exit_2_before_any_run(
    pytester: pytest.Pytester,
) -> None:
    # read-file is offered as read_file, which a workspace case already has.
    cases = [
        {"name": "loaded is fine", "task": "t", "workspace": {}},
        {"name": "offered without a workspace is fine", "task": "t", "mode": "offered"},
        {"name": "bad", "task": "t", "mode": "offered", "workspace": {}},
    ]
    make_skill(pytester.path / "skills", "read-file", cases)

    result = LensRun(runner="fake")(pytester)

    assert result.ret == 2
    result.stdout.fnmatch_lines(
        [
            "*skills/read-file/evals/cases.yaml:*, case 'bad' (#3 in the file), field 'mode': "
            "the skill is offered as the tool 'read_file', the name of a built-in tool in a "
            "workspace case",
            "*fix: rename the skill, or run this case as mode: loaded",
        ]
    )
    assert "passed" not in result.stdout.str()
