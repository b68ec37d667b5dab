"""The page's compressed evidence in a real headless Chromium: opened on demand.

A page of 1,201 outcomes (three blocks) whose one outcome holds a word in its evidence
only: the word is nowhere in the page's text, yet opening the row shows it (its block
decompressed by DecompressionStream) and searching for it finds that row. A browser
without DecompressionStream (deleted before the page's script runs) still draws the
table, filters and searches what it has, and says, where the evidence would be, that it
cannot open it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_html_report_browser import Page, browser  # noqa: F401  (the module's browser)

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.written import report_targets, write_reports
from pytest_skill_lens.score.check import CheckResult, Score

# slow: drives a real Chromium
pytestmark = pytest.mark.slow

TOTAL, RARE = 1201, 1103  # the rare word's outcome is in the third block
WORD = "zanzibarite"
CANNOT = "This browser cannot open the compressed evidence of this page"


def _outcome(i: int) -> Outcome:
    evidence = f"'{WORD}' found" if i == RARE else "'handled' found"
    check = CheckResult("contains[0]", True, evidence)
    return Outcome(
        skill_name=f"skill-{i // 100:03d}",
        case_name=f"case {i}",
        runner="fake",
        status="failed" if i % 5 == 0 else "passed",
        scores=[Score("assertions", True, 1.0, "1 check", (check,))],
        output=f"</script><!-- handled request {i} \u2028",
        nodeid=f"skills/s/SKILL.md::case {i}[fake]",
        order=i,
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    record = RunRecord(outcomes=[_outcome(i) for i in range(TOTAL)])
    path = tmp_path / "report.html"
    writes = write_reports(report_targets(record, GateResult(True, 0), html_path=path))
    assert not writes.errors
    assert WORD not in path.read_text(encoding="utf-8")  # it travels compressed
    return path


def test_a_row_opened_shows_its_decompressed_evidence(path: Path, browser: Any) -> None:  # noqa: F811
    report = Page(browser, path)
    page = report.page
    page.fill("#outcome-search", WORD)  # found only in the evidence: every block opened
    page.wait_for_selector("#outcome-count:not([aria-busy])")
    assert page.locator("#outcome-count").inner_text() == f"showing 1 of {TOTAL} outcome(s)"
    row = page.locator("tr.outcome")
    assert row.count() == 1 and f"case {RARE}" in row.inner_text()
    row.locator("button.toggle").click()
    detail = page.locator("tr.detail:visible")
    assert f"'{WORD}' found" in detail.locator("table.checks").inner_text()
    assert detail.locator("pre.output").inner_text() == (
        f"</script><!-- handled request {RARE} \u2028"
    )
    assert report.errors == []
    page.close()


def test_a_row_opened_before_any_search_decompresses_its_block(path: Path, browser: Any) -> None:  # noqa: F811
    report = Page(browser, path)
    page = report.page
    page.select_option("#status-filter", "failed")  # the filters need no evidence
    assert page.locator("#outcome-count").inner_text() == f"showing 241 of {TOTAL} outcome(s)"
    page.select_option("#status-filter", "all")
    for _ in range(11):  # the page of the rare outcome, in the third block
        page.click("#outcome-next")
    toggle = page.locator("tr.outcome", has_text=f"case {RARE}").locator("button.toggle")
    toggle.click()
    detail = page.locator("#" + (toggle.get_attribute("aria-controls") or ""))
    assert f"'{WORD}' found" in detail.locator("table.checks").inner_text()
    assert "node id" in detail.inner_text() and f"case {RARE}[fake]" in detail.inner_text()
    assert report.errors == []
    page.close()


def test_without_decompression_the_page_says_it_cannot_open_the_evidence(
    path: Path,
    browser: Any,  # noqa: F811
) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script("delete window.DecompressionStream;")
    page.goto(path.as_uri())
    page.wait_for_selector("#outcome-table")
    assert page.evaluate("typeof DecompressionStream") == "undefined"
    assert page.locator("#outcome-count").inner_text() == f"showing {TOTAL} of {TOTAL} outcome(s)"
    page.select_option("#status-filter", "failed")
    assert page.locator("#outcome-count").inner_text() == f"showing 241 of {TOTAL} outcome(s)"
    page.select_option("#status-filter", "all")
    page.fill("#outcome-search", f"case {RARE}")  # names are on the page: found
    page.wait_for_selector("#outcome-count:not([aria-busy])")
    assert (
        page.locator("#outcome-count").inner_text().startswith(f"showing 1 of {TOTAL} outcome(s)")
    )
    assert CANNOT in page.locator("#outcome-count").inner_text()  # and what was not searched
    toggle = page.locator("tr.outcome button.toggle")
    toggle.click()
    detail = page.locator("#" + (toggle.get_attribute("aria-controls") or ""))
    assert CANNOT in detail.inner_text()
    assert "The JSON report holds the same" in detail.inner_text()
    assert errors == []
    page.close()


@pytest.mark.parametrize("block", ["not base64!", "AAAA"])  # atob refuses it; no deflate
def test_a_damaged_block_is_said_so_where_its_evidence_would_be(
    path: Path,
    browser: Any,  # noqa: F811
    block: str,
) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index('"blocks":["') + len('"blocks":["')
    path.write_text(text[:start] + block + text[text.index('"', start) :], encoding="utf-8")
    report = Page(browser, path)
    toggle = report.page.locator("tr.outcome button.toggle").first
    toggle.click()
    detail = report.page.locator("#" + (toggle.get_attribute("aria-controls") or ""))
    assert "could not be opened" in detail.inner_text()
    assert "The JSON report holds the same" in detail.inner_text()
    assert [e for e in report.errors if "page error" in e] == []
    report.page.close()
