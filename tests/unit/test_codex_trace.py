"""Codex's ``exec --json`` trace reader, on traces the real codex 0.171.0 wrote against the
scripted Responses server (tests/unit/traces/codex/record.py), and on damaged ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.run.products.codex_trace import read_trace
from pytest_skill_lens.run.products.trace import Ending, Expect

TRACES = Path(__file__).parent / "traces" / "codex"
OK = Ending(exit_code=0, timeout_seconds=60, max_output_bytes=1_000_000)
LOADED = Expect(mode="loaded", skill="ext-skill", model="gpt-5-mini")
OFFERED = Expect(mode="offered", skill="ext-skill", model="gpt-5-mini")


def trace(name: str) -> bytes:
    return (TRACES / name).read_bytes()


@pytest.fixture(autouse=True)
def _no_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_a_loaded_run_reads_answer_command_tokens_and_the_skill_from_the_session_log() -> None:
    result = read_trace(trace("loaded.jsonl"), trace("loaded_session.jsonl"), OK, LOADED)
    assert result.error is None
    assert result.output == "DONE"
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("exec_command", {"command": "/bin/bash -lc 'echo hi > out.txt'"})
    ]
    # Scripted 1200+1300 input (200+1000 cached), 30+7 output: the turn's sums.
    assert (result.input_tokens, result.output_tokens) == (2500, 37)
    assert result.skill_loaded is True and result.skill_triggered is None
    assert result.model == "gpt-5-mini"
    assert result.cost_usd > 0
    assert result.price_source is not None
    assert result.price_source.startswith("list price of openai:gpt-5-mini (genai-prices ")


def test_cached_tokens_are_priced_as_cache_reads() -> None:
    loaded = read_trace(trace("loaded.jsonl"), None, OK, LOADED)
    uncached = trace("loaded.jsonl").replace(
        b'"cached_input_tokens":1200', b'"cached_input_tokens":0'
    )
    full = read_trace(uncached, None, OK, LOADED)
    assert 0 < loaded.cost_usd < full.cost_usd


def test_the_price_says_the_endpoint_was_your_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    result = read_trace(trace("loaded.jsonl"), None, OK, LOADED)
    assert (result.price_source or "").endswith("; your endpoint may bill differently")


def test_a_model_it_was_not_told_is_not_priced_never_free() -> None:
    result = read_trace(trace("loaded.jsonl"), None, OK, Expect(skill="ext-skill"))
    assert result.cost_usd == 0 and result.price_source == "not priced"
    assert "-m in [runners.codex] args" in (result.cost_note or "")
    unknown = read_trace(trace("loaded.jsonl"), None, OK, Expect(model="no-such-model-x"))
    assert unknown.price_source == "not priced" and "no-such-model-x" in (unknown.cost_note or "")


def test_a_mention_codex_did_not_answer_is_a_skill_that_never_loaded() -> None:
    result = read_trace(trace("unlisted.jsonl"), trace("unlisted_session.jsonl"), OK, LOADED)
    assert result.error is None and result.skill_loaded is False
    assert "never loaded" in (result.load_note or "")


def test_without_a_session_log_a_mention_is_not_evaluated() -> None:
    result = read_trace(trace("loaded.jsonl"), None, OK, LOADED)
    assert result.skill_loaded is None and "session log" in (result.load_note or "")


def test_offered_a_command_reading_skill_md_is_the_trigger_and_the_load() -> None:
    result = read_trace(trace("offered.jsonl"), None, OK, OFFERED)
    assert (result.skill_triggered, result.skill_loaded) == (True, True)
    other = Expect(mode="offered", skill="other-skill", model="gpt-5-mini")
    negative = read_trace(trace("offered.jsonl"), None, OK, other)
    assert (negative.skill_triggered, negative.skill_loaded) == (False, False)


def test_a_bridge_tool_is_mapped_back_to_its_declared_name() -> None:
    declared = Expect(tools=["lookup_code"], model="gpt-5-mini")
    result = read_trace(trace("mcp.jsonl"), None, OK, declared)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("lookup_code", {"id": "A"})]
    undeclared = read_trace(trace("mcp.jsonl"), None, OK, Expect(tools=["other"]))
    assert [c.name for c in undeclared.tool_calls] == ["mcp__skill_lens__lookup_code"]


def test_a_failed_turn_is_errored_with_the_products_words() -> None:
    result = read_trace(trace("turn_failed.jsonl"), None, Ending(exit_code=1), LOADED)
    assert result.error is not None and "codex reported an error" in result.error
    assert "no script" in result.error
    assert result.tool_calls == [] and result.output == ""
    assert result.price_source == "not priced" and result.usage_note


def test_a_trace_without_turn_completed_is_errored_with_stderr() -> None:
    lines = trace("loaded.jsonl").splitlines(keepends=True)
    result = read_trace(b"".join(lines[:-1]), None, Ending(exit_code=0, stderr="boom"), LOADED)
    assert result.error is not None and "no turn.completed" in result.error
    assert "boom" in result.error
    assert result.input_tokens == 0 and "before reporting token usage" in (result.usage_note or "")


def test_a_cut_trace_is_errored_naming_the_cap() -> None:
    data = trace("loaded.jsonl")
    cut = Ending(exit_code=None, cut=True, max_output_bytes=400)
    result = read_trace(data[:400], None, cut, LOADED)
    assert result.error is not None and "max_output_bytes (400 bytes)" in result.error


def test_a_timeout_is_errored_naming_it() -> None:
    result = read_trace(b"", None, Ending(exit_code=None, timeout_seconds=7), LOADED)
    assert result.error is not None and "timed out after 7 s" in result.error


@pytest.mark.parametrize(
    "data",
    [
        b"\x00\xff garbage\n{not json\n[1,2]\n",
        b'{"type":"turn.completed","usage":{"input_tokens":"many","output_tokens":-1}}\n',
        b'{"type":"item.completed","item":{"type":"mcp_tool_call","server":7,"arguments":[1]}}\n'
        b'{"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":9,'
        b'"output_tokens":1}}\n',
    ],
)
def test_garbage_never_raises_and_never_reads_as_a_measurement(data: bytes) -> None:
    result = read_trace(data, b"\xff{garbage", OK, LOADED)
    assert result.input_tokens == 0 and result.cost_usd == 0
    assert result.price_source == "not priced"


# -- a skill Codex failed to load ------------------------------------------------------


def stderr_of(name: str) -> str:
    return (TRACES / f"{name}.stderr.txt").read_text(encoding="utf-8")


def test_a_skill_codex_refused_to_load_is_errored_with_its_words() -> None:
    ending = Ending(exit_code=0, stderr=stderr_of("rejected"))
    result = read_trace(trace("rejected.jsonl"), trace("rejected_session.jsonl"), ending, LOADED)
    assert result.error is not None
    assert result.error.startswith("codex failed to load the skill 'ext-skill'")
    assert "missing YAML frontmatter delimited by ---" in result.error
    assert result.skill_loaded is None and result.output == ""  # no verdict on the skill
    assert result.input_tokens > 0  # what it spent is kept


def test_an_offered_skill_codex_never_listed_is_errored_never_a_measured_negative() -> None:
    ending = Ending(exit_code=0, stderr=stderr_of("rejected_offered"))
    result = read_trace(trace("rejected_offered.jsonl"), None, ending, OFFERED)
    assert result.error is not None and "failed to load the skill 'ext-skill'" in result.error
    assert result.skill_triggered is None  # never a negative control that passes


def test_a_load_failure_of_another_skill_or_a_skill_read_anyway_is_no_error() -> None:
    other = stderr_of("rejected").replace("/ext-skill/SKILL.md", "/other/SKILL.md")
    offered = read_trace(trace("offered.jsonl"), None, Ending(exit_code=0, stderr=other), OFFERED)
    assert offered.error is None and offered.skill_loaded is True
    # The model read the file itself: its text reached the model whatever Codex listed.
    read_anyway = Ending(exit_code=0, stderr=stderr_of("rejected_offered"))
    result = read_trace(trace("offered.jsonl"), None, read_anyway, OFFERED)
    assert result.error is None and result.skill_loaded is True


@pytest.mark.parametrize(
    ("name", "ending", "said"),
    [
        ("cut_mid_line", Ending(exit_code=None, cut=True, max_output_bytes=900), "was cut"),
        ("no_result", Ending(exit_code=0, stderr="boom"), "no turn.completed"),
    ],
)
def test_a_recorded_trace_cut_or_without_its_end_is_errored(
    name: str, ending: Ending, said: str
) -> None:
    result = read_trace(trace(f"{name}.jsonl"), None, ending, LOADED)
    assert result.error is not None and said in result.error
    assert result.output == "" and result.skill_loaded is None


def test_garbage_lines_around_a_recorded_run_are_skipped_and_it_still_reads() -> None:
    clean = read_trace(trace("loaded.jsonl"), trace("loaded_session.jsonl"), OK, LOADED)
    result = read_trace(trace("garbage_lines.jsonl"), trace("loaded_session.jsonl"), OK, LOADED)
    assert result.error is None
    assert (result.output, result.input_tokens, result.skill_loaded) == (
        clean.output,
        clean.input_tokens,
        True,
    )
