from __future__ import annotations

from typing import Any

from pytest_skill_lens.run.result import RunResult, ToolCall
from pytest_skill_lens.score.check import CheckResult, Score, ScoringContext
from pytest_skill_lens.score.trajectory import TrajectoryEvaluator
from pytest_skill_lens.suite.model import EvalCase

CONTEXT = ScoringContext(runner="fake")


def calls(*items: str | tuple[str, dict[str, Any]]) -> list[ToolCall]:
    made = []
    for item in items:
        name, arguments = (item, {}) if isinstance(item, str) else item
        made.append(ToolCall(name, arguments))
    return made


def score(
    trajectory: dict[str, Any] | None,
    tool_calls: list[ToolCall],
    skill_triggered: bool | None = None,
) -> Score:
    data: dict[str, Any] = {"name": "c", "task": "t"}
    if trajectory is not None:
        data["trajectory"] = trajectory
    case = EvalCase.model_validate(data)
    result = RunResult(tool_calls=tool_calls, skill_triggered=skill_triggered)
    return TrajectoryEvaluator().evaluate(case, result, CONTEXT)


def check(result: Score, check_id: str) -> CheckResult:
    found = [c for c in result.checks if c.id == check_id]
    assert len(found) == 1, [c.id for c in result.checks]
    return found[0]


def test_no_trajectory_passes() -> None:
    result = score(None, calls("a"))
    assert (result.evaluator, result.passed, result.detail) == ("trajectory", True, "no trajectory")


def test_called() -> None:
    result = score({"called": ["a", "b"]}, calls("x", "a", "a"))
    a, b = check(result, "called:a"), check(result, "called:b")
    assert a.passed and a.evidence == "a was called 2 times, first as call #2"
    assert not b.passed and b.evidence == "b was never called; calls made: x, a, a"
    assert not result.passed and result.score == 0.5


def test_called_with_no_calls_at_all() -> None:
    missed = check(score({"called": ["a"]}, []), "called:a")
    assert missed.evidence == "a was never called; no tool was called"


def test_forbidden() -> None:
    result = score({"forbidden": ["refund", "delete"]}, calls("lookup", "refund", "refund"))
    refund, delete = check(result, "forbidden:refund"), check(result, "forbidden:delete")
    assert not refund.passed and refund.evidence == "refund was called 2 times (as call #2, #3)"
    assert delete.passed and delete.evidence == "delete was never called"


def test_order_is_a_relative_subsequence() -> None:
    held = check(score({"order": ["a", "b"]}, calls("b", "a", "x", "b")), "order")
    assert held.passed and held.evidence == "called in order: a (call #2), b (call #4)"
    missed = check(score({"order": ["a", "b"]}, calls("b", "a")), "order")
    assert not missed.passed
    assert missed.evidence == (
        "expected a -> b: b was not called after call #2; matched a (call #2); calls made: b, a"
    )
    never = check(score({"order": ["a", "b"]}, calls("b")), "order")
    assert not never.passed and "a was not called at all" in never.evidence


def test_max_calls_counts_every_call() -> None:
    at_limit = check(score({"max_calls": 2}, calls("a", "b")), "max_calls")
    assert at_limit.passed and at_limit.evidence == "2 tool calls, limit is 2"
    over = check(score({"max_calls": 2}, calls("a", "b", "skill_tool")), "max_calls")
    assert not over.passed
    assert over.evidence == "3 tool calls, over the limit of 2; calls made: a, b, skill_tool"


def test_skill_triggered_compares_the_runner_answer() -> None:
    held = score({"skill_triggered": True}, [], skill_triggered=True)
    assert held.passed and not held.errored
    assert (
        check(held, "skill_triggered").evidence == "the agent loaded the skill; expected to load it"
    )
    missed = score({"skill_triggered": False}, [], skill_triggered=True)
    assert not missed.passed and not missed.errored
    assert check(missed, "skill_triggered").evidence == (
        "the agent loaded the skill; expected to leave it alone"
    )


def test_skill_triggered_unreported_is_errored_not_passed() -> None:
    result = score({"skill_triggered": False, "called": ["a"]}, calls("a"), skill_triggered=None)
    assert result.errored and not result.passed
    assert "reported no triggering decision" in result.detail
    assert not check(result, "skill_triggered").passed
    assert check(result, "called:a").passed


