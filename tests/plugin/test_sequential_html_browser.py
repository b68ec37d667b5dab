"""The HTML report of an ``auto:N`` run in headless Chromium: what it spent, what it did
not spend and why, and each decision, as the console says them (see
test_html_report_browser.py for the browser; test_sequential_e2e.py for the suite)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun
from test_html_report_browser import Page, browser  # noqa: F401  (the module's browser)
from test_sequential_e2e import write_suite

# slow: drives a real Chromium (-m "not slow" skips it)
pytestmark = pytest.mark.slow


@pytest.fixture
def report(pytester: pytest.Pytester, browser: Any) -> Iterator[Page]:  # noqa: F811
    write_suite(pytester.path)
    result = LensRun(runner="fake", json="report.json")(pytester, "--skill-lens-html", "r.html")
    assert result.ret == 1, result.stdout.str()
    page = Page(browser, pytester.path / "r.html")
    yield page
    page.page.close()


def test_the_page_says_what_was_not_spent_and_each_decision(report: Page) -> None:
    savings = report.page.locator("#totals ul.savings li").all_inner_texts()
    assert savings[0] == "Spent: 32 run(s) made, $0 new spend (no run said what it cost)"
    assert savings[1] == (
        "28 run(s) not spent: stopped early, their skill's question decided "
        "(--skill-lens-repeat auto; broken 16, sure 12)"
    )
    assert savings[2].startswith("Repeats: auto:6, betting test")
    assert (
        "skill 'sure' pass rate is at least 70%: decided after round 3 "
        "(betting test, alpha 0.05; 100% so far)"
    ) in savings
    assert "repeat auto:6" in report.page.locator("header p.muted").inner_text()
    assert report.errors == []


def test_the_page_counts_outcomes_reused_from_the_store_apart(
    tmp_path: Path,
    browser: Any,  # noqa: F811
) -> None:
    from pytest_skill_lens.report.html.page import render_html
    from pytest_skill_lens.report.json_report import report_dict
    from unit.test_savings import PASSED, with_reused  # the unit test's record: one of each

    path = tmp_path / "r.html"
    path.write_text(render_html(report_dict(with_reused(), PASSED)), encoding="utf-8")
    page = Page(browser, path)
    savings = page.page.locator("#totals ul.savings li").all_inner_texts()
    assert (
        "1 outcome(s) replayed from cassettes: $0.2500, their recorded cost, paid when they "
        "were recorded and not again"
    ) in savings
    assert (
        "1 outcome(s) reused from the store (recorded at commit 1a2b3c4d on 2026-12-05 "
        "03:40:12 UTC): $0.1250, their recorded cost, not paid again"
    ) in savings
    assert page.errors == []
    page.page.close()
