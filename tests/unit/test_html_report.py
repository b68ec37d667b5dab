"""The HTML report as text: the data block cannot be escaped from, the CSP allows only the
page's own style and script, nothing reaches the network, and the page stays small.

What the page does when a browser runs it is tested in
``tests/plugin/test_html_report_browser.py``.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.cli import console
from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.html import render_html
from pytest_skill_lens.report.html.embed import DATA_ID, data_json
from pytest_skill_lens.report.html.evidence import EVIDENCE_KEY
from pytest_skill_lens.report.html.page import SCRIPT_PARTS, STYLE_FILE, asset, digest
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score

HOSTILE = (
    "</script><script>window.pwned=1</script><!-- <script> </SCRIPT > </style>"
    ' <img src=x onerror="window.pwned=2"> & \u2028\u2029 \ud800 é'
)
CODE_BUDGET = 100_000  # bytes of markup, style and script around the data
PAGE_BUDGET = 300_000  # the whole page of a report the size of the examples'


def _report(output: str = HOSTILE, outcomes: int = 1, **more: Any) -> dict[str, Any]:
    check = CheckResult("contains[0]", False, f"expected 'x' in {output!r}")
    record = RunRecord(
        outcomes=[
            Outcome(
                skill_name=f"skill {output}",
                case_name=f"case-{i}",
                runner="scripted",
                status="failed",
                scores=[Score("assertion", False, 0.0, "0/1 checks held", (check,))],
                output=output,
                tool_calls=(ToolCall("lookup", {"q": output}),),
                nodeid=f"skills/s/SKILL.md::case-{i}[scripted]",
            )
            for i in range(outcomes)
        ],
        **more,
    )
    data: dict[str, Any] = json.loads(render_json(record, GateResult(False, 1, (output,))))
    return data


def _script_elements(page: str) -> list[tuple[str, str]]:
    return re.findall(r"<script([^>]*)>(.*?)</script>", page, flags=re.DOTALL)


def _outcomes(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The page data's outcomes whole: each light part with its compressed heavy part."""
    heavy = [
        rest
        for block in data[EVIDENCE_KEY]["blocks"]
        for rest in json.loads(zlib.decompress(base64.b64decode(block)))
    ]
    keys = data[EVIDENCE_KEY]["light_keys"]
    return [
        {**dict(zip(keys, light, strict=True)), **rest}
        for light, rest in zip(data["outcomes"], heavy, strict=True)
    ]


def _csp(page: str) -> dict[str, str]:
    found = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert found is not None
    directives = (part.strip().split(" ", 1) for part in found.group(1).split(";"))
    return {name: value for name, value in directives}


def test_hostile_text_cannot_end_the_data_block() -> None:
    page = render_html(_report())
    # Exactly two script elements: the data and the page's own script.
    elements = _script_elements(page)
    assert [attrs for attrs, _ in elements] == [f' type="application/json" id="{DATA_ID}"', ""]
    data_text = elements[0][1]
    for dangerous in ("<", ">", "&", "\u2028", "\u2029"):
        assert dangerous not in data_text
    assert data_text.isascii()
    assert page.lower().count("</script") == 2
    assert "<!--" not in page and "<img" not in page
    assert "onerror" not in page.split(f'id="{DATA_ID}">')[0]


def test_data_block_reads_back_as_the_report() -> None:
    report = _report()
    block = _script_elements(render_html(report))[0][1]
    back = json.loads(block)
    # Everything survives, but the lone surrogate (no UTF-8 file can hold one).
    assert _outcomes(back)[0]["output"] == HOSTILE.replace("\ud800", "\ufffd")
    assert back["gate"] == report["gate"]
    assert back["summary"] == report["summary"]


def test_data_json_turns_nan_into_null() -> None:
    assert json.loads(data_json({"x": float("nan"), "y": [float("inf")]})) == {
        "x": None,
        "y": [None],
    }


def test_csp_allows_only_the_pages_own_style_and_script() -> None:
    page = render_html(_report())
    csp = _csp(page)
    assert csp["default-src"] == "'none'"
    style = re.search(r"<style>(.*?)</style>", page, flags=re.DOTALL)
    assert style is not None
    assert csp["style-src"] == f"'{digest(style.group(1))}'"
    assert csp["script-src"] == f"'{digest(_script_elements(page)[1][1])}'"
    assert csp["base-uri"] == "'none'" and csp["form-action"] == "'none'"
    assert "unsafe" not in " ".join(csp.values())
    # The policy comes before anything it governs.
    assert page.index("Content-Security-Policy") < page.index("<style>")


