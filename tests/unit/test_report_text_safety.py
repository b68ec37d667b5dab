"""Hostile text (lone surrogates, terminal escapes, NUL, bidi overrides) in anything a runner,
an eval file or a judge hands back never crashes a report, and never reaches it raw.

The rule the reports follow: a lone surrogate (text that no UTF-8 file can hold) becomes
U+FFFD everywhere. JSON keeps every other character as data (its encoder escapes control
characters); Markdown, the console section and JUnit amendments show C0 controls and DEL as
their Unicode control pictures (ESC as U+241B), and C1 controls, bidi overrides and
non-characters as U+FFFD.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.report.junit_gate import add_gate_case
from pytest_skill_lens.report.junit_properties import add_suite_properties
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.printable import printable, scrub, scrub_data
from pytest_skill_lens.report.terminal import summary_lines
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score

HOSTILE = "bad \udc80 esc \x1b[2J nul \x00 c1 \x85 bidi \u202e del \x7f end"
# What must never reach a rendered report: every control but tab, newline and CR, C1,
# bidi controls, non-characters, and lone surrogates.
_RAW = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufffe\uffff\ud800-\udfff]"
)

FAILED = GateResult(False, 1, (f"per-skill minimum not met for {HOSTILE}",))


def hostile_record() -> RunRecord:
    check = CheckResult("contains[0]", False, f"evidence {HOSTILE}")
    score = Score("assertion", False, 0.0, f"detail {HOSTILE}", (check,), cost_note=HOSTILE)
    failed = Outcome(
        skill_name=f"skill {HOSTILE}",
        case_name=f"case {HOSTILE}",
        runner=f"runner {HOSTILE}",
        status="failed",
        scores=[score],
        output=f"output {HOSTILE}",
        error=f"error {HOSTILE}",
        model=HOSTILE,
        stop_note=HOSTILE,
        tool_calls=(ToolCall(f"tool {HOSTILE}", {f"key {HOSTILE}": [HOSTILE, {"n": HOSTILE}]}),),
        hooks=({"name": HOSTILE, "outcome": "failed", "stdout": HOSTILE, "stderr": HOSTILE},),
        workspace=f"/tmp/{HOSTILE}",
        latency_ms=math.nan,
        cost_usd=math.inf,
    )
    return RunRecord(
        outcomes=[failed],
        skipped_skills=[f"skipped {HOSTILE}"],
        deselected_skills=[f"deselected {HOSTILE}"],
        tag_filtered_skills=[f"deselected {HOSTILE}"],
        not_run=[{"skill_name": HOSTILE, "case_name": HOSTILE, "runner": "x", "reason": HOSTILE}],
        scripts={"sandbox": "none", "detail": HOSTILE, "hardening": HOSTILE},
        script_notes=[{"skill_name": HOSTILE, "script_count": 1, "product_note": None}],
    )


def test_scrub_replaces_lone_surrogates_and_joins_split_pairs() -> None:
    assert scrub("a\udc80b\ud800") == "a\ufffdb\ufffd"
    # A pair held as two code points (what surrogatepass decoding leaves) is one character.
    assert scrub("\ud83d\ude00") == "\U0001f600"
    assert scrub("plain ✅ text") == "plain ✅ text"


def test_printable_shows_controls_as_pictures_and_replaces_the_rest() -> None:
    assert printable(HOSTILE) == (
        "bad \ufffd esc \u241b[2J nul \u2400 c1 \ufffd bidi \ufffd del \u2421 end"
    )
    assert printable("tab\tnewline\nreturn\r") == "tab\tnewline\nreturn\r"


def test_scrub_data_walks_keys_values_and_drops_non_finite_numbers() -> None:
    data: dict[str, Any] = {"k\udc80": ["\udc81", (1, math.nan)], "x": math.inf, "ok": 1.5}
    assert scrub_data(data) == {"k\ufffd": ["\ufffd", [1, None]], "x": None, "ok": 1.5}


def test_json_report_is_strict_utf8_json_with_the_replacement() -> None:
    text = render_json(hostile_record(), FAILED)
    text.encode("utf-8")  # never raises
    # No escaped lone surrogate (a strict parser refuses one) and no NaN/Infinity.
    assert not re.search(r"\\ud[89a-f][0-9a-f]{2}", text, re.IGNORECASE)
    report = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    (outcome,) = report["outcomes"]
    assert (
        outcome["output"]
        == "output bad \ufffd esc \x1b[2J nul \x00 c1 \x85 bidi \u202e del \x7f end"
    )
    assert outcome["latency_ms"] is None and outcome["cost_usd"] is None
    (call,) = outcome["tool_calls"]
    assert list(call["arguments"]) == [f"key {scrub(HOSTILE)}"]
    assert report["gate"]["reasons"] == [f"per-skill minimum not met for {scrub(HOSTILE)}"]
    assert report["summary"]["pass_rate_by_skill"] == {f"skill {scrub(HOSTILE)}": 0.0}


@pytest.mark.parametrize("max_chars", [None, 400])
def test_markdown_report_encodes_and_shows_nothing_raw(max_chars: int | None) -> None:
    text = render_markdown(hostile_record(), FAILED, max_chars=max_chars)
    text.encode("utf-8")  # never raises
    assert not _RAW.search(text), repr(_RAW.findall(text))
    assert "\ufffd" in text
    if max_chars is None:
        assert "\u241b[2J" in text  # the case name's ESC, shown as its picture


def test_console_summary_lines_show_nothing_raw() -> None:
    lines = summary_lines(hostile_record(), FAILED)
    for line in lines:
        line.encode("utf-8")
        assert not _RAW.search(line), repr(line)
    assert any("\u241b[2J" in line for line in lines)


JUNIT = (
    '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
    '<testsuite name="pytest" errors="0" failures="0" skipped="0" tests="0" time="0.1" />'
    "</testsuites>"
)


def test_junit_amendments_stay_well_formed_xml() -> None:
    amended = add_gate_case(JUNIT, [f"reason {HOSTILE}", "second"])
    assert amended is not None
    amended = add_suite_properties(amended, [("skill_lens_scripts", f"line {HOSTILE}")])
    assert amended is not None
    root = ET.fromstring(amended.encode("utf-8"))
    error = root.find("testsuite[@name='skill-lens']/testcase[@name='gate']/error")
    assert error is not None
    assert error.get("message") == f"reason {printable(HOSTILE)}"
    values = [p.get("value") for p in root.iter("property")]
    assert f"line {printable(HOSTILE)}" in values
