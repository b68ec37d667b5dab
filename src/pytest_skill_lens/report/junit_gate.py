"""Keep pytest's JUnit file from reading green when the gate failed.

A gate can fail with no failed or errored test case at all: no case ran, or
cases were left unrun. A CI dashboard reading only the JUnit file would then
show a clean suite (or ``tests="0"``). This adds one ``skill-lens`` test case
carrying the gate's reasons as an ``<error>``, so the file and the exit code agree.
A run that ended without a gate (Ctrl-C after some cases passed) gets the same case,
its reason saying the run was aborted. The text is made :func:`~.printable.printable`,
as XML 1.0 allows no C0 control but tab, newline and carriage return.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from .printable import printable

SUITE = "skill-lens"
CASE = "gate"


def needs_gate_case(root: ET.Element) -> bool:
    """True when no test case in the file failed or errored."""
    return root.find(".//testcase/failure") is None and root.find(".//testcase/error") is None


def add_gate_case(xml_text: str, reasons: Sequence[str]) -> str | None:
    """The JUnit text with a failing ``skill-lens`` gate case, or ``None`` when not needed."""
    root = ET.fromstring(xml_text)
    if not needs_gate_case(root):
        return None
    return junit_text(with_gate_case(root, reasons))


def with_gate_case(root: ET.Element, reasons: Sequence[str]) -> ET.Element:
    """``root`` with the failing ``skill-lens`` suite added (a single-suite file wrapped in
    ``<testsuites>`` first, so both suites count): the root to write."""
    reasons = [printable(reason) for reason in reasons]
    body = "\n".join(reasons)
    counts = {"tests": "1", "errors": "1", "failures": "0", "skipped": "0", "time": "0"}
    if root.tag == "testsuite":  # a single-suite file: wrap it so both suites count
        wrapper = ET.Element("testsuites")
        wrapper.append(root)
        root = wrapper
    suite = ET.SubElement(root, "testsuite", {"name": SUITE, **counts})
    case = ET.SubElement(suite, "testcase", classname=SUITE, name=CASE, time="0")
    message = reasons[0] if reasons else "the skill-lens gate failed"
    ET.SubElement(case, "error", message=message).text = body
    return root


def junit_text(root: ET.Element) -> str:
    return '<?xml version="1.0" encoding="utf-8"?>' + ET.tostring(root, encoding="unicode")


def aborted_junit(reasons: Sequence[str]) -> str:
    """A JUnit file of its own for a run that ended before pytest could write one."""
    amended = add_gate_case("<testsuites />", reasons)
    assert amended is not None  # an empty file has no failing case
    return amended