def test_the_page_reaches_no_network() -> None:
    page = render_html(_report(output="plain"))
    assert "https://" not in page
    # The one URL is the SVG namespace, an identifier that is never fetched.
    assert set(re.findall(r"http://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"\b(src|href)=\"(?!data:|#)", page)


def test_the_script_never_parses_text_as_markup() -> None:
    script = "\n".join(asset(name) for name in SCRIPT_PARTS)
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script
    assert "new Function" not in script
    assert "textContent" in script
    # Style attributes would need 'unsafe-inline' under this CSP.
    assert not re.search(r"""["']style["']\s*:""", script)


def test_the_page_is_a_pure_function_of_the_report() -> None:
    report = _report()
    kept = copy.deepcopy(report)
    assert render_html(report) == render_html(kept)
    assert report == kept


def test_an_aborted_report_renders() -> None:
    data = json.loads(render_json(RunRecord(aborted="interrupted"), GateResult(False, 2)))
    page = render_html(data)
    assert json.loads(_script_elements(page)[0][1])["aborted_reason"] == "interrupted"


def test_size_budget() -> None:
    empty = render_html(_report(outcomes=0))
    code = len(empty.encode()) - len(data_json(_report(outcomes=0)))
    assert code < CODE_BUDGET, f"{code} bytes of code"
    assert len(asset(STYLE_FILE)) + sum(len(asset(n)) for n in SCRIPT_PARTS) < CODE_BUDGET
    # Sixteen outcomes with long outputs, as the examples' report has.
    page = render_html(_report(output="word " * 400, outcomes=16))
    assert len(page.encode()) < PAGE_BUDGET


def test_html_command_writes_the_page_of_a_report(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text(render_json(RunRecord(), GateResult(True, 0)), encoding="utf-8")
    out = tmp_path / "out" / "page.html"
    assert console(["html", str(report), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render_html(json.loads(report.read_text()))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not JSON"),
        ('{"run": {"tool": "other"}}', "not a pytest-skill-lens report"),
    ],
)
def test_html_command_refuses_what_is_no_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    report = tmp_path / "report.json"
    report.write_text(content, encoding="utf-8")
    out = tmp_path / "page.html"
    out.write_text("an earlier page", encoding="utf-8")
    assert console(["html", str(report), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "pytest-skill-lens html:" in err and message in err and "fix:" in err
    assert out.read_text() == "an earlier page"  # nothing was drawn, nothing replaced


def test_html_command_says_when_it_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    report.write_text(render_json(RunRecord(), GateResult(True, 0)), encoding="utf-8")
    (tmp_path / "taken").mkdir()
    assert console(["html", str(report), "-o", str(tmp_path / "taken")]) == 2
    assert f"Failed to write HTML report to {tmp_path / 'taken'}: Is a directory" in (
        capsys.readouterr().err
    )


def test_merge_still_dispatches(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert console(["--help"]) == 0
    assert "merge" in capsys.readouterr().out


def test_a_replayed_outcome_carries_every_field_the_page_marks_it_with() -> None:
    replayed = Outcome(
        skill_name="s",
        case_name="c",
        runner="claude-code",
        status="passed",
        replayed=True,
        replayed_calls=1,
        cassette="skills/s/evals/cassettes/s/c-1.claude-code.json",
        recorded_at="2026-01-31",
    )
    data = json.loads(render_json(RunRecord(outcomes=[replayed]), GateResult(True, 0)))
    page = render_html(data)
    embedded = json.loads(_script_elements(page)[0][1])
    (outcome,) = _outcomes(embedded)
    # Every field the script reads to mark a replay is one the JSON report writes.
    script = "\n".join(asset(name) for name in SCRIPT_PARTS)
    read = set(re.findall(r"\bo\.(replayed\w*|recorded_at|cassette\w*)", script))
    assert read == {"replayed", "replayed_calls", "recorded_at", "cassette", "cassette_note"}
    assert read <= data["outcomes"][0].keys()
    assert (outcome["replayed"], outcome["recorded_at"]) == (True, "2026-01-31")
    summary_fields = set(re.findall(r"\breplay\.(\w+)", script))
    assert summary_fields == {"replayed", "partly_replayed", "of", "oldest_recorded_at", "note"}
    assert summary_fields <= embedded["summary"]["replay"].keys()
    assert embedded["summary"]["replay"]["oldest_recorded_at"] == "2026-01-31"
    assert '"(" + word + ")"' in script  # the row's marker beside the status word