def test_call_args_default_needs_one_matching_call() -> None:
    rules = {"call_args": [{"tool": "list", "contains": {"status": "active"}}]}
    held = check(
        score(rules, calls(("list", {"status": "all"}), ("list", {"status": "active"}))),
        "call_args[0]",
    )
    assert (
        held.passed and held.evidence == 'call 2 of 2 to list matches contains {"status": "active"}'
    )
    missed = check(score(rules, calls(("list", {"status": "all", "page": 1}))), "call_args[0]")
    assert not missed.passed
    assert missed.evidence == (
        'no call to list matches contains {"status": "active"} (1 call; '
        '$.status: expected "active" (string), got "all" (string)); '
        'arguments of each call: [{"page": 1, "status": "all"}]'
    )


def test_call_args_every_names_the_first_failing_call() -> None:
    rules = {"call_args": [{"tool": "list", "contains": {"status": "active"}, "every": True}]}
    made = calls(
        ("list", {"status": "active"}), ("other", {}), ("list", {}), ("list", {"status": "x"})
    )
    missed = check(score(rules, made), "call_args[0]")
    assert not missed.passed
    assert missed.evidence.startswith(
        'call 2 of 3 to list does not match contains {"status": "active"}: '
        '$.status: missing (expected "active")'
    )
    assert missed.evidence.endswith(
        'arguments of each call: [{"status": "active"}, {}, {"status": "x"}]'
    )
    good = calls(("list", {"status": "active"}), ("list", {"status": "active", "n": 2}))
    held = check(score(rules, good), "call_args[0]")
    assert held.passed and held.evidence.startswith("all 2 calls to list match")


def test_call_args_never_called_fails_under_both_modes() -> None:
    for every in (False, True):
        rules = {"call_args": [{"tool": "list", "contains": {"a": 1}, "every": every}]}
        missed = check(score(rules, calls("other")), "call_args[0]")
        assert not missed.passed
        assert missed.evidence == "list was never called; calls made: other"


def test_call_args_equals_and_positional_ids() -> None:
    rules = {
        "call_args": [
            {"tool": "reply", "equals": {"thread_id": 42}},
            {"tool": "reply", "contains": {"thread_id": 42}},
            {"tool": "reply", "equals": {}},
        ]
    }
    result = score(rules, calls(("reply", {"thread_id": 42, "body": "hi"})))
    assert [c.id for c in result.checks] == ["call_args[0]", "call_args[1]", "call_args[2]"]
    assert [c.passed for c in result.checks] == [False, True, False]
    assert 'unexpected key "body"' in result.checks[0].evidence


def test_call_args_no_coercion() -> None:
    rules = {"call_args": [{"tool": "get", "contains": {"limit": 1}}]}
    missed = check(score(rules, calls(("get", {"limit": True}))), "call_args[0]")
    assert not missed.passed and "expected 1 (integer), got true (boolean)" in missed.evidence


def test_call_args_raw_arguments_fail_and_show_the_payload() -> None:
    rules = {"call_args": [{"tool": "get", "contains": {"id": "A"}}]}
    missed = check(score(rules, calls(("get", {"_raw": "{'id': 'A'"}))), "call_args[0]")
    assert not missed.passed
    assert "could not parse" in missed.evidence
    assert "[{\"_raw\": \"{'id': 'A'\"}]" in missed.evidence


def test_call_args_evidence_is_cut_at_a_fixed_length() -> None:
    rules = {"call_args": [{"tool": "get", "contains": {"id": "A"}}]}
    long = calls(("get", {"id": "B", "text": "y" * 1000}))
    missed = check(score(rules, long), "call_args[0]")
    line = '[{"id": "B", "text": "' + "y" * 1000 + '"}]'
    assert missed.evidence.endswith(f"... [{len(line) - 300} characters removed]")
    assert line[:300] in missed.evidence


def test_a_full_block_scores_every_check() -> None:
    rules = {
        "called": ["lookup"],
        "forbidden": ["refund"],
        "order": ["lookup"],
        "max_calls": 3,
        "call_args": [{"tool": "lookup", "contains": {"order_id": "1234"}}],
    }
    result = score(rules, calls(("lookup", {"order_id": "1234"})))
    assert [c.id for c in result.checks] == [
        "called:lookup",
        "forbidden:refund",
        "order",
        "max_calls",
        "call_args[0]",
    ]
    assert result.passed and result.score == 1.0
