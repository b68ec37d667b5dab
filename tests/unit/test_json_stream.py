"""The JSON report and the page's data, written outcome by outcome (issue 35).

The file and the page hold the same data as the whole report built in memory and
scrubbed (the way both were written before), whatever the outcomes hold: lone
surrogates, a NaN in a tool's arguments, a mapping that is no dict, an astral character,
a backslash before ``ud``. Only the layout of the file changed: each outcome on a line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from pytest_skill_lens.atomic_file import write_atomically
from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.html import render_html
from pytest_skill_lens.report.html.page import page_chunks
from pytest_skill_lens.report.json_report import json_chunks, render_json, report_dict
from pytest_skill_lens.report.printable import scrub, scrub_data
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score

GATE = GateResult(False, 1, ("1 case failed \ud800",))


def _outcome(case: str, output: str, **fields: Any) -> Outcome:
    return Outcome(
        skill_name="greet", case_name=case, runner="fake", status="failed", output=output, **fields
    )


def _record() -> RunRecord:
    check = CheckResult("contains[0]", False, "lone \udc00 here")
    score = Score("assertions", False, 0.0, "0/1", (check,), cost_note=None)
    arguments: dict[str, Any] = {
        "nan": math.nan,
        "tuple": (1, 2.5, "x"),
        "proxy": MappingProxyType({"k": "v"}),
        "other": frozenset({1}),  # no JSON type: its text
    }
    return RunRecord(
        outcomes=[
            _outcome("plain", "héllo 😀 <b>&</b>"),
            _outcome("surrogate \ud83d", "lone \ud800 and split \ud83d\ude00", scores=[score]),
            _outcome("args", "a backslash \\ud800 is text", tool_calls=(ToolCall("t", arguments),)),
        ],
        not_run=[{"skill_name": "greet", "case_name": "later", "runner": "fake", "reason": "x"}],
        skipped_skills=["bad \udfff"],
    )


def _as_before(record: RunRecord, gate: GateResult) -> Any:
    """The data as the report was written before: built whole, scrubbed, then dumped."""
    whole = scrub_data(report_dict(record, gate))
    return json.loads(json.dumps(whole, default=lambda v: scrub(str(v)), allow_nan=False))


def test_the_file_holds_the_same_data_as_the_whole_report() -> None:
    record = _record()
    assert json.loads(render_json(record, GATE)) == _as_before(record, GATE)
    assert render_json(record, GATE).isascii()


def test_each_outcome_and_not_run_entry_is_one_line() -> None:
    text = render_json(_record(), GATE)
    lines = text.splitlines()
    start = lines.index('  "outcomes": [')
    rows = lines[start + 1 : start + 4]
    assert lines[start + 4] == "  ],"
    assert [json.loads(row.strip().rstrip(","))["case_name"] for row in rows] == [
        "plain",
        "surrogate \ufffd",
        "args",
    ]
    [entry] = [line for line in lines if '"case_name": "later"' in line]
    assert json.loads(entry.strip())["reason"] == "x"
    # The rest keeps its two-space indentation.
    assert text.startswith('{\n  "summary": {\n    "total": 3,')
    assert '  "outcomes": [],' in render_json(RunRecord(), GATE)


def test_the_report_comes_in_pieces_not_one_text() -> None:
    record = RunRecord(outcomes=[_outcome(f"c{i}", "x" * 1000) for i in range(20)])
    chunks = list(json_chunks(record, GATE))
    assert max(len(chunk) for chunk in chunks) < 3000  # one outcome at a time, at most
    assert "".join(chunks) == render_json(record, GATE)


def test_the_page_from_the_record_is_the_page_from_the_json_text() -> None:
    record = _record()
    from_text = render_html(json.loads(render_json(record, GATE)))
    assert "".join(page_chunks(record, GATE)) == from_text


def test_a_stream_is_written_atomically(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    write_atomically(path, iter(["{", '"a": 1', "}"]))
    assert path.read_text(encoding="utf-8") == '{"a": 1}'


def test_a_stream_that_breaks_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text("old", encoding="utf-8")

    def broken() -> Any:
        yield "{"
        raise ValueError("cannot render")

    with pytest.raises(ValueError, match="cannot render"):
        write_atomically(path, broken())
    assert path.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_stream_replaces_a_link_and_never_follows_it(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text("keep", encoding="utf-8")
    path = tmp_path / "report.json"
    path.symlink_to(target)
    write_atomically(path, iter(["new"]))
    assert not path.is_symlink() and path.read_text(encoding="utf-8") == "new"
    assert target.read_text(encoding="utf-8") == "keep"
