"""The HTML page of 50,000 outcomes in headless Chromium: its size and what a person waits for.

Builds the page of ``tests/plugin/test_html_report_scale.py`` (500 skills x 100 cases,
every seventh failing) with the ``src`` first on ``PYTHONPATH``, opens it ``--rounds``
times in Debian's Chromium through Playwright and prints, each round: the seconds from
navigation to the outcomes table drawn, to the first row's checks drawn after its click
(its evidence block decompressed), the first search (every block decompressed), a later
search and the status filter; and the JS heap after a garbage collection, on load and
after the searches (``--enable-precise-memory-info``; Chromium's default is coarse).

Usage: python benchmarks/html_page_scale.py [--rounds 3]
       PYTHONPATH=/tmp/before/src python benchmarks/html_page_scale.py   # another version
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "plugin"))
# The scale test's page and helpers, so the benchmark measures what the test asserts.
from test_html_report_browser import CHROMIUM_FLAGS
from test_html_report_scale import _filter, _page

OPEN_ROW = """async () => {
    const toggle = document.querySelector("tr.outcome button.toggle");
    const id = toggle.getAttribute("aria-controls");
    const start = performance.now();
    toggle.click();
    while (!document.getElementById(id)?.querySelector("table.checks")) {
        await new Promise((done) => setTimeout(done, 1));
    }
    return (performance.now() - start) / 1000;
}"""
HEAP = "gc(), performance.memory.usedJSHeapSize / 1e6"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    from playwright.sync_api import sync_playwright

    flags = [*CHROMIUM_FLAGS, "--js-flags=--expose-gc", "--enable-precise-memory-info"]
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        path = _page(Path(tmp))
        print(f"page {path.stat().st_size / 1e6:.2f} MB")
        context = playwright.chromium.launch_persistent_context(
            str(Path(tmp) / "profile"),
            executable_path=shutil.which("chromium"),
            headless=True,
            args=flags,
        )
        for _ in range(rounds):
            page = context.new_page()
            start = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector("#outcome-table")
            table = time.perf_counter() - start
            loaded = page.evaluate(HEAP)
            row = page.evaluate(OPEN_ROW)
            first = _filter(page, "#outcome-search", "skill-499 handled request 98")
            later = _filter(page, "#outcome-search", "skill-4")
            _filter(page, "#outcome-search", "")
            status = _filter(page, "#status-filter", "failed")
            print(
                f"table {table:.2f} s, row open {row:.3f} s, first search {first:.2f} s, "
                f"later search {later:.3f} s, status filter {status:.3f} s, "
                f"JS heap {loaded:.0f} MB on load, {page.evaluate(HEAP):.0f} MB after searching"
            )
            page.close()
        context.close()


if __name__ == "__main__":
    main()
