"""The HTML report in a real browser: Debian's Chromium, headless, driven by Playwright.

A real suite (a scripted runner, a failing case, a ``none`` baseline arm and a case whose
output is hostile markup) writes its page with ``--skill-lens-html``; the page is opened
from ``file://`` and used as a person would: no console error, the status filter, a
failing case opened by click and by Enter, hostile text shown as text and never run, the
delta section. Playwright drives the system browser (``executable_path``) and never
downloads one of its own. Without Chromium these tests fail, saying how to install it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun
from skillfactory import QUIET_PLUGINS, make_skill, scripted_runner_conftest, write_file
from test_baseline_arms_e2e import ARMS
from test_baseline_arms_e2e import _suite as arms_suite
from test_baseline_arms_e2e import lens as arms_lens
from test_multiplicity_e2e import GATE as HOLM_GATE
from test_multiplicity_e2e import _run as holm_run
from test_portability_e2e import html_page as portability_page

from pytest_skill_lens.cli import console

# slow: drives a real Chromium (-m "not slow" skips it)
pytestmark = pytest.mark.slow

HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
# As root on a closed network: no sandbox, no GPU, and nothing that phones home
# (without the background-networking flags the closed network floods the log with errors).
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
INSTALL = "apt-get install -y chromium (as .ci/run does)"

CASES = [
    {"name": "greets", "task": "t", "assertions": [{"kind": "contains", "value": "Hello"}]},
    {"name": "refuses", "task": "t", "assertions": [{"kind": "contains", "value": "REFUSED"}]},
    {"name": "hostile", "task": "t", "assertions": [{"kind": "contains", "value": "pwned"}]},
]
# A list price at an endpoint of one's own: the page says so beside the cost.
PRICED = "list price of openai:gpt-4o-mini (genai-prices 0.2.5); your endpoint may bill differently"
SCRIPT: dict[str, dict[str, Any]] = {
    "greets": {"output": "Hello, Ada!", "cost_usd": 0.0025, "price_source": PRICED},
    "refuses": {"output": "Sure, here is your refund."},
    "hostile": {"output": HOSTILE, "tool_calls": [["lookup", {"q": HOSTILE}]]},
}


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(f"Chromium is missing (the HTML report is tested in it); install it: {INSTALL}")
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module, with a fresh profile of its own."""
    executable = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright is missing: pip install -e '.[test]'")
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        yield context
        context.close()


class Page:
    """A report page open in the browser, with every console error and page error kept."""

    def __init__(self, context: Any, path: Path) -> None:
        self.errors: list[str] = []
        self.page = context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("#outcome-table")

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"console {message.type}: {message.text}")

    def visible_statuses(self) -> list[str]:
        # A search first opens the compressed evidence (asynchronously): wait for it.
        self.page.wait_for_selector("#outcome-count:not([aria-busy])")
        rows = self.page.locator("tr.outcome:visible")
        return [rows.nth(i).get_attribute("data-status") or "" for i in range(rows.count())]

    def row(self, case: str, arm: str = "candidate") -> Any:
        return self.page.locator(f'tr.outcome[data-arm="{arm}"]', has_text=case)


SUITE = LensRun(runner="scripted", json="report.json")


def _suite(pytester: pytest.Pytester) -> Path:
    pytester.makeconftest(scripted_runner_conftest(SCRIPT))
    make_skill(pytester.path / "skills", "greet", CASES)
    result = SUITE(pytester, "--skill-lens-baseline", "none", "--skill-lens-html", "report.html")
    assert result.ret == 1, result.stdout.str()  # the failing case fails the gate
    return pytester.path / "report.html"


@pytest.fixture
def report(pytester: pytest.Pytester, browser: Any) -> Iterator[Page]:
    page = Page(browser, _suite(pytester))
    yield page
    page.page.close()


def test_loads_without_console_errors_and_shows_the_verdict(report: Page) -> None:
    page = report.page
    assert page.locator("#verdict .headline").inner_text() == "Gate FAILED"
    assert page.locator("#verdict .reasons li").count() >= 1
    assert page.locator("#totals").is_visible()
    assert page.locator("#charts svg").count() == 2
    assert report.errors == []


def test_the_status_filter_shows_only_failed_rows(report: Page) -> None:
    page = report.page
    assert set(report.visible_statuses()) == {"passed", "failed"}
    page.select_option("#status-filter", "failed")
    statuses = report.visible_statuses()
    assert statuses and set(statuses) == {"failed"}
    assert "showing 2 of 6" in page.locator("#outcome-count").inner_text()
    page.select_option("#status-filter", "all")
    page.fill("#outcome-search", "refund")  # the failing case's output
    assert report.visible_statuses() == ["failed", "failed"]
    assert report.errors == []


