"""The merged run as a JUnit file: a test case per item, as pytest's ``--junitxml`` has it.

One suite, a test case per outcome with the properties a session's JUnit carries
(``skill``, ``case``, ``runner``, ``arm``, ``status``, ...), a candidate's failure or
error with the same failure text pytest shows, a baseline never failing (its verdict
is its ``status``), and each item that did not run as skipped with the reason. When
the gate failed and no case did, :func:`~..report.junit_gate.add_gate_case` adds the
failing ``gate`` case, exactly as a session's end does.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..gate.record import GateResult, RunRecord
from ..perform.outcome import Outcome
from ..report.excerpt import failure_lines
from ..report.junit_gate import add_gate_case
from ..report.junit_properties import case_properties
from ..report.printable import printable, scrub
from ..report.terminal import item_label, repeat_count

SUITE = "pytest-skill-lens merge"


def render_junit(record: RunRecord, gate: GateResult) -> str:
    suite = ET.Element("testsuite", name=SUITE)
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_ms = 0.0
    for outcome in record.outcomes:
        case = _testcase(suite, outcome.nodeid, _fallback_name(outcome), outcome.latency_ms)
        _properties(case, outcome)
        counts["tests"] += 1
        total_ms += outcome.latency_ms
        if outcome.arm != "candidate" or outcome.status == "passed":
            continue
        text = scrub("\n".join(failure_lines(outcome, record.full_output)))
        tag = "failure" if outcome.status == "failed" else "error"
        counts["failures" if tag == "failure" else "errors"] += 1
        first = text.partition("\n")[0] or outcome.status
        ET.SubElement(case, tag, message=printable(first)).text = printable(text)
    repeats = repeat_count(record)
    for entry in record.not_run:
        label = item_label(entry, repeats)
        case = _testcase(suite, str(entry.get("nodeid") or ""), label, 0.0)
        reason = f"not run: {entry.get('reason') or 'the session stopped before it ran'}"
        ET.SubElement(case, "skipped", message=printable(reason))
        counts["tests"] += 1
        counts["skipped"] += 1
    suite.attrib.update({key: str(value) for key, value in counts.items()})
    suite.set("time", f"{total_ms / 1000:.3f}")
    root = ET.Element("testsuites")
    root.append(suite)
    text = '<?xml version="1.0" encoding="utf-8"?>' + ET.tostring(root, encoding="unicode")
    if not gate.passed:
        text = add_gate_case(text, gate.reasons) or text
    return text


def _testcase(suite: ET.Element, nodeid: str, fallback: str, latency_ms: float) -> ET.Element:
    # pytest's own naming: the file path dotted as the class name, the item's name after
    # "::" (split before any "[", since a case's name may hold "::" in its brackets).
    head, bracket, params = nodeid.partition("[")
    names = head.split("::")
    if len(names) > 1:
        classname = ".".join([names[0].replace("/", "."), *names[1:-1]])
        name = names[-1] + bracket + params
    else:
        classname, name = "skill-lens", fallback
    return ET.SubElement(
        suite,
        "testcase",
        classname=printable(classname),
        name=printable(name),
        time=f"{latency_ms / 1000:.3f}",
    )


def _properties(case: ET.Element, outcome: Outcome) -> None:
    values = case_properties(outcome)
    properties = ET.SubElement(case, "properties")
    for name, value in values:
        ET.SubElement(properties, "property", name=name, value=printable(str(value)))


def _fallback_name(outcome: Outcome) -> str:
    arm = "-baseline" if outcome.arm == "baseline" else ""
    return f"{outcome.case_name}[{outcome.runner}{arm}]"
