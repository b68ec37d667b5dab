"""Claude Code's stream-json trace read into a RunResult, from recorded traces.

The ``.jsonl`` files under ``traces/claude_code/`` are real Claude Code 2.1.332
output against the scripted Anthropic server (``record.py`` re-records them), and
copies of the loaded one damaged the ways a real run breaks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_skill_lens.run.products.claude_code_trace import read_trace
from pytest_skill_lens.run.products.trace import Ending, Expect
from pytest_skill_lens.run.result import Hook, RunResult, ToolCall, problems

TRACES = Path(__file__).parent / "traces" / "claude_code"
CLEAN = Ending(exit_code=0)
LOADED = Expect(mode="loaded", skill="greet")
OFFERED = Expect(mode="offered", skill="greet")


def trace(name: str) -> bytes:
    return (TRACES / f"{name}.jsonl").read_bytes()


def read(name: str, ending: Ending = CLEAN, expect: Expect = LOADED) -> RunResult:
    result = read_trace(trace(name), ending, expect)
    assert problems(result) == []  # every result the reader makes is well formed
    return result


def test_a_loaded_run_reports_the_answer_tokens_with_cache_and_the_products_cost() -> None:
    result = read("loaded")
    assert result.error is None
    assert result.output == "Hello from greet"
    assert (result.input_tokens, result.output_tokens) == (120 + 30, 8)  # cache read counted
    assert result.cost_usd == pytest.approx(0.000646)  # total_cost_usd, as the product priced it
    assert result.price_source == "reported by the product: claude-code's total_cost_usd"
    assert result.cost_note is None and result.usage_note is None
    assert result.model == "claude-haiku-4-5-20251001"  # what served, not what was asked for
    assert result.skill_triggered is None  # a loaded case has no trigger decision
    assert result.skill_loaded is True  # /greet was among the product's slash commands
    assert result.tool_calls == []
    assert result.transcript[0]["subtype"] == "init"


def test_a_slash_command_the_product_does_not_have_is_a_run_without_the_skill() -> None:
    result = read("unknown_command", expect=Expect(mode="loaded", skill="nosuch"))
    assert result.error is None
    assert result.skill_loaded is False  # the text reached the model as typed


def test_a_listed_skill_the_user_may_not_invoke_is_errored_with_the_products_answer() -> None:
    result = read("not_user_invocable")
    # Answered by the product itself, no model turn: never scored as the skill's answer.
    assert result.error is not None
    assert result.error.startswith("claude-code failed to load the skill 'greet'")
    assert "only be invoked by Claude" in result.error
    assert result.output == "" and result.skill_loaded is None
    assert result.model == "claude-opus-5-5"  # the init event's: "<synthetic>" is no model


def test_an_offered_run_that_calls_the_skill_tool_triggers_and_loads_it() -> None:
    result = read("offered_skill", expect=OFFERED)
    assert result.tool_calls == [ToolCall("Skill", {"skill": "greet"})]
    assert result.skill_triggered is True
    assert result.skill_loaded is True  # the Skill tool's result named it
    assert result.output == "Hello after loading"


def test_an_offered_run_without_the_skill_tool_is_a_measured_negative() -> None:
    result = read("offered_no_skill", expect=OFFERED)
    assert result.skill_triggered is False
    assert result.skill_loaded is False


def test_a_listed_skill_its_skill_tool_refused_is_errored_with_the_products_words() -> None:
    result = read("skill_refused", expect=OFFERED)
    assert result.error is not None
    assert result.error.startswith("claude-code failed to load the skill 'greet'")
    assert "cannot be used with Skill tool due to disable-model-invocation" in result.error
    assert "<tool_use_error>" not in result.error
    assert (result.skill_triggered, result.skill_loaded) == (None, None)
    assert result.cost_usd > 0  # what it spent is kept


def test_a_skill_call_for_another_skill_does_not_trigger_this_one() -> None:
    result = read("offered_skill", expect=Expect(mode="offered", skill="other"))
    assert result.skill_triggered is False
    assert result.skill_loaded is False


def test_a_baseline_without_a_skill_knows_nothing_of_loading() -> None:
    result = read("offered_no_skill", expect=Expect(mode="offered", skill=None))
    assert result.skill_triggered is False
    assert result.skill_loaded is None


def test_hooks_are_recorded_in_order_with_their_streams_and_a_failed_one_kept() -> None:
    result = read("hooks")
    assert result.error is None
    assert result.hooks == [
        Hook("PreToolUse:Bash", "PreToolUse", "success", 0, "pre-hook-ran\n", "to-err\n"),
        Hook("PostToolUse:Bash", "PostToolUse", "error", 3, "failing\n", ""),
    ]
    assert [h.failed for h in result.hooks] == [False, True]
    assert [c.name for c in result.tool_calls] == ["Bash"]


def test_a_hook_response_without_a_string_name_is_skipped_but_kept_in_the_transcript() -> None:
    lines = trace("hooks").splitlines()
    broken = []
    for line in lines:
        event = json.loads(line)
        if event.get("hook_name") == "PreToolUse:Bash" and event.get("subtype") == "hook_response":
            event["hook_name"] = 7
            event["exit_code"] = True  # not an exit code: none
        broken.append(json.dumps(event).encode())
    result = read_trace(b"\n".join(broken), CLEAN, LOADED)
    assert [h.name for h in result.hooks] == ["PostToolUse:Bash"]
    assert any(e.get("hook_name") == 7 for e in result.transcript)


def test_the_products_own_error_wins_over_the_exit_code_and_keeps_the_spend() -> None:
    result = read("api_error", ending=Ending(exit_code=1, stderr="ignored"))
    assert result.error is not None
    assert result.error.startswith("claude-code reported an error: (is_error) API Error: 500")
    assert "scripted outage" in result.error
    assert "exit" not in result.error  # the trace's message, not the exit code's
    assert result.cost_usd == 0 and result.cost_note is None  # a measured 0: the call failed
    assert result.output == "" and result.tool_calls == []


def test_a_run_stopped_by_max_budget_usd_is_errored_and_keeps_what_it_spent() -> None:
    result = read("max_budget", ending=Ending(exit_code=1))
    assert result.error == (
        "claude-code reported an error: (error_max_budget_usd) Reached maximum budget ($1e-7)"
    )
    assert result.cost_usd > 0 and result.cost_note is None  # counted in the totals
    # Its usage block says 0; modelUsage has what the one model call spent.
    assert (result.input_tokens, result.output_tokens) == (10, 5)


def test_an_error_result_keeps_its_hooks_but_a_cut_trace_reports_none() -> None:
    errored = read_trace(trace("hooks"), Ending(exit_code=None, timeout_seconds=5), LOADED)
    assert errored.error is not None and "timed out after 5 s" in errored.error
    assert len(errored.hooks) == 2  # the trace reached its result event
    assert errored.cost_note is None  # and that event's figures are measurements
    cut = trace("hooks")[:-200]
    short = read_trace(cut, Ending(exit_code=0, cut=True, max_output_bytes=7_000), LOADED)
    assert short.hooks == [] and short.tool_calls == []


def test_a_trace_cut_mid_line_is_errored_naming_the_cap_and_the_spend_unknown() -> None:
    result = read("cut_mid_line", ending=Ending(exit_code=0, cut=True, max_output_bytes=4_096))
    assert result.error is not None
    assert "cut at max_output_bytes (4,096 bytes)" in result.error
    assert "[runners.claude-code]" in result.error
    assert result.cost_note == (
        "the claude-code trace was cut at max_output_bytes before reporting cost; "
        "the spend is unknown"
    )
    assert result.usage_note is not None and "cut at max_output_bytes" in result.usage_note
    assert (result.input_tokens, result.output_tokens, result.cost_usd) == (0, 0, 0.0)
    assert result.model == "claude-haiku-4-5-20251001"  # kept with the figures


def test_a_trace_with_no_result_event_is_errored_with_the_exit_code_and_stderr() -> None:
    result = read("no_result", ending=Ending(exit_code=0, stderr="x" * 900 + "the last words"))
    assert result.error is not None
    assert result.error.startswith("the claude-code trace ended with no result event (exit code 0)")
    assert result.error.endswith("the last words")
    assert len(result.error) < 700  # only stderr's tail is quoted
    assert result.cost_note == (
        "the claude-code trace ended (no result event, exit code 0) before reporting cost; "
        "the spend is unknown"
    )


def test_a_timeout_before_the_result_event_says_so_in_the_notes() -> None:
    result = read("no_result", ending=Ending(exit_code=None, timeout_seconds=0.5))
    assert result.error == (
        "claude-code timed out after 0.5 s (timeout_seconds in [runners.claude-code], "
        "or the case timeout)"
    )
    assert result.cost_note == "claude-code timed out before reporting cost; the spend is unknown"
    assert result.usage_note == "claude-code timed out before reporting token usage"


def test_a_clean_result_with_a_non_zero_exit_is_errored_by_the_exit_code() -> None:
    result = read("loaded", ending=Ending(exit_code=3, stderr="boom\n"))
    assert result.error == "claude-code exited with code 3; stderr ends: boom"
    assert result.cost_usd == pytest.approx(0.000646)  # the spend it reported is kept
    assert result.output == ""  # no evaluator reads an errored run


def test_an_empty_trace_from_a_product_that_never_reached_the_model() -> None:
    result = read_trace(b"", Ending(exit_code=1, stderr=""), LOADED)
    assert result.error is not None and result.error.endswith("stderr was empty")
    assert result.cost_note is not None and "spend is unknown" in result.cost_note


def test_garbage_lines_are_skipped_and_the_run_still_reads() -> None:
    result = read("garbage_lines")
    assert result.error is None
    assert result.output == "Hello from greet"
    assert result.cost_usd == pytest.approx(0.000646)


@pytest.mark.parametrize("name", ["no_cost", "text_cost"])
def test_a_result_without_a_number_in_total_cost_usd_is_not_evaluated(name: str) -> None:
    result = read(name)
    assert result.error is None
    assert result.cost_usd == 0.0
    assert result.cost_note == "claude-code's result event carried no number in total_cost_usd"
    assert result.usage_note is None  # usage was still reported


def test_malformed_usage_is_a_note_never_a_zero_that_reads_as_measured() -> None:
    result = read("bad_usage")
    assert result.error is None
    assert (result.input_tokens, result.output_tokens) == (0, 0)
    assert result.usage_note == "claude-code's result event reported no token usage"
    assert result.cost_note is None


def test_every_models_usage_is_summed_and_read_before_the_usage_block() -> None:
    lines = trace("loaded").splitlines()
    event = json.loads(lines[-1])
    event["usage"] = {"input_tokens": 0, "output_tokens": 0}
    event["modelUsage"] = {
        "a": {"inputTokens": 1, "outputTokens": 2, "cacheReadInputTokens": 3},
        "b": {"inputTokens": 4, "outputTokens": 5, "cacheCreationInputTokens": 6},
    }
    data = b"\n".join([*lines[:-1], json.dumps(event).encode()])
    result = read_trace(data, CLEAN, LOADED)
    assert (result.input_tokens, result.output_tokens) == (1 + 3 + 4 + 6, 2 + 5)


def test_a_huge_line_and_absurd_nesting_are_survived() -> None:
    lines = trace("loaded").splitlines(keepends=True)
    huge = json.dumps({"type": "assistant", "message": {"content": [], "pad": "x" * 3_000_000}})
    data = b"".join([*lines[:-1], huge.encode() + b"\n", b"[" * 200_000 + b"\n", lines[-1]])
    result = read_trace(data, CLEAN, LOADED)
    assert result.error is None and result.output == "Hello from greet"


def test_bridge_tools_map_back_by_exact_spelling_only() -> None:
    calls = [
        ("mcp__skill-lens__lookup_order", {"order_id": "1"}),
        ("mcp__skill-lens__Lookup_Order", {}),  # another spelling: the product's name stays
        ("mcp__other__lookup_order", {}),
        ("Bash", "not an object"),
    ]
    message = {
        "type": "assistant",
        "message": {
            "model": "m",
            "content": [
                {"type": "tool_use", "id": f"t{i}", "name": name, "input": arguments}
                for i, (name, arguments) in enumerate(calls)
            ]
            # Claude Code streams a message in parts, repeating a block it already sent.
            + [{"type": "tool_use", "id": "t0", "name": calls[0][0], "input": {}}],
        },
    }
    lines = trace("loaded").splitlines()
    data = b"\n".join([*lines[:-1], json.dumps(message).encode(), lines[-1]])
    result = read_trace(data, CLEAN, Expect(mode="loaded", skill="greet", tools=["lookup_order"]))
    assert result.tool_calls == [
        ToolCall("lookup_order", {"order_id": "1"}),
        ToolCall("mcp__skill-lens__Lookup_Order", {}),
        ToolCall("mcp__other__lookup_order", {}),
        ToolCall("Bash", {"_raw": "not an object"}),
    ]
    # The transcript keeps the product's own spelling.
    assert "mcp__skill-lens__lookup_order" in json.dumps(result.transcript)