def test_clicking_the_failing_case_shows_its_evidence(report: Page) -> None:
    toggle = report.row("refuses").locator("button.toggle")
    detail = report.page.locator("#" + (toggle.get_attribute("aria-controls") or ""))
    assert detail.is_hidden()
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    text = detail.inner_text()
    assert "contains[0]" in text and "FAILED" in text and "REFUSED" in text
    assert "Sure, here is your refund." in text
    assert "transcripts are not recorded in the report" in text.lower()
    toggle.click()
    assert detail.is_hidden()
    assert report.errors == []


def test_enter_on_the_failing_case_shows_its_evidence(report: Page) -> None:
    toggle = report.row("refuses").locator("button.toggle")
    toggle.focus()
    report.page.keyboard.press("Enter")
    detail = report.page.locator("#" + (toggle.get_attribute("aria-controls") or ""))
    detail.wait_for()  # placed once its evidence is decompressed
    assert detail.is_visible()
    assert "REFUSED" in detail.locator("table.checks").inner_text()
    # And the keyboard reaches it from the search box, as a person tabbing would.
    report.page.focus("#outcome-search")
    for _ in range(2):
        report.page.keyboard.press("Tab")
    assert report.page.evaluate("document.activeElement.className") == "toggle"


def test_where_a_cost_came_from_is_shown_beside_it(report: Page) -> None:
    totals = report.page.locator("#totals .price-source").all_inner_texts()
    assert totals == [f"Cost source: {PRICED}"]
    rows = report.page.locator('tr.outcome[data-arm="candidate"] button.toggle')
    toggle = rows.get_by_text("greets", exact=True)  # "greet" is also every row's skill
    toggle.click()
    detail = report.page.locator("#" + (toggle.get_attribute("aria-controls") or ""))
    assert detail.locator("dt:text-is('cost source') + dd").inner_text() == PRICED
    assert report.errors == []


def test_hostile_output_is_text_and_never_runs(report: Page) -> None:
    page = report.page
    toggle = report.row("hostile").locator("button.toggle")
    toggle.click()
    detail = page.locator("#" + (toggle.get_attribute("aria-controls") or ""))
    assert detail.locator("pre.output").inner_text() == HOSTILE
    assert json.dumps(HOSTILE) in detail.locator("ol.calls").inner_text()  # arguments as JSON
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 2  # the data block and the page's own
    assert report.errors == []


def test_the_delta_section_shows(report: Page) -> None:
    delta = report.page.locator("#delta")
    assert "Delta vs baseline (none)" in delta.locator("h2").inner_text()
    assert delta.locator("svg").count() >= 1
    table_text = delta.locator("table").first.inner_text()
    assert "refuses" in table_text and "greets" in table_text
    assert "Low-signal checks" in delta.inner_text()
    assert report.errors == []


def test_status_is_a_word_and_the_page_prints_without_its_controls(report: Page) -> None:
    badge = report.row("refuses").locator(".status")
    assert badge.inner_text() == "FAILED"  # never told by colour alone
    assert report.row("refuses", arm="baseline").locator(".status").inner_text() == (
        "baseline FAILED"
    )
    report.page.emulate_media(media="print")
    assert report.page.locator(".controls").is_hidden()
    assert report.page.locator("#verdict .headline").is_visible()


def test_the_page_of_a_merged_report_opens(pytester: pytest.Pytester, browser: Any) -> None:
    _suite(pytester)
    merged, page_path = pytester.path / "merged.json", pytester.path / "merged.html"
    assert console(["merge", str(pytester.path / "report.json"), "--json", str(merged)]) == 1
    data = json.loads(merged.read_text(encoding="utf-8"))  # one outcome as a replay reads
    data["outcomes"][0].update(replayed=True, recorded_at="2026-01-31")
    merged.write_text(json.dumps(data), encoding="utf-8")
    assert console(["html", str(merged), "-o", str(page_path)]) == 0
    page = Page(browser, page_path)
    assert page.page.locator("tr.outcome").count() == 6
    assert page.page.locator("tr.outcome .replayed").all_inner_texts() == ["(replayed)"]
    assert page.page.locator("#verdict .headline").inner_text() == "Gate FAILED"
    assert page.errors == []
    page.page.close()


