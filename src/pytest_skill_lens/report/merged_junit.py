"""The merged run as a JUnit file: a test case per item, as pytest's ``--junitxml`` has it.

One suite, a test case per outcome with the properties a session's JUnit carries
(``skill``, ``case``, ``runner``, ``arm``, ``status``, ...), a candidate's failure or
error with the same failure text pytest shows, a baseline never failing (its verdict
is its ``status``), and each item that did not run as skipped with the reason. When
the gate failed and no case did, :func:`~.junit_gate.add_gate_case` adds the
failing ``gate`` case, exactly as a session's end does.

Written case by case (issue 35): no element tree of the whole run is built, each test
case is its text as ``ElementTree`` would write it (the same escaping), and the counts
the suite's start tag carries are summed first.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

from ..gate.record import GateResult, RunRecord
from ..perform.outcome import Outcome
from .excerpt import failure_lines
from .junit_amend import xml_attribute as _attribute
from .junit_amend import xml_text
from .junit_gate import with_gate_case
from .junit_properties import case_properties
from .printable import printable, scrub
from .terminal import item_label, repeat_count

SUITE = "pytest-skill-lens merge"


def render_junit(record: RunRecord, gate: GateResult) -> str:
    return "".join(junit_chunks(record, gate))


def junit_chunks(record: RunRecord, gate: GateResult) -> Iterator[str]:
    """The file piece by piece: the suite's start tag, then a piece per test case."""
    counts = {
        "tests": len(record.outcomes) + len(record.not_run),
        "failures": record.figures.failed,  # a baseline never fails: candidates only
        "errors": record.figures.errored,
        "skipped": len(record.not_run),
    }
    total_ms = sum((o.latency_ms for o in record.outcomes), 0.0)
    attributes = {"name": SUITE, **{k: str(v) for k, v in counts.items()}}
    attributes["time"] = f"{total_ms / 1000:.3f}"
    start = "<testsuite" + "".join(f' {k}="{_attribute(v)}"' for k, v in attributes.items())
    yield '<?xml version="1.0" encoding="utf-8"?><testsuites>'
    if not counts["tests"]:
        yield start + " />"
    else:
        yield start + ">"
        shown: dict[str, str] = {}  # most cases share most property values
        for outcome in record.outcomes:
            yield _outcome_case(outcome, record.full_output, shown)
        repeats = repeat_count(record)
        for entry in record.not_run:
            label = item_label(entry, repeats)
            reason = f"not run: {entry.get('reason') or 'the session stopped before it ran'}"
            skipped = f'<skipped message="{_attribute(printable(reason))}" />'
            yield _testcase(str(entry.get("nodeid") or ""), label, 0.0, skipped)
        yield "</testsuite>"
    if not gate.passed and not counts["failures"] and not counts["errors"]:
        # No case failed: the gate's own case, as a session's end adds it.
        yield "".join(
            ET.tostring(suite, encoding="unicode")
            for suite in with_gate_case(ET.Element("testsuites"), gate.reasons)
        )
    yield "</testsuites>"


def _outcome_case(outcome: Outcome, full_output: bool, shown: dict[str, str]) -> str:
    body = ["<properties>"]
    for name, value in case_properties(outcome):
        text = str(value)
        if text not in shown:
            shown[text] = _attribute(printable(text))
        body.append(f'<property name="{name}" value="{shown[text]}" />')
    body.append("</properties>")
    if outcome.arm == "candidate" and outcome.status != "passed":
        text = scrub("\n".join(failure_lines(outcome, full_output)))
        tag = "failure" if outcome.status == "failed" else "error"
        first = text.partition("\n")[0] or outcome.status
        body.append(f'<{tag} message="{_attribute(printable(first))}">')
        body.append(f"{xml_text(printable(text))}</{tag}>")
    name = _fallback_name(outcome)
    return _testcase(outcome.nodeid, name, outcome.latency_ms, "".join(body))


def _testcase(nodeid: str, fallback: str, latency_ms: float, body: str) -> str:
    # pytest's own naming: the file path dotted as the class name, the item's name after
    # "::" (split before any "[", since a case's name may hold "::" in its brackets).
    head, bracket, params = nodeid.partition("[")
    names = head.split("::")
    if len(names) > 1:
        classname = ".".join([names[0].replace("/", "."), *names[1:-1]])
        name = names[-1] + bracket + params
    else:
        classname, name = "skill-lens", fallback
    return (
        f'<testcase classname="{_attribute(printable(classname))}" '
        f'name="{_attribute(printable(name))}" time="{latency_ms / 1000:.3f}">{body}</testcase>'
    )


def _fallback_name(outcome: Outcome) -> str:
    arm = "-baseline" if outcome.arm == "baseline" else ""
    return f"{outcome.case_name}[{outcome.runner}{arm}]"
