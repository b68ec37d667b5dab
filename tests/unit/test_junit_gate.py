"""The gate case added to a JUnit file that would otherwise read green."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from pytest_skill_lens.report.junit_gate import add_gate_case

EMPTY = (
    '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
    '<testsuite name="pytest" errors="0" failures="0" skipped="0" tests="0" time="0.1" />'
    "</testsuites>"
)
FAILING = (
    '<testsuites><testsuite name="pytest" errors="0" failures="1" tests="1">'
    '<testcase classname="a" name="b"><failure message="x">x</failure></testcase>'
    "</testsuite></testsuites>"
)


def test_a_file_with_no_failure_gets_an_errored_gate_case_with_every_reason() -> None:
    amended = add_gate_case(EMPTY, ["no eval cases ran: nothing selected", "second reason"])
    assert amended is not None
    root = ET.fromstring(amended)
    suite = root.find("testsuite[@name='skill-lens']")
    assert suite is not None and suite.get("tests") == "1" and suite.get("errors") == "1"
    error = suite.find("testcase[@name='gate']/error")
    assert error is not None
    assert error.get("message") == "no eval cases ran: nothing selected"
    assert error.text == "no eval cases ran: nothing selected\nsecond reason"
    assert amended.startswith('<?xml version="1.0" encoding="utf-8"?>')


def test_a_file_that_already_fails_is_left_alone() -> None:
    assert add_gate_case(FAILING, ["pass rate 0% is below the required 100%"]) is None


def test_a_single_suite_file_is_wrapped_so_both_suites_count() -> None:
    single = '<testsuite name="pytest" tests="0" errors="0" failures="0" />'
    amended = add_gate_case(single, ["1 case(s) did not run: stopped"])
    assert amended is not None
    root = ET.fromstring(amended)
    assert root.tag == "testsuites"
    assert [s.get("name") for s in root.findall("testsuite")] == ["pytest", "skill-lens"]
