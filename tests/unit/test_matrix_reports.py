"""The portability matrix as each report shows it, and its strict reading back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_skill_lens.gate.judging import judge_record
from pytest_skill_lens.gate.record import GateResult, GateSettings, RunRecord, RunSettings
from pytest_skill_lens.labels import Status
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_read import ReportError, read_report
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.matrix_lines import SHOWN
from pytest_skill_lens.report.terminal import summary_lines

HOSTILE = "evil | `x` <b>\x1b[2J"


def judged(plan: list[tuple[str, str, Status]], runners: tuple[str, ...]) -> RunRecord:
    outcomes = [
        Outcome("greet", case, runner, status, order=order)
        for order, (case, runner, status) in enumerate(plan)
    ]
    record = RunRecord(outcomes=outcomes, run=RunSettings(runners=runners), skills_found=1)
    return judge_record(record, GateSettings(min_pass_rate=0.0))[0]


def two_runners() -> RunRecord:
    return judged(
        [
            ("ok", "a", "passed"),
            ("ok", "b", "passed"),
            (HOSTILE, "a", "passed"),
            (HOSTILE, "b", "failed"),
            ("gone", "a", "passed"),
            ("gone", "b", "errored"),
        ],
        ("a", "b"),
    )


def text(record: RunRecord) -> str:
    return render_json(record, GateResult(True, 0))


def forged(record: RunRecord, change: Any) -> str:
    data = json.loads(text(record))
    change(data["portability"])
    return json.dumps(data)


def test_the_terminal_keeps_a_hostile_name_on_its_line() -> None:
    lines = summary_lines(two_runners(), GateResult(True, 0))
    start = lines.index("Portability across runners (candidate arm): 2 runner(s), 3 case(s)")
    block = lines[start:]
    assert (
        "  runner b: pass rate 50% over 2 case(s), 95% interval [9%, 91%], confidence low; "
        "no verdict: 1 errored"
    ) in block
    divergent = [line for line in block if "passed under a; failed under b" in line]
    assert len(divergent) == 1 and "\x1b" not in divergent[0]
    assert "    - greet :: gone: b errored" in block


def test_a_large_grid_is_left_to_the_files_and_its_lists_are_cut() -> None:
    cases = [f"c{i:02}" for i in range(SHOWN + 5)]
    plan: list[tuple[str, str, Status]] = []
    for case in cases:
        plan += [(case, "a", "passed"), (case, "b", "failed")]
    lines = summary_lines(judged(plan, ("a", "b")), GateResult(True, 0))
    assert f"  Per case: {SHOWN + 5} cases, in the JSON, Markdown and HTML reports" in lines
    assert f"  Pass in one runner, fail in another ({SHOWN + 5}):" in lines
    assert "    ... and 5 more (every one is in the JSON report)" in lines
    assert not any(line.startswith("    greet :: c00  ") for line in lines)


def test_past_five_runners_each_is_compared_with_the_first() -> None:
    names = tuple(f"r{i}" for i in range(6))
    record = judged([("c", name, "passed") for name in names], names)
    lines = summary_lines(record, GateResult(True, 0))
    assert "  each runner against r0, the first named:" in lines
    assert sum(line.startswith("  r0 - ") for line in lines) == 5
    markdown = render_markdown(record, GateResult(True, 0))
    assert "Each runner against r0, the first named." in markdown
    assert json.loads(text(record))["portability"]["pairing"] == "against the first"


def test_markdown_escapes_names_in_every_table() -> None:
    markdown = render_markdown(two_runners(), GateResult(True, 0))
    start = markdown.index("### Portability")
    block = markdown[start : markdown.index("Failures and errors", start)]
    assert "evil \\| \\`x\\` \\<b\\>" in block
    assert "| greet :: evil \\| \\`x\\` \\<b\\>" in block
    assert "<b>" not in block
    assert "| a − b | 2 | 100% vs 50% | **+50%** [" in block


def test_one_runner_writes_null_and_no_section() -> None:
    record = judged([("ok", "a", "passed")], ("a",))
    assert record.matrix is None
    assert json.loads(text(record))["portability"] is None
    assert "Portability" not in render_markdown(record, GateResult(True, 0))
    assert read_report(text(record)).outcomes == record.outcomes


def test_the_reader_accepts_what_the_writer_wrote_and_a_merge_recomputes_it() -> None:
    record = two_runners()
    again = read_report(text(record))
    assert again.matrix is None  # never read: a function of the outcomes
    assert judge_record(again, GateSettings(min_pass_rate=0.0))[0].matrix == record.matrix


def _delete(key: str) -> Any:
    return lambda data: data.pop(key)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda m: m["cases"][0]["cells"][0].update(verdict="great"), "cells[0].verdict"),
        (lambda m: m["cases"][0]["cells"].pop(), "portability.cases[0].cells"),
        (lambda m: m["cases"][0]["cells"][1].update(runner="c"), "portability.cases[0].cells"),
        (lambda m: m["runners"][0].update(pass_rate=1.5), "portability.runners[0].pass_rate"),
        (lambda m: m["runners"].pop(), "portability.runners"),
        (lambda m: m["runners"][1].update(runner="a"), "portability.runners"),
        (lambda m: m["pairs"][0].update(first="zz"), "portability.pairs[0].first"),
        (lambda m: m["pairs"][0].update(difference=-2), "portability.pairs[0].difference"),
        (lambda m: m["pairs"][0]["interval"].update(low=float("nan")), "interval.low"),
        (lambda m: m["pairs"][0].update(confidence="certain"), "pairs[0].confidence"),
        (lambda m: m.update(arm="baseline"), "portability.arm"),
        (lambda m: m.update(pairing="some"), "portability.pairing"),
        (lambda m: m["runners"][0]["without_verdict"].update(errored=-1), "errored"),
        (lambda m: m["not_comparable"][0]["cells"][0].update(verdict=3), "verdict"),
        (lambda m: m["divergent"][0].update(passed_in="a"), "divergent[0].passed_in"),
        (_delete("cases"), "portability.cases"),
        (lambda m: m["divergent"][0].update(failed_in=["zz"]), "divergent[0].failed_in"),
        (lambda m: m["not_comparable"][0]["cells"][0].update(runner="zz"), "cells[0].runner"),
    ],
)
def test_the_reader_refuses_a_forged_matrix_naming_the_field(change: Any, named: str) -> None:
    with pytest.raises(ReportError) as raised:
        read_report(forged(two_runners(), change))
    assert named in raised.value.message


def test_the_reader_refuses_a_report_without_the_key() -> None:
    data = json.loads(text(two_runners()))
    del data["portability"]
    with pytest.raises(ReportError, match='no "portability" key'):
        read_report(json.dumps(data))
    data["portability"] = []
    with pytest.raises(ReportError, match="portability"):
        read_report(json.dumps(data))
