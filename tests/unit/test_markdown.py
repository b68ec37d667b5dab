from __future__ import annotations

from typing import Any

import pytest

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.markdown import (
    TRUNCATED_NOTE,
    code,
    fence,
    inline,
    render_markdown,
)
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score

PASSED = GateResult(True, 0)
FAILED = GateResult(False, 1, ("pass rate 50% is below the required 100%", "1 case errored"))


def outcome(
    status: Status = "passed", case: str = "c", arm: Arm = "candidate", **fields: Any
) -> Outcome:
    return Outcome(
        skill_name="greet", case_name=case, runner="fake", status=status, arm=arm, **fields
    )


def test_passing_fake_run_is_short() -> None:
    record = RunRecord(outcomes=[outcome(), outcome(case="d")])
    assert render_markdown(record, PASSED) == (
        "## skill-lens — ✅ gate passed\n"
        "\n"
        "**2/2 passed** · 0 failed · 0 errored · pass rate 100%\n"
        "\n"
        "### Per skill\n"
        "\n"
        "| Skill | Pass rate | Passed | Failed | Errored |\n"
        "|---|---|---|---|---|\n"
        "| greet | 100% | 2 | 0 | 0 |\n"
    )


def failing_record() -> RunRecord:
    check = CheckResult("contains[0]", False, "no `hi` in <output>")
    score = Score("assertions", False, 0.0, "0/1 checks held; failed: contains[0]", (check,))
    return RunRecord(
        outcomes=[
            outcome(tokens=1234, cost_usd=0.01, latency_ms=1500.0),
            outcome(
                "failed",
                case="say *hi*",
                scores=[score],
                output="hello\r\n```\n" + "x" * 600,
                tool_calls=(ToolCall("lookup", {"q": "a"}),),
            ),
            outcome("errored", case="boom", error="RuntimeError: 500"),
            outcome("errored", arm="baseline"),
        ],
        skipped_skills=["empty"],
        not_run=[{"skill_name": "greet", "case_name": "z", "runner": "fake", "reason": "-x"}],
    )


def test_failing_run_has_every_block_in_order() -> None:
    text = render_markdown(failing_record(), FAILED)
    expected_excerpt = (
        "**`greet` :: `say *hi*`** (fake) — failed\n"
        "\n"
        "- assertions: 0/1 checks held; failed: contains\\[0\\]\n"
        "  - contains\\[0\\]: no \\`hi\\` in \\<output\\>\n"
        "\n"
        "Output:\n"
        "\n"
        "````text\n"
        "hello\n"
        "```\n" + "x" * 489 + "\n"
        "````\n"
        "\n"
        "… (111 more characters; --skill-lens-full-output prints them)\n"
        "\n"
        "Tool calls:\n"
        "\n"
        "```text\n"
        'lookup(q="a")\n'
        "```\n"
        "\n"
        "**`greet` :: `boom`** (fake) — errored\n"
        "\n"
        "Error:\n"
        "\n"
        "```text\n"
        "RuntimeError: 500\n"
        "```\n"
        "\n"
        "Output: (empty)\n"
    )
    assert text == (
        "## skill-lens — ❌ gate failed\n"
        "\n"
        "**1/3 passed** · 1 failed · 1 errored · 1 not run · pass rate 33%\n"
        "\n"
        "### Gate failed\n"
        "\n"
        "- pass rate 50% is below the required 100%\n"
        "- 1 case errored\n"
        "\n"
        "| Metric | Value |\n"
        "|---|---|\n"
        "| Tokens | 1,234 |\n"
        "| Cost | $0.0100 |\n"
        "| Latency | 1.50s |\n"
        "| Baseline errored | 1 |\n"
        "\n"
        "### Per skill\n"
        "\n"
        "| Skill | Pass rate | Passed | Failed | Errored |\n"
        "|---|---|---|---|---|\n"
        "| greet | 33% | 1 | 1 | 1 |\n"
        "\n"
        "<details><summary>Failures and errors (1 failed, 1 errored)</summary>\n"
        "\n" + expected_excerpt + "\n"
        "</details>\n"
        "\n"
        "<details><summary>Not run (1)</summary>\n"
        "\n"
        "- greet :: z (fake) — \\-x\n"
        "\n"
        "</details>\n"
        "\n"
        "<sub>Skipped (no eval cases): empty</sub>\n"
    )


def test_full_output_lifts_the_cap() -> None:
    text = render_markdown(failing_record(), FAILED, full_output=True)
    assert "x" * 600 in text
    assert "more characters" not in text