def test_a_reused_outcome_says_so_and_from_when(pytester: pytest.Pytester, browser: Any) -> None:
    _suite(pytester)
    report, page_path = pytester.path / "report.json", pytester.path / "reused.html"
    data = json.loads(report.read_text(encoding="utf-8"))
    item = {"skill": "s", "case": "c", "runner": "fake", "arm": "candidate", "repeat": 1}
    origin = {"commit": "0123456789" * 4, "recorded_at": "2026-12-05T03:40:12Z", "item": item}
    data["outcomes"][0].update(replayed=True, reused_from={**origin, "entry": "ab" * 32})
    data["summary"]["reuse"] = {
        "reused": 1,
        "not_reused": 0,
        "of": 6,
        "commits": ["0123456789" * 4],
        "oldest_recorded_at": "2026-12-05T03:40:12Z",
        "note": None,
    }
    report.write_text(json.dumps(data), encoding="utf-8")
    assert console(["html", str(report), "-o", str(page_path)]) == 0
    page = Page(browser, page_path)
    assert page.page.locator("tr.outcome .replayed").all_inner_texts() == ["(reused)"]
    assert (
        "Reused: 1 of 6 outcome(s) from the reuse store, the oldest recorded "
        + ("2026-12-05T03:40:12Z (commit 01234567)")
        in page.page.locator("#totals").inner_text()
    )
    assert page.errors == []
    page.page.close()


def test_the_portability_grid_of_two_runners_shows_with_its_names_as_text(
    pytester: pytest.Pytester, browser: Any
) -> None:
    page = Page(browser, portability_page(pytester))
    section = page.page.locator("#portability")
    assert "Portability across runners" in section.locator("h2").inner_text()
    assert page.page.locator('nav a[href="#portability"]').inner_text() == "Portability"
    grid = section.locator("table.portability-grid")
    assert grid.locator("thead th").all_inner_texts() == ["case", "fake", "cli"]
    hostile = grid.locator("tbody tr", has_text="onerror")
    assert hostile.locator("td").first.inner_text() == (
        'greet :: <img src=x onerror="window.pwned=1">'
    )
    assert [hostile.locator("td").nth(i).get_attribute("data-verdict") for i in (1, 2)] == [
        "failed",
        "passed",
    ]
    assert "passed under cli; failed under fake" in section.locator("ul.divergent").inner_text()
    assert page.page.evaluate("typeof window.pwned") == "undefined"
    assert page.page.locator("img").count() == 0
    assert page.errors == []
    page.page.close()


def test_an_aborted_run_writes_a_page_saying_so(pytester: pytest.Pytester, browser: Any) -> None:
    make_skill(pytester.path / "skills", "broken", "cases:\n  - name: x\n    bogus: 1\n")
    result = LensRun(quiet=False)(pytester, "--skill-lens-html", "r.html")
    assert result.ret == 2
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((pytester.path / "r.html").as_uri())
    headline = page.locator("#verdict .headline").inner_text()
    assert headline.startswith("Run aborted: no gate was computed")
    assert "authoring error" in page.locator("#verdict").inner_text()
    assert errors == []
    page.close()


def test_the_page_stays_within_its_budget(pytester: pytest.Pytester) -> None:
    path = _suite(pytester)
    size = len(path.read_bytes())
    assert len(SUITE.report(pytester).outcomes) == 6 and size < 300_000


def test_the_triggering_grid_among_neighbours_shows_with_its_names_as_text(
    pytester: pytest.Pytester, browser: Any
) -> None:
    neighbours = ["../../others/*"]
    cases = [
        {"name": "reaches", "task": "t", "mode": "offered", "neighbours": neighbours,
         "trajectory": {"skill_triggered": True}},
        {"name": "leaves", "task": "t", "mode": "offered", "neighbours": neighbours,
         "trajectory": {"skill_triggered": False}},
        {"name": "both", "task": "t", "mode": "offered", "neighbours": neighbours,
         "trajectory": {"skill_triggered": True}},
    ]  # fmt: skip
    script = {
        "reaches": {"output": "x", "skill_triggered": False, "skills_triggered": ["shipping"]},
        "both": {"output": "x", "skill_triggered": True, "skills_triggered": ["shipping", "greet"]},
        "leaves": {"output": "x", "skill_triggered": False, "skills_triggered": []},
    }
    pytester.makeconftest(scripted_runner_conftest(script))
    make_skill(pytester.path / "skills", "greet", cases)
    make_skill(
        pytester.path / "others",
        "shipping",
        frontmatter="name: shipping\ndescription: Tracks parcels.\n",
    )
    result = pytester.runpytest(
        *("--skill-lens", "skills", "--skill-lens-runner", "scripted"),
        *("--skill-lens-html", "report.html", *QUIET_PLUGINS),
    )
    assert result.ret == 1, result.stdout.str()

    page = Page(browser, pytester.path / "report.html")
    section = page.page.locator("#triggering")
    assert section.locator("h2").inner_text() == "Triggering among neighbours"
    assert page.page.locator('nav a[href="#triggering"]').inner_text() == "Triggering"
    grid = section.locator("table.triggering-grid")
    assert grid.locator("thead th").all_inner_texts()[1:] == ["greet", "shipping", "none"]
    rows = [grid.locator("tbody tr").nth(i).locator("td").all_inner_texts() for i in range(3)]
    assert rows == [["greet", "1", "1", "0"], ["shipping", "0", "0", "0"], ["none", "0", "0", "1"]]
    assert "shipping took 1 written for greet" in section.locator("ul.confused").inner_text()
    # shipping, called beside greet on a case greet passed, is shipping's false positive.
    assert section.locator("ul.beside").inner_text() == "shipping in 1 run(s) written for greet"
    rates = section.locator("table").first.locator("tr", has_text="shipping")
    assert "0% (0/2)" in rates.inner_text()
    assert page.errors == []
    page.page.close()


