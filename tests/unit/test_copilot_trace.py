"""Copilot CLI's JSONL trace and usage file read into a RunResult, from recorded traces.

The ``.jsonl`` and ``.usage.json`` files under ``traces/copilot/`` are real Copilot CLI
1.0.102 output, offline against the scripted Anthropic server (``record.py``
re-records them), and copies of the loaded one damaged the ways a real run breaks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_skill_lens.run.products.copilot import PRESET
from pytest_skill_lens.run.products.copilot_trace import read_trace
from pytest_skill_lens.run.products.description import argv
from pytest_skill_lens.run.products.env import product_env, signs_in
from pytest_skill_lens.run.products.table_rules import table_problem
from pytest_skill_lens.run.products.trace import Ending, Expect
from pytest_skill_lens.run.result import RunResult, ToolCall, problems
from pytest_skill_lens.settings import ProductTable

TRACES = Path(__file__).parent / "traces" / "copilot"
CLEAN = Ending(exit_code=0)
LOADED = Expect(mode="loaded", skill="greet")
OFFERED = Expect(mode="offered", skill="greet")


def trace(name: str) -> bytes:
    return (TRACES / f"{name}.jsonl").read_bytes()


def usage(name: str) -> bytes | None:
    path = TRACES / f"{name}.usage.json"
    return path.read_bytes() if path.is_file() else None


def read(
    name: str,
    ending: Ending = CLEAN,
    expect: Expect = LOADED,
    usage_of: str | None = None,
) -> RunResult:
    result = read_trace(trace(name), usage(usage_of or name), ending, expect)
    assert problems(result) == []  # every result the reader makes is well formed
    return result


def test_a_loaded_run_reports_the_answer_and_the_usage_files_tokens() -> None:
    result = read("loaded")
    assert result.error is None
    assert result.output == "Hello from greet"
    # inputTokens already holds the cache read (120 + 30): it is not added twice.
    assert (result.input_tokens, result.output_tokens) == (150, 8)
    assert result.usage_note is None
    assert result.model == "claude-sonnet-4.5"
    assert result.skill_triggered is None  # a loaded case has no trigger decision
    assert result.tool_calls == []
    assert result.transcript[0]["type"] == "session.skills_loaded"


def test_premium_requests_are_a_cost_note_never_a_dollar_figure() -> None:
    result = read("loaded")
    assert result.cost_usd == 0.0
    assert result.cost_note == (
        "copilot bills per premium request, not in dollars: this run used 0 premium request(s)"
    )


def test_a_loaded_run_whose_slash_command_was_not_expanded_never_loaded_the_skill() -> None:
    result = read("loaded")
    assert result.skill_loaded is False  # /greet reached the model as typed
    assert result.load_note is not None
    assert "does not expand /greet in -p mode" in result.load_note


def test_a_loaded_run_where_the_model_then_calls_the_skill_tool_did_load_it() -> None:
    result = read("loaded_then_tool")
    assert result.skill_loaded is True
    assert result.load_note is None
    assert result.tool_calls == [ToolCall("skill", {"skill": "greet"})]
    assert result.output == "Hello, the skill loaded"


def test_an_offered_run_that_calls_the_skill_tool_triggers_and_loads_it() -> None:
    result = read("offered_skill", expect=OFFERED)
    assert result.tool_calls == [ToolCall("skill", {"skill": "greet"})]
    assert (result.skill_triggered, result.skill_loaded) == (True, True)
    assert result.output == "Hello after loading"
    # Two calls: 10 + (100 + 10 read + 20 written) in, 5 + 7 out.
    assert (result.input_tokens, result.output_tokens) == (140, 12)


def test_an_offered_run_without_the_skill_tool_is_a_measured_negative() -> None:
    result = read("offered_no_skill", expect=OFFERED)
    assert (result.skill_triggered, result.skill_loaded) == (False, False)
    assert result.load_note is None  # skill_triggered is the measurement; nothing to explain


def test_a_skill_call_for_another_skill_does_not_trigger_this_one() -> None:
    result = read("other_skill", expect=OFFERED)
    assert result.tool_calls == [ToolCall("skill", {"skill": "nosuch"})]
    assert (result.skill_triggered, result.skill_loaded) == (False, False)


def test_a_request_for_the_cases_skill_that_failed_is_errored_with_the_products_words() -> None:
    result = read("other_skill", expect=Expect(mode="offered", skill="nosuch"))
    assert result.error is not None
    assert result.error.startswith("copilot failed to load the skill 'nosuch'")
    assert "Skill not found: nosuch" in result.error
    assert (result.skill_triggered, result.skill_loaded) == (None, None)


def test_a_listed_skill_its_skill_tool_refused_is_errored_never_a_verdict() -> None:
    result = read("skill_refused", expect=OFFERED)
    assert result.error is not None
    assert result.error.startswith("copilot failed to load the skill 'greet'")
    assert "Skill not found: greet" in result.error
    assert "did not list" not in result.error  # it did list it


@pytest.mark.parametrize("expect", [LOADED, OFFERED], ids=["loaded", "offered"])
def test_a_skill_copilot_did_not_list_is_errored_naming_what_it_listed(expect: Expect) -> None:
    result = read("unlisted_skill", expect=expect)
    assert result.error is not None
    assert result.error.startswith("copilot failed to load the skill 'greet'")
    assert "did not list it" in result.error
    assert "customize-cloud-agent, github-pr-media" in result.error
    assert "Skill not found: greet" in result.error  # and what its skill tool said


def test_an_offered_negative_control_on_a_skill_copilot_never_listed_is_errored() -> None:
    # The model could not have chosen a skill it was never offered: no false green.
    result = read("offered_no_skill", expect=Expect(mode="offered", skill="absent"))
    assert result.error is not None and "did not list it" in result.error


def test_a_baseline_without_a_skill_knows_nothing_of_loading() -> None:
    result = read("offered_no_skill", expect=Expect(mode="offered", skill=None))
    assert (result.skill_triggered, result.skill_loaded) == (False, None)


def test_a_loaded_skill_copilot_never_listed_is_errored() -> None:
    result = read("loaded", expect=Expect(mode="loaded", skill="absent"))
    assert result.error is not None
    assert result.error.startswith("copilot failed to load the skill 'absent'")
    assert result.skill_loaded is None


def test_a_slash_invocations_skill_invoked_event_counts_as_loaded() -> None:
    invoked = {"type": "skill.invoked", "data": {"name": "greet", "path": "", "content": "x"}}
    lines = trace("loaded").splitlines()
    data = b"\n".join([lines[0], json.dumps(invoked).encode(), *lines[1:]])
    result = read_trace(data, usage("loaded"), CLEAN, LOADED)
    assert result.skill_loaded is True
    offered = read_trace(data, usage("loaded"), CLEAN, OFFERED)
    assert offered.skill_triggered is True


def test_the_products_own_tool_calls_are_recorded_by_its_own_names() -> None:
    result = read("bash", expect=OFFERED)
    assert result.tool_calls == [
        ToolCall("bash", {"command": "echo from-bash", "description": "Print a word"})
    ]
    assert result.output == "Hello after bash"


def test_the_products_own_error_wins_over_the_exit_code_and_keeps_the_figures() -> None:
    result = read("api_error", ending=Ending(exit_code=1, stderr="ignored"))
    assert result.error == "copilot reported an error: 400 scripted refusal"
    assert "exit" not in result.error
    # The usage file lists no model: a measured 0, and the premium-request count kept.
    assert (result.input_tokens, result.output_tokens, result.usage_note) == (0, 0, None)
    assert result.cost_note is not None and "used 0 premium request(s)" in result.cost_note
    assert result.output == "" and result.tool_calls == []


def test_a_trace_cut_mid_line_is_errored_naming_the_cap_and_the_count_unknown() -> None:
    ending = Ending(exit_code=0, cut=True, max_output_bytes=4_096)
    result = read("cut_mid_line", ending=ending, usage_of="loaded")
    assert result.error is not None
    assert "cut at max_output_bytes (4,096 bytes)" in result.error
    assert "[runners.copilot]" in result.error
    assert result.cost_note == (
        "copilot bills per premium request, not in dollars, and the copilot trace was cut at "
        "max_output_bytes before reporting the count: the premium-request count was never "
        "reported, so the spend is unknown"
    )
    # The usage file is written at exit whatever stdout's cap did, so its tokens are kept.
    assert (result.input_tokens, result.output_tokens) == (150, 8)


def test_a_timeout_without_a_usage_file_has_notes_for_both_figures() -> None:
    result = read_trace(
        trace("no_result"), None, Ending(exit_code=None, timeout_seconds=0.5), LOADED
    )
    assert result.error == (
        "copilot timed out after 0.5 s (timeout_seconds in [runners.copilot], or the case timeout)"
    )
    assert result.usage_note == "copilot timed out before reporting token usage"
    assert result.cost_note is not None
    assert "the premium-request count was never reported" in result.cost_note
    assert (result.input_tokens, result.output_tokens, result.cost_usd) == (0, 0, 0.0)


def test_a_trace_with_no_result_event_is_errored_with_the_exit_code_and_stderr() -> None:
    ending = Ending(exit_code=0, stderr="x" * 900 + "the last words")
    result = read_trace(trace("no_result"), None, ending, LOADED)
    assert result.error is not None
    assert result.error.startswith("the copilot trace ended with no result event (exit code 0)")
    assert result.error.endswith("the last words")
    assert len(result.error) < 700  # only stderr's tail is quoted


def test_an_empty_trace_from_a_product_that_never_reached_the_model() -> None:
    result = read_trace(b"", None, Ending(exit_code=1, stderr=""), LOADED)
    assert result.error is not None and result.error.endswith("stderr was empty")
    assert result.cost_note is not None and "spend is unknown" in result.cost_note
    assert result.usage_note is not None


def test_a_clean_result_with_a_non_zero_exit_is_errored_by_the_exit_code() -> None:
    result = read("loaded", ending=Ending(exit_code=3, stderr="boom\n"))
    assert result.error == "copilot exited with code 3; stderr ends: boom"
    assert (result.input_tokens, result.output_tokens) == (150, 8)  # what it spent is kept
    assert result.output == ""


def test_a_result_event_reporting_a_failed_exit_is_errored_too() -> None:
    lines = trace("loaded").splitlines()
    event = {**json.loads(lines[-1]), "exitCode": 2}
    data = b"\n".join([*lines[:-1], json.dumps(event).encode()])
    result = read_trace(data, usage("loaded"), CLEAN, LOADED)
    assert result.error == "copilot exited with code 2; stderr was empty"


def test_garbage_lines_are_skipped_and_the_run_still_reads() -> None:
    result = read("garbage_lines", usage_of="loaded")
    assert result.error is None
    assert result.output == "Hello from greet"


def test_a_result_without_a_premium_request_count_says_so() -> None:
    result = read("no_premium", usage_of="loaded")
    assert result.error is None
    assert result.cost_note == (
        "copilot bills per premium request, not in dollars, and its result event reported no "
        "premium-request count"
    )


def test_without_a_usage_file_the_tokens_are_a_note_never_a_zero() -> None:
    result = read_trace(trace("loaded"), None, CLEAN, LOADED)
    assert (result.input_tokens, result.output_tokens) == (0, 0)
    assert result.usage_note is not None and "reported no token usage" in result.usage_note


@pytest.mark.parametrize(
    "damaged",
    [
        b"not json",
        b"[1, 2]",
        json.dumps({"modelMetrics": {"m": {"usage": {"inputTokens": -1, "outputTokens": 2}}}}),
        json.dumps({"modelMetrics": {"m": {"usage": {"inputTokens": True, "outputTokens": 2}}}}),
        json.dumps({"modelMetrics": {"m": {"usage": {"inputTokens": 10**30, "outputTokens": 2}}}}),
        json.dumps({"modelMetrics": {"m": {"requests": {}}}}),
        json.dumps({"modelMetrics": "lots"}),
    ],
)
def test_a_malformed_usage_file_is_a_note(damaged: str | bytes) -> None:
    data = damaged.encode() if isinstance(damaged, str) else damaged
    result = read_trace(trace("loaded"), data, CLEAN, LOADED)
    assert result.error is None
    assert (result.input_tokens, result.output_tokens) == (0, 0)
    assert result.usage_note is not None


def test_every_models_usage_is_summed_and_a_whole_float_is_a_count() -> None:
    metrics = {
        "a": {"usage": {"inputTokens": 1, "outputTokens": 2.0}},
        "b": {"usage": {"inputTokens": 4, "outputTokens": 5}},
    }
    result = read_trace(
        trace("loaded"), json.dumps({"modelMetrics": metrics}).encode(), CLEAN, LOADED
    )
    assert (result.input_tokens, result.output_tokens) == (5, 7)


def test_a_shutdown_event_carries_usage_and_premium_requests_when_there_is_no_file() -> None:
    lines = trace("shutdown_usage").splitlines()
    event = {**json.loads(lines[-1]), "usage": {}}  # the count is left to the shutdown event
    data = b"\n".join([*lines[:-1], json.dumps(event).encode()])
    result = read_trace(data, None, CLEAN, LOADED)
    assert (result.input_tokens, result.output_tokens) == (150, 8)
    assert result.cost_note is not None and "used 2 premium request(s)" in result.cost_note


def test_a_shutdown_event_of_an_error_is_the_products_own_error() -> None:
    shutdown = {
        "type": "session.shutdown",
        "data": {"shutdownType": "error", "errorReason": "crash"},
    }
    data = trace("loaded") + json.dumps(shutdown).encode() + b"\n"
    result = read_trace(data, None, CLEAN, LOADED)
    assert result.error == "copilot reported an error: crash"


def test_a_huge_line_and_absurd_nesting_are_survived() -> None:
    lines = trace("loaded").splitlines(keepends=True)
    huge = json.dumps({"type": "assistant.message", "data": {"content": 7, "pad": "x" * 3_000_000}})
    data = b"".join([*lines[:-1], huge.encode() + b"\n", b"[" * 200_000 + b"\n", lines[-1]])
    result = read_trace(data, usage("loaded"), CLEAN, LOADED)
    assert result.error is None and result.output == "Hello from greet"


def test_wrong_types_anywhere_are_survived() -> None:
    events = [
        {"type": "session.skills_loaded", "data": {"skills": "greet"}},
        {"type": "assistant.message", "data": ["not", "a", "dict"]},
        {"type": "assistant.message", "data": {"model": 3, "toolRequests": [1, {"name": 2}]}},
        {"type": "tool.execution_complete", "data": {"toolCallId": None, "success": "yes"}},
        {"type": "skill.invoked", "data": {"name": ["greet"]}},
        {"type": "session.error", "data": {"message": 5}},
        {"type": "result", "exitCode": "0", "usage": []},
    ]
    data = b"\n".join(json.dumps(e).encode() for e in events)
    result = read_trace(data, b"{}", CLEAN, LOADED)
    assert problems(result) == []
    assert result.error == "copilot reported an error: no message"


def test_bridge_tools_map_back_by_exact_spelling_only_and_repeats_are_dropped() -> None:
    requests = [
        {"toolCallId": "t0", "name": "skill-lens-lookup_order", "arguments": {"order_id": "1"}},
        {"toolCallId": "t1", "name": "skill-lens-Lookup_Order", "arguments": {}},
        {"toolCallId": "t2", "name": "other-lookup_order", "arguments": {}},
        {"toolCallId": "t3", "name": "bash", "arguments": "not an object"},
        {"toolCallId": "t0", "name": "skill-lens-lookup_order", "arguments": {}},
    ]
    message = {"type": "assistant.message", "data": {"content": "", "toolRequests": requests}}
    lines = trace("loaded").splitlines()
    data = b"\n".join([lines[0], json.dumps(message).encode(), *lines[1:]])
    expect = Expect(mode="loaded", skill="greet", tools=["lookup_order"])
    result = read_trace(data, usage("loaded"), CLEAN, expect)
    assert result.tool_calls == [
        ToolCall("lookup_order", {"order_id": "1"}),
        ToolCall("skill-lens-Lookup_Order", {}),
        ToolCall("other-lookup_order", {}),
        ToolCall("bash", {"_raw": "not an object"}),
    ]


# -- the preset (argv, environment and table rules the trace depends on) ---------------


def test_the_preset_argv_and_home_isolations_first_github_token_only(tmp_path: Path) -> None:
    table = ProductTable(args=["--model", "m"])
    assert argv(PRESET, table, "/greet hi") == [
        "copilot",
        "--allow-all-tools",
        "--output-format",
        "json",
        "--no-custom-instructions",
        "--no-auto-update",
        "--model",
        "m",
        "--prompt=/greet hi",  # the task bound as the value: never read as a flag
    ]
    source = {"PATH": "/bin", "GH_TOKEN": "mine", "GITHUB_TOKEN": "ci", "COPILOT_HOME": "/x"}
    env = product_env(PRESET, table, "home", tmp_path, source, sandbox=None)
    assert env["GH_TOKEN"] == "mine"
    assert "GITHUB_TOKEN" not in env and "COPILOT_HOME" not in env
    assert signs_in(PRESET, table, {"COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:1"})
    assert not signs_in(PRESET, table, {"COPILOT_MODEL": "m", "GH_TOKEN": " "})
    refused = table_problem(PRESET, ProductTable(pass_env=["copilot_home"]))
    assert refused is not None and "home isolation sets itself" in refused[0]
