"""Gemini CLI's ``stream-json`` trace read into a RunResult, from recorded traces.

The ``.jsonl`` files under ``traces/gemini_cli/`` are real Gemini CLI 0.61.0 output,
offline against the scripted Gemini server (``record.py`` re-records them), and copies
of the activated one damaged the ways a real run breaks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_skill_lens.run.models.price_source import problem
from pytest_skill_lens.run.products.gemini_cli_trace import read_trace
from pytest_skill_lens.run.products.trace import Ending, Expect
from pytest_skill_lens.run.result import RunResult, ToolCall, problems

TRACES = Path(__file__).parent / "traces" / "gemini_cli"
CLEAN = Ending(exit_code=0)
LOADED = Expect(mode="loaded", skill="greet")
OFFERED = Expect(mode="offered", skill="greet")
LOCAL = "http://127.0.0.1:9"


def trace(name: str) -> bytes:
    return (TRACES / f"{name}.jsonl").read_bytes()


def read(
    name: str, ending: Ending = CLEAN, expect: Expect = LOADED, endpoint: str = ""
) -> RunResult:
    result = read_trace(trace(name), ending, expect, endpoint=endpoint)
    assert problems(result) == []  # every result the reader makes is well formed
    if result.price_source is not None:
        assert problem(result.price_source) is None
    return result


def test_an_activated_skill_is_loaded_and_the_answer_is_the_joined_deltas() -> None:
    result = read("activated")
    assert result.error is None
    assert result.output == "Hello after loading"  # streamed as two pieces
    assert result.skill_loaded is True
    assert result.load_note is None
    assert result.model == "gemini-2.5-flash"
    assert result.tool_calls == [ToolCall("activate_skill", {"name": "greet"})]


def test_tokens_count_the_cached_input_and_the_thoughts_as_output() -> None:
    result = read("activated")
    # prompt 2100 + 2200 (300 of it cached); candidates 40 + 9 and 12 thoughts.
    assert (result.input_tokens, result.output_tokens) == (4300, 61)
    assert result.usage_note is None


def test_the_tokens_are_priced_at_the_list_price_of_the_model_that_answered() -> None:
    result = read("activated")
    assert result.cost_usd > 0
    assert result.cost_note is None
    assert result.price_source is not None
    assert result.price_source.startswith("list price of google:gemini-2.5-flash (genai-prices ")
    assert not result.price_source.endswith("may bill differently")


def test_a_price_at_an_endpoint_of_your_own_says_it_may_not_apply() -> None:
    result = read("activated", endpoint=LOCAL)
    assert result.price_source is not None
    assert result.price_source.endswith("; your endpoint may bill differently")


def test_a_model_with_no_known_price_is_not_priced_with_a_note_never_free() -> None:
    data = trace("no_skill").replace(b'"gemini-2.5-flash":{', b'"scripted-model-x":{')
    result = read_trace(data, CLEAN, LOADED)
    assert (result.input_tokens, result.output_tokens) == (120, 8)
    assert result.cost_usd == 0.0
    assert result.price_source == "not priced"
    assert result.cost_note is not None
    assert "gemini-cli reports no cost" in result.cost_note
    assert "scripted-model-x" in result.cost_note


def test_a_loaded_run_without_activation_never_loaded_the_skill_and_says_why() -> None:
    result = read("no_skill")
    assert result.error is None
    assert result.output == "Hello without the skill"
    assert result.skill_loaded is False
    assert result.load_note is not None
    assert "did not call activate_skill for 'greet'" in result.load_note
    assert "does not expand /greet in -p mode" in result.load_note


def test_a_refused_activation_of_the_cases_skill_is_errored_with_the_products_words() -> None:
    result = read("other_skill", expect=Expect(mode="loaded", skill="nosuch"))
    assert result.error is not None
    assert result.error.startswith("gemini-cli failed to load the skill 'nosuch'")
    assert "must be equal to one of the allowed values" in result.error
    assert result.skill_loaded is None and result.output == ""


@pytest.mark.parametrize("expect", [LOADED, OFFERED], ids=["loaded", "offered"])
def test_a_listed_skill_whose_activation_failed_is_errored_never_a_verdict(expect: Expect) -> None:
    result = read("activation_failed", expect=expect)
    assert result.error is not None
    assert "gemini-cli failed to load the skill 'greet'" in result.error
    assert "Directory does not exist" in result.error
    assert (result.skill_loaded, result.skill_triggered) == (None, None)
    assert result.input_tokens == 30  # what it spent is kept


def test_a_skill_gemini_did_not_list_is_errored_when_the_model_asks_for_it() -> None:
    result = read("unlisted_activation", expect=OFFERED)
    assert result.error is not None and "failed to load the skill 'greet'" in result.error
    assert "must be equal to one of the allowed values" in result.error


def test_a_refusal_for_another_skill_is_no_error() -> None:
    result = read("other_skill", expect=OFFERED)
    assert result.error is None
    assert (result.skill_triggered, result.skill_loaded) == (False, False)


def test_offered_the_activation_is_the_trigger_and_its_absence_a_measured_negative() -> None:
    called = read("activated", expect=OFFERED)
    assert (called.skill_triggered, called.skill_loaded) == (True, True)
    left = read("no_skill", expect=OFFERED)
    assert (left.skill_triggered, left.skill_loaded) == (False, False)
    assert left.load_note is None
    other = read("other_skill", expect=OFFERED)
    assert other.skill_triggered is False  # it asked for another skill


def test_a_loaded_case_has_no_trigger_decision_and_a_bare_arm_no_load() -> None:
    assert read("activated").skill_triggered is None
    bare = read("activated", expect=Expect(mode="loaded", skill=None))
    assert (bare.skill_loaded, bare.load_note) == (None, None)


def test_a_bridge_tool_is_named_back_to_the_declared_tool() -> None:
    expect = Expect(mode="loaded", skill="greet", tools=["lookup_code"])
    result = read("mcp_tool", expect=expect)
    assert result.tool_calls == [ToolCall("lookup_code", {"query": "abc"})]
    assert result.output == "The code is MCP-RESULT-7f3a"


def test_an_undeclared_bridge_tool_and_a_product_tool_keep_the_products_names() -> None:
    assert read("mcp_tool").tool_calls[0].name == "mcp_skill-lens_lookup_code"
    shell = read("shell").tool_calls
    assert shell == [
        ToolCall("run_shell_command", {"command": "echo from-shell", "description": "Print a word"})
    ]


def test_the_products_own_error_is_errored_with_its_words_and_exit_code() -> None:
    result = read("api_error", ending=Ending(exit_code=144))
    assert result.error is not None
    assert result.error.startswith("gemini-cli reported an error (unknown): [API Error:")
    assert "scripted refusal" in result.error
    assert "exit code 144" in result.error
    # It reported zero tokens: nothing was spent, and nothing is made up.
    assert (result.input_tokens, result.output_tokens, result.cost_usd) == (0, 0, 0.0)


def test_a_cut_trace_is_errored_and_its_spend_unknown() -> None:
    ending = Ending(exit_code=0, cut=True, max_output_bytes=1000)
    result = read("cut_mid_line", ending=ending)
    assert result.error is not None
    assert "cut at max_output_bytes (1,000 bytes)" in result.error
    assert result.cost_note is not None
    assert "the spend is unknown" in result.cost_note
    assert result.tool_calls == []


def test_no_result_event_is_errored_with_the_stderr_tail() -> None:
    ending = Ending(exit_code=1, stderr="boom: the product fell over")
    result = read("no_result", ending=ending)
    assert result.error == (
        "the gemini-cli trace ended with no result event (exit code 1); "
        "stderr ends: boom: the product fell over"
    )
    assert result.usage_note is not None
    assert result.input_tokens == 0


def test_a_timeout_is_errored_naming_the_setting() -> None:
    result = read("no_result", ending=Ending(exit_code=None, timeout_seconds=5))
    assert result.error is not None
    assert result.error.startswith("gemini-cli timed out after 5 s")


def test_garbage_lines_are_skipped_and_the_run_still_read() -> None:
    result = read("garbage_lines")
    assert result.error is None
    assert result.skill_loaded is True
    assert (result.input_tokens, result.output_tokens) == (4300, 61)


def test_stats_that_are_not_counts_are_a_note_never_a_zero_that_reads_as_free() -> None:
    result = read("bad_stats")
    assert result.error is None
    assert (result.input_tokens, result.cost_usd) == (0, 0.0)
    assert result.usage_note == "gemini-cli's result event reported no token usage per model"
    assert result.cost_note is not None


def test_a_success_with_a_non_zero_exit_is_errored() -> None:
    result = read("activated", ending=Ending(exit_code=3, stderr=""))
    assert result.error == "gemini-cli exited with code 3; stderr was empty"


@pytest.mark.parametrize(
    "line",
    [
        {"type": "tool_use", "tool_name": 7, "tool_id": "x"},
        {"type": "tool_use", "tool_name": "t", "tool_id": "x", "parameters": [1]},
        {"type": "tool_result", "tool_id": None, "status": "success"},
        {"type": "message", "role": "assistant", "content": {"no": "text"}},
        {"type": "result", "status": "success", "stats": {"models": {"m": {"input_tokens": -1}}}},
        {"type": "result", "status": "success", "stats": {"models": {"m": "x"}}},
        {"type": "result", "status": 5, "error": "not an object"},
        {"type": "init", "model": ["x"]},
    ],
)
def test_a_wrong_type_anywhere_is_survived(line: dict[str, object]) -> None:
    data = trace("activated") + json.dumps(line).encode() + b"\n"
    result = read_trace(data, CLEAN, LOADED)
    assert problems(result) == []


def test_a_repeated_tool_use_event_counts_once() -> None:
    lines = trace("mcp_tool").splitlines(keepends=True)
    data = b"".join([*lines[:3], lines[2], *lines[3:]])
    assert len(read_trace(data, CLEAN, LOADED).tool_calls) == 1


def test_an_error_event_is_the_products_words_when_the_result_carries_none() -> None:
    # As 0.61 ends a broken stream: an error event, then a result with status error only.
    lines = trace("no_skill").splitlines(keepends=True)
    said = {"type": "error", "severity": "error", "message": "Model stream ended empty."}
    result_event = {**json.loads(lines[-1]), "status": "error"}
    data = b"".join([*lines[:-1], *(json.dumps(e).encode() + b"\n" for e in (said, result_event))])
    result = read_trace(data, Ending(exit_code=1), LOADED)
    assert result.error == (
        "gemini-cli reported an error (error): Model stream ended empty. (exit code 1)"
    )


def test_an_error_event_errors_a_run_whose_result_says_success_and_a_warning_does_not() -> None:
    lines = trace("no_skill").splitlines(keepends=True)
    for severity, errored in (("error", True), ("warning", False)):
        event = {"type": "error", "severity": severity, "message": "Maximum session turns exceeded"}
        data = b"".join([*lines[:-1], json.dumps(event).encode() + b"\n", lines[-1]])
        result = read_trace(data, CLEAN, LOADED)
        assert (result.error is not None) == errored
        if errored:
            assert result.error is not None and "Maximum session turns exceeded" in result.error