def test_failure_titles_and_run_suffix() -> None:
    only_errors = RunRecord(outcomes=[outcome("errored"), outcome("errored", repeat_index=1)])
    text = render_markdown(only_errors, FAILED)
    assert "<summary>Errors (2)</summary>" in text
    assert "**`greet` :: `c [run 2/2]`** (fake) — errored" in text
    only_failures = RunRecord(outcomes=[outcome("failed")])
    assert "<summary>Failures (1)</summary>" in render_markdown(only_failures, FAILED)


def test_baseline_failures_are_not_expanded() -> None:
    record = RunRecord(outcomes=[outcome(), outcome("failed", arm="baseline")])
    assert "<details>" not in render_markdown(record, PASSED)


def test_unpriced_totals_rows() -> None:
    judge = Score("judge", True, 1.0, "ok", cost_note="no price")
    record = RunRecord(outcomes=[outcome(cost_note="no price", scores=[judge])])
    text = render_markdown(record, PASSED)
    assert (
        "| Cost | not priced |\n"
        "| Cost note | some costs not priced; see per-case cost_note in the JSON report |\n"
        "| Judge overhead | not priced |\n"
        "| Judge overhead note | some judge costs not priced;"
        " see scores[].cost_note in the JSON report |\n"
    ) in text


def test_truncation_drops_optional_blocks_from_the_end() -> None:
    record = failing_record()
    record.skipped_skills = [f"skill-{i}" for i in range(20)]  # longer than the note
    full = render_markdown(record, FAILED)
    text = render_markdown(record, FAILED, max_chars=len(full) - 1)
    assert len(text) <= len(full) - 1
    assert "<sub>Skipped" not in text  # the last block goes first
    assert "<summary>Not run (1)</summary>" in text
    assert text.endswith("</details>\n\n" + TRUNCATED_NOTE + "\n")
    # Only the totals table left (it is the last to go).
    limit = len(full.split("\n\n### Per skill")[0]) + len(TRUNCATED_NOTE) + 3
    text = render_markdown(record, FAILED, max_chars=limit)
    assert text.endswith("| Baseline errored | 1 |\n\n" + TRUNCATED_NOTE + "\n")
    assert "### Per skill" not in text


def test_truncation_elides_reasons_then_cuts_hard() -> None:
    record = RunRecord(outcomes=[outcome("failed")])
    long = "x" * 60
    gate = GateResult(False, 1, ("first reason", f"second {long}", f"third {long}"))
    head = (
        "## skill-lens — ❌ gate failed\n\n**0/1 passed** · 1 failed · 0 errored · pass rate 0%\n\n"
    )
    one_reason = (
        head + "### Gate failed\n\n- first reason\n- _+2 more reason(s) — see the JSON report._\n\n"
        + TRUNCATED_NOTE + "\n"
    )  # fmt: skip
    assert render_markdown(record, gate, max_chars=len(one_reason)) == one_reason
    no_reason = one_reason.replace("- first reason\n", "").replace("+2 more", "+3 more")
    assert render_markdown(record, gate, max_chars=len(one_reason) - 1) == no_reason
    assert render_markdown(record, gate, max_chars=30) == no_reason[:30]


def test_passing_gate_that_does_not_fit_is_cut_hard() -> None:
    record = RunRecord(outcomes=[outcome()])
    text = render_markdown(record, PASSED, max_chars=20)
    assert text == "## skill-lens — ✅ ga"  # characters, not bytes


def test_max_chars_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        render_markdown(RunRecord(), PASSED, max_chars=0)


def test_inline_escaping_collapses_newlines() -> None:
    assert inline("a *b*\n\n_c_ | [d](e) <img>") == "a \\*b\\* \\_c\\_ \\| \\[d\\](e) \\<img\\>"
    assert inline("- item") == "\\- item"
    assert inline("1. first") == "1\\. first"
    assert inline("# head & tail") == "\\# head \\& tail"


def test_code_span_and_fence_cannot_be_closed_from_inside() -> None:
    assert code("plain") == "`plain`"
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert code("") == "` `"
    assert fence("has ``` inside") == "````text\nhas ``` inside\n````"
    assert fence("plain") == "```text\nplain\n```"


def test_a_run_with_no_case_shows_no_pass_rate_rather_than_zero_percent() -> None:
    from pytest_skill_lens.report.markdown import summary_line

    counts = RunRecord(not_run=[{"skill_name": "a"}, {"skill_name": "b"}]).figures
    assert summary_line(counts) == (
        "**0/0 passed** · 0 failed · 0 errored · 2 not run · no case ran: no pass rate"
    )
