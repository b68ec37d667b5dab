"""OpenCode's JSONL trace read into a RunResult, from recorded traces; its launch hook.

The ``.jsonl`` files under ``traces/opencode/`` are real ``opencode run --format json``
1.18.33 output, offline against the scripted Chat Completions server (``record.py``
re-records them), and copies of them damaged the ways a real run breaks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_skill_lens.run.models.price_source import NOT_PRICED, problem
from pytest_skill_lens.run.products.description import LaunchContext, argv
from pytest_skill_lens.run.products.opencode import PRESET, launch
from pytest_skill_lens.run.products.opencode_trace import read_trace
from pytest_skill_lens.run.products.trace import Ending, Expect
from pytest_skill_lens.run.result import RunResult, ToolCall, problems
from pytest_skill_lens.settings import ProductTable

TRACES = Path(__file__).parent / "traces" / "opencode"
CLEAN = Ending(exit_code=0)
LOADED = Expect(mode="loaded", skill="greet")
OFFERED = Expect(mode="offered", skill="greet")
LOAD_CALL = ToolCall("skill", {"name": "greet"})


def trace(name: str) -> bytes:
    return (TRACES / f"{name}.jsonl").read_bytes()


def read(name: str, ending: Ending = CLEAN, expect: Expect = LOADED) -> RunResult:
    result = read_trace(trace(name), ending, expect)
    assert problems(result) == []  # every result the reader makes is well formed
    return result


def test_a_loaded_run_that_loads_the_skill_reports_answer_tokens_and_the_load() -> None:
    result = read("loaded")
    assert result.error is None
    assert result.output == "Hello from greet"
    # Summed over both steps: prompt 3100 + 3200 (the cache reads inside), completion
    # 50 + 26 (15 of it reasoning).
    assert (result.input_tokens, result.output_tokens) == (6300, 76)
    assert result.usage_note is None
    assert result.skill_loaded is True and result.load_note is None
    assert result.skill_triggered is None  # a loaded case has no trigger decision
    assert result.tool_calls == [LOAD_CALL]
    assert result.transcript[0]["type"] == "step_start"


def test_without_a_price_table_the_cost_is_not_priced_never_a_zero() -> None:
    result = read("loaded")
    assert result.cost_usd == 0.0
    assert result.price_source == NOT_PRICED
    assert result.cost_note is not None and "not priced" in result.cost_note


def test_a_cost_from_a_price_table_is_reported_as_opencodes_arithmetic() -> None:
    result = read("priced")
    assert result.cost_usd == pytest.approx(0.00053)
    assert result.price_source is not None and problem(result.price_source) is None
    assert "not a measured bill" in result.price_source
    assert result.cost_note is None


@pytest.mark.parametrize("name", ["text_cost", "bad_tokens"])
def test_a_figure_of_the_wrong_type_is_a_note(name: str) -> None:
    result = read(name)
    assert result.error is None
    if name == "bad_tokens":
        assert (result.input_tokens, result.output_tokens) == (0, 0)
        assert result.usage_note is not None and "no readable token" in result.usage_note
    else:
        assert result.price_source == NOT_PRICED and result.cost_usd == 0.0


def test_a_loaded_run_whose_model_never_calls_the_skill_tool_says_so() -> None:
    result = read("loaded_not_loaded")
    assert result.error is None
    assert result.skill_loaded is False
    assert result.load_note is not None and "does not expand /greet" in result.load_note


def test_an_offered_run_that_calls_the_skill_tool_triggers_and_loads_it() -> None:
    result = read("offered_skill", expect=OFFERED)
    assert (result.skill_triggered, result.skill_loaded) == (True, True)
    assert result.output == "Hello after loading"


def test_an_offered_run_without_the_skill_tool_is_a_measured_negative() -> None:
    result = read("offered_no_skill", expect=OFFERED)
    assert (result.skill_triggered, result.skill_loaded) == (False, False)
    assert result.load_note is None


def test_a_skill_call_for_another_skill_triggers_nothing_and_is_no_error() -> None:
    result = read("other_skill", expect=OFFERED)
    assert result.error is None
    assert (result.skill_triggered, result.skill_loaded) == (False, False)
    assert result.tool_calls == [ToolCall("skill", {"name": "nosuch"})]


@pytest.mark.parametrize("expect", [LOADED, OFFERED], ids=["loaded", "offered"])
def test_a_skill_listed_but_failing_to_load_is_errored_with_the_products_words(
    expect: Expect,
) -> None:
    result = read("failed_load", expect=expect)
    assert result.error is not None
    assert result.error.startswith("opencode failed to load the skill 'greet'")
    assert "ripgrep execution failed" in result.error  # its words, the skill gone
    assert (result.skill_loaded, result.skill_triggered) == (None, None)
    assert result.input_tokens > 0  # the spend is kept


def test_a_skill_opencode_did_not_list_is_errored_without_claiming_it_was_listed() -> None:
    result = read("unlisted_load", expect=OFFERED)
    assert result.error is not None
    assert result.error.startswith("opencode failed to load the skill 'greet'")
    assert 'Skill "greet" not found. Available skills: customize-opencode' in result.error
    assert "listed" not in result.error  # it was not: the product's words say so


def test_a_baseline_without_a_skill_knows_nothing_of_loading() -> None:
    result = read("offered_no_skill", expect=Expect(mode="offered", skill=None))
    assert (result.skill_triggered, result.skill_loaded) == (False, None)


def test_the_products_own_tool_calls_are_recorded_by_its_own_names() -> None:
    result = read("bash")
    assert result.tool_calls == [
        ToolCall("bash", {"command": "echo from-bash", "description": "Print a word"})
    ]
    assert result.output == "Hello after bash"


def test_the_products_own_error_event_is_errored_with_its_message() -> None:
    result = read("api_error", Ending(exit_code=1, stderr="ignored"))
    assert result.error is not None
    assert result.error.startswith("opencode reported an error: (APIError) scripted refusal")
    assert result.usage_note is not None  # no step finished: no tokens, never a zero


def test_a_trace_cut_mid_line_is_errored_naming_the_cap() -> None:
    result = read("cut_mid_line", Ending(exit_code=0, cut=True, max_output_bytes=2048))
    assert result.error is not None and "cut at max_output_bytes (2,048 bytes)" in result.error
    # The first step finished before the cut: its tokens stand, with a note saying so.
    assert result.input_tokens == 3100
    assert result.usage_note is not None and "steps that finished" in result.usage_note


def test_a_timeout_is_errored_with_the_limit() -> None:
    result = read("no_final_step", Ending(exit_code=None, timeout_seconds=7))
    assert result.error is not None and "timed out after 7 s" in result.error


def test_a_trace_whose_last_step_asked_for_tools_has_no_answer() -> None:
    result = read("no_final_step", Ending(exit_code=0, stderr="boom"))
    assert result.error is not None
    assert "no answer (its last step asked for tools" in result.error
    assert result.error.endswith("stderr ends: boom")


def test_an_empty_trace_is_errored_with_the_exit_code() -> None:
    result = read_trace(b"", Ending(exit_code=3), LOADED)
    assert result.error is not None and "no step finished; exit code 3" in result.error
    assert result.usage_note is not None and result.price_source == NOT_PRICED


def test_a_finished_answer_with_a_non_zero_exit_is_errored_by_the_exit_code() -> None:
    result = read("loaded", Ending(exit_code=2))
    assert result.error is not None and result.error.startswith("opencode exited with code 2")


def test_garbage_lines_are_skipped_and_the_run_still_reads() -> None:
    result = read("garbage_lines")
    assert result.error is None and result.output == "Hello from greet"


def test_a_huge_line_and_absurd_nesting_are_survived() -> None:
    lines = trace("loaded").splitlines(keepends=True)
    huge = json.dumps({"type": "text", "part": {"text": 7, "pad": "x" * 3_000_000}})
    data = b"".join([*lines[:-1], huge.encode() + b"\n", b"[" * 200_000 + b"\n", lines[-1]])
    result = read_trace(data, CLEAN, LOADED)
    assert result.error is None and result.output == "Hello from greet"


def test_wrong_types_anywhere_are_survived() -> None:
    events = [
        {"type": "step_start", "part": "not a dict"},
        {"type": "text", "part": {"text": ["no"]}},
        {"type": "tool_use", "part": {"tool": 3, "state": {}}},
        {"type": "tool_use", "part": {"tool": "skill", "callID": 1, "state": ["x"]}},
        {"type": "step_finish", "part": {"reason": 5, "tokens": [], "cost": None}},
        {"type": "error", "error": "just text"},
    ]
    data = b"\n".join(json.dumps(e).encode() for e in events)
    result = read_trace(data, Ending(exit_code=1), LOADED)
    assert problems(result) == []
    assert result.error == "opencode reported an error: no message"


def test_bridge_tools_map_back_by_exact_spelling_only_and_repeats_are_dropped() -> None:
    def use(call_id: str, tool: str, arguments: object) -> bytes:
        part = {
            "tool": tool,
            "callID": call_id,
            "state": {"status": "completed", "input": arguments},
        }
        return json.dumps({"type": "tool_use", "part": part}).encode()

    lines = trace("loaded").splitlines()
    added = [
        use("t0", "skill-lens_lookup_order", {"order_id": "1"}),
        use("t1", "skill-lens_Lookup_Order", {}),
        use("t2", "other_lookup_order", {}),
        use("t3", "bash", "not an object"),
        use("t0", "skill-lens_lookup_order", {}),
    ]
    data = b"\n".join([lines[0], *added, *lines[1:]])
    expect = Expect(mode="loaded", skill="greet", tools=["lookup_order"])
    result = read_trace(data, CLEAN, expect)
    assert result.tool_calls == [
        ToolCall("lookup_order", {"order_id": "1"}),
        ToolCall("skill-lens_Lookup_Order", {}),
        ToolCall("other_lookup_order", {}),
        ToolCall("bash", {"_raw": "not an object"}),
        LOAD_CALL,
    ]


# -- the preset and its launch hook ---------------------------------------------------


def test_the_argv_ends_the_options_before_the_prompt_and_names_the_session() -> None:
    command = argv(PRESET, ProductTable(args=["--variant", "high"]), '--version  "please"')
    assert command[:4] == ["opencode", "run", "--format", "json"]
    assert "--pure" in command and command[command.index("--title") + 1] == "skill-lens"
    assert command[-4:] == ["--variant", "high", "--", '--version  "please"']


def test_the_launch_configures_the_endpoint_model_and_bridge_and_seeds_the_home(
    tmp_path: Path,
) -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k", "OPENCODE_MODEL": "m"}
    mcp = {"command": "/py", "args": ["-m", "bridge"], "env": {"A": "1"}}
    started = launch(LaunchContext(env, tmp_path, tmp_path, True, False, mcp))
    config = json.loads(started.env["OPENCODE_CONFIG_CONTENT"])
    assert config["model"] == "skill-lens/m"
    provider = config["provider"]["skill-lens"]
    assert provider["npm"] == "@ai-sdk/openai-compatible"
    assert provider["options"] == {"baseURL": "http://127.0.0.1:9/v1", "apiKey": "k"}
    assert "cost" not in provider["models"]["m"]  # no price table: OpenCode reports no cost
    bridge = config["mcp"]["skill-lens"]
    assert bridge == {
        "type": "local",
        "command": ["/py", "-m", "bridge"],
        "enabled": True,
        "environment": {"A": "1"},
    }
    lock = json.loads(started.files[".config/opencode/package-lock.json"])
    assert "@opencode-ai/plugin" in lock["packages"][""]["dependencies"]
    assert ".config/opencode/node_modules/.skill-lens" in started.files


def test_the_launch_writes_nothing_into_a_home_that_is_the_users(tmp_path: Path) -> None:
    started = launch(LaunchContext({}, tmp_path, tmp_path, False, False))
    assert started.files == {}
    config = json.loads(started.env["OPENCODE_CONFIG_CONTENT"])
    assert config["provider"]["skill-lens"]["options"] == {"baseURL": "https://api.openai.com/v1"}
    assert "mcp" not in config
