"""The merged run's JUnit file, written case by case (issue 35): the same XML an element
tree of the whole run gave, hostile text escaped, and the gate case when no case failed."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.merged_junit import junit_chunks, render_junit
from pytest_skill_lens.report.printable import printable

HOSTILE = 'a "quote" & <tag> \x1b[2J\ttab\nline\rcr \ud800 \u202e'
PASSED = GateResult(True, 0, ())


def _outcome(case: str, status: str = "passed", **fields: object) -> Outcome:
    return Outcome(
        skill_name="greet",
        case_name=case,
        runner="fake",
        status=status,  # type: ignore[arg-type]
        nodeid=f"skills/greet/SKILL.md::{case}[fake]",
        **fields,  # type: ignore[arg-type]
    )


def _record() -> RunRecord:
    return RunRecord(
        outcomes=[
            _outcome("ok", latency_ms=1500.0),
            _outcome(HOSTILE, "failed", output=HOSTILE),
            _outcome("broke", "errored", error=HOSTILE),
            _outcome("base", "failed", arm="baseline"),
        ],
        not_run=[
            {"skill_name": "greet", "case_name": "later", "runner": "fake", "reason": HOSTILE}
        ],
    )


def test_the_file_comes_case_by_case() -> None:
    record = RunRecord(outcomes=[_outcome(f"c{i}", output="x" * 500) for i in range(50)])
    chunks = list(junit_chunks(record, PASSED))
    assert len(chunks) > 50 and max(len(chunk) for chunk in chunks) < 2000
    assert "".join(chunks) == render_junit(record, PASSED)


def test_cases_counts_and_hostile_text() -> None:
    root = ET.fromstring(render_junit(_record(), PASSED))
    [suite] = root.findall("testsuite")
    assert suite.attrib == {
        "name": "pytest-skill-lens merge",
        "tests": "5",
        "failures": "1",
        "errors": "1",
        "skipped": "1",
        "time": "1.500",
    }
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases][:3] == [
        "ok[fake]",
        printable(f"{HOSTILE}[fake]"),
        "broke[fake]",
    ]
    failed = cases[1]
    props = {p.get("name"): p.get("value") for p in failed.iter("property")}
    assert props["case"] == printable(HOSTILE)
    failure = failed.find("failure")
    assert failure is not None and 'output: a "quote" & <tag> ' in (failure.text or "")
    assert "\x1b" not in (failure.text or "") and "\u202e" not in (failure.text or "")
    assert cases[3].find("failure") is None  # a baseline never fails
    skipped = cases[4].find("skipped")
    assert skipped is not None and skipped.get("message") == printable(f"not run: {HOSTILE}")


def test_the_gate_case_only_when_no_case_failed() -> None:
    failing = GateResult(False, 1, ("pass rate too low",))
    assert ET.fromstring(render_junit(_record(), failing)).find(".//testcase[@name='gate']") is None
    quiet = RunRecord(outcomes=[_outcome("ok")])
    root = ET.fromstring(render_junit(quiet, failing))
    error = root.find("testsuite[@name='skill-lens']/testcase[@name='gate']/error")
    assert error is not None and error.get("message") == "pass rate too low"
    empty = ET.fromstring(render_junit(RunRecord(), failing))
    assert [s.get("name") for s in empty] == ["pytest-skill-lens merge", "skill-lens"]