def test_the_interval_decisions_show_raw_and_after_holm(
    pytester: pytest.Pytester, browser: Any
) -> None:
    # The Holm suite of test_multiplicity_e2e: two runners' deltas, each shown alone at
    # 95% (p = 0.0140) and neither after the correction (adjusted p = 0.0280).
    write_file(pytester.path / "skill-lens.toml", 'multiplicity = "holm"\n')
    result = holm_run(pytester, *HOLM_GATE, "--skill-lens-html", "report.html")
    assert result.ret == 1, result.stdout.str()

    page = Page(browser, pytester.path / "report.html")
    section = page.page.locator("#multiplicity")
    assert section.locator("h2").inner_text() == "Interval decisions"
    assert page.page.locator('nav a[href="#multiplicity"]').inner_text() == "Decisions"
    assert section.locator("h3").all_inner_texts() == [
        "Interval decisions of min_delta_confidence at 95% confidence: 2 decision(s), "
        "one-sided error 0.0250 each, Holm's step-down correction"
    ]
    rows = section.locator("table.decisions tbody tr")
    assert [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())] == [
        [f"pass-rate delta under runner '{runner}'", "+100%", "+0%", "0.0140", "shown",
         "0.0280", "not shown"]
        for runner in ("left", "right")
    ]  # fmt: skip
    turned = "2 decision(s) shown alone are not shown after the correction"
    assert turned in section.inner_text()
    assert page.errors == []
    page.page.close()


def test_without_a_confidence_level_the_page_has_no_decisions(report: Page) -> None:
    assert report.page.locator("#multiplicity").count() == 0
    assert report.page.locator('nav a[href="#multiplicity"]').count() == 0


def test_several_baseline_arms_show_side_by_side(pytester: pytest.Pytester, browser: Any) -> None:
    # The follower suite of test_baseline_arms_e2e: +100% against none, +50% against the
    # placebo, and min_delta +60% held against each.
    arms_suite(pytester)
    result = arms_lens(
        pytester, *ARMS, "--skill-lens-min-delta", "0.6", "--skill-lens-html", "r.html"
    )
    assert result.ret == 1, result.stdout.str()

    page = Page(browser, pytester.path / "r.html")
    section = page.page.locator("#arms")
    assert section.locator("h2").inner_text() == "Baseline arms side by side"
    assert page.page.locator('nav a[href="#arms"]').inner_text() == "Arms"
    titles = section.locator("h3").all_inner_texts()
    assert titles[:2] == ["Delta vs baseline (none)", "Delta vs baseline (placebo)"]
    grid = section.locator("table.arms-grid")
    assert grid.locator("thead th").all_inner_texts() == [
        "skill", "runner", "candidate", "vs none", "vs placebo"
    ]  # fmt: skip
    cells = grid.locator("tbody tr").first.locator("td").all_inner_texts()
    assert cells[:3] == ["greet", "follower", "100%"]
    assert cells[3].startswith("+100% [") and cells[3].endswith("] (0%)")
    assert cells[4].startswith("+50% [") and cells[4].endswith("] (50%)")
    assert "min_delta +60% against each baseline arm (none, placebo)" in section.inner_text()
    assert "pass-rate delta vs placebo +50% is below the required +60%" in (
        page.page.locator("#verdict").inner_text()
    )
    assert page.errors == []
    page.page.close()
