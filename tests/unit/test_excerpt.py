from __future__ import annotations

from typing import Any

from pytest_skill_lens.labels import Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.excerpt import (
    build_excerpt,
    cut_output,
    failure_lines,
    render_call,
    render_hook,
)
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score


def outcome(status: Status = "failed", **fields: Any) -> Outcome:
    return Outcome(skill_name="greet", case_name="hello", runner="fake", status=status, **fields)


ASSERTIONS = Score(
    "assertions",
    False,
    0.5,
    "1/2 checks held; failed: contains[0]",
    (
        CheckResult("contains[0]", False, "output does not contain 'hi'"),
        CheckResult("regex[0]", True, "matched"),
    ),
)


def test_failed_case_shows_failing_scores_and_failed_checks_only() -> None:
    budget_ok = Score("budget", True, 1.0, "all limits held")
    silent = Score("judge", False, 0.0, "0/1 checks held", (CheckResult("rubric[0]", False, ""),))
    result = outcome(scores=[ASSERTIONS, budget_ok, silent], output="hello there")
    assert failure_lines(result, False) == [
        "assertions: 1/2 checks held; failed: contains[0]",
        "  contains[0]: output does not contain 'hi'",
        "judge: 0/1 checks held",
        "  rubric[0]: no evidence given",
        "output: hello there",
    ]


def test_errored_case_puts_the_error_first() -> None:
    result = outcome("errored", error="RuntimeError: provider said 500", output="")
    assert failure_lines(result, False) == [
        "error: RuntimeError: provider said 500",
        "output: (empty)",
    ]


def test_errored_scores_come_before_failed_ones() -> None:
    judge = Score("judge", False, 0.0, "verdict did not match the rubric", errored=True)
    result = outcome("errored", scores=[ASSERTIONS, judge], output="x")
    assert failure_lines(result, False)[:3] == [
        "judge: verdict did not match the rubric",
        "assertions: 1/2 checks held; failed: contains[0]",
        "  contains[0]: output does not contain 'hi'",
    ]


def test_fallback_lines_when_nothing_explains_it() -> None:
    assert failure_lines(outcome("failed"), False)[0] == "no failing evaluator reported a detail"
    assert failure_lines(outcome("errored"), False)[0] == "no detail was reported"
    assert build_excerpt(outcome("passed")).findings == ()


def test_output_cut_counts_raw_characters_then_normalises() -> None:
    raw = "a\r\n" * 200  # 600 raw characters
    shown, more = cut_output(raw, False)
    assert more == 100
    assert shown == "\n".join(["a"] * 166) + "\na"  # 500 raw chars: 166 "a\r\n" + "a\r"
    assert cut_output(raw, True) == ("\n".join(["a"] * 200), 0)
    assert cut_output("x\r\ry\n\n", False) == ("x\n\ny", 0)


def test_cut_note_with_exact_count_and_thousands_separator() -> None:
    result = outcome(output="x" * 2734)
    lines = failure_lines(result, False)
    assert lines[-2:] == [
        "output: " + "x" * 500,
        "  … (2,234 more characters; --skill-lens-full-output prints them)",
    ]
    assert failure_lines(result, True)[-1] == "output: " + "x" * 2734


def test_exactly_500_characters_is_not_cut() -> None:
    assert build_excerpt(outcome(output="y" * 500)).cut_note is None


def test_multiline_output_continues_indented() -> None:
    result = outcome(output="first\n\nthird\n")
    assert failure_lines(result, False)[-3:] == ["output: first", "", "  third"]


def test_twenty_tool_calls_then_overflow() -> None:
    calls = [ToolCall("lookup", {"n": i}) for i in range(23)]
    lines = failure_lines(outcome(tool_calls=calls), False)
    start = lines.index("tool calls:")
    assert lines[start + 1] == "  lookup(n=0)"
    assert lines[start + 20] == "  lookup(n=19)"
    assert lines[start + 21 :] == ["  … +3 more calls"]
    exactly = build_excerpt(outcome(tool_calls=calls[:20]))
    assert len(exactly.tool_calls) == 20
    assert exactly.calls_note is None


def test_tool_call_arguments_in_order_with_values_cut_at_80() -> None:
    call = ToolCall("write", {"path": "a.txt", "body": "z" * 100, "opts": {"x": [1, True, None]}})
    assert render_call(call) == (
        'write(path="a.txt", body="' + "z" * 79 + '…, opts={"x": [1, true, null]})'
    )
    assert render_call(ToolCall("noop")) == "noop()"


def test_failed_hooks_only_at_most_ten() -> None:
    ok = {"name": "SessionStart", "outcome": "success", "stdout": "", "stderr": ""}
    bad = [
        {"name": f"PreToolUse:Write{i}", "outcome": "error", "exit_code": 2, "stderr": "no"}
        for i in range(12)
    ]
    excerpt = build_excerpt(outcome(hooks=(ok, *bad)))
    assert len(excerpt.failed_hooks) == 10
    assert excerpt.failed_hooks[0] == 'PreToolUse:Write0 error (exit code 2): stderr="no" stdout=""'
    assert excerpt.hooks_note == "… +2 more failed hooks"
    lines = failure_lines(outcome(hooks=(ok, *bad)), False)
    assert lines[lines.index("failed hooks:") + 11] == "  … +2 more failed hooks"


def test_hook_streams_cut_at_200_unless_full_output() -> None:
    hook = {"name": "Stop", "outcome": "cancelled", "exit_code": None, "stdout": "o" * 250}
    assert render_hook(hook, False) == (
        'Stop cancelled: stderr="" stdout="' + "o" * 200 + '" … (50 more characters)'
    )
    assert render_hook(hook, True).endswith('"' + "o" * 250 + '"')


def test_terminal_control_characters_are_escaped() -> None:
    lines = failure_lines(outcome(output="\x1b[31mred\x1b[0m\ttab"), False)
    assert lines[-1] == "output: \\x1b[31mred\\x1b[0m\ttab"


def test_multiline_evidence_and_error_stay_readable() -> None:
    check = CheckResult("file:out.txt", False, "expected:\nhello\ngot:\nbye")
    score = Score("assertions", False, 0.0, "0/1 checks held", (check,))
    assert failure_lines(outcome(scores=[score], output="ok"), False) == [
        "assertions: 0/1 checks held",
        "  file:out.txt: expected:",
        "    hello",
        "    got:",
        "    bye",
        "output: ok",
    ]
