"""pytest's JUnit file amended by a walk of its bytes, no tree built (issue 35): the same
XML, canonically, as the element-tree amendment (suite properties, then the gate case)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from xml.parsers.expat import ExpatError

import pytest

from pytest_skill_lens.report.junit_amend import amended_junit
from pytest_skill_lens.report.junit_gate import add_gate_case
from pytest_skill_lens.report.junit_properties import add_suite_properties

HEAD = '<?xml version="1.0" encoding="utf-8"?>'
CASE = (
    '<testcase classname="a" name="b" time="0.1">'
    '<properties><property name="p" value="1" /></properties></testcase>'
)
FAIL = '<testcase classname="a" name="c"><failure message="x">x</failure></testcase>'
SUITES = '<testsuites name="pytest tests">'
DOCUMENTS = {
    "pytest's usual": f'{HEAD}{SUITES}<testsuite name="pytest" tests="1">{CASE}</testsuite>'
    "</testsuites>",
    "a suite with properties": f'{HEAD}<testsuites><testsuite name="s"><properties>'
    f'<property name="k" value="v" /></properties>{CASE}</testsuite></testsuites>',
    "empty properties": f'{HEAD}<testsuites><testsuite name="s"><properties/>{CASE}'
    "</testsuite></testsuites>",
    "an empty suite": f'{HEAD}{SUITES}<testsuite name="pytest" errors="0" tests="0" />'
    "</testsuites>",
    "an empty root": "<testsuites />",
    "a single suite": f'<testsuite name="one">{CASE}<!-- a comment --></testsuite>',
    "a single empty suite": '<testsuite name="one" tests="0"/>',
    "a failing case": f'<testsuites><testsuite name="s">{CASE}{FAIL}</testsuite></testsuites>',
    "two suites, newlines": f'<testsuites>\n  <testsuite name="a">\n    {CASE}\n  </testsuite>'
    '\n  <testsuite name="b"></testsuite>\n</testsuites>\n',
}
PROPERTIES = [("skill_lens_scripts", 'scripts: on, "bwrap" & <more>\n\x1b'), ("n", "two")]
REASONS = ["no eval cases ran \x1b[2J", "second <reason>"]


def _canonical(text: str | bytes) -> str:
    return ET.canonicalize(text, strip_text=True)


def _before(text: str, properties: list[tuple[str, str]], reasons: list[str] | None) -> str:
    amended = add_suite_properties(text, properties) or text
    if reasons is not None:
        amended = add_gate_case(amended, reasons) or amended
    return amended


@pytest.mark.parametrize("name", list(DOCUMENTS))
@pytest.mark.parametrize(
    ("properties", "reasons"),
    [(PROPERTIES, None), ([], REASONS), (PROPERTIES, REASONS)],
    ids=["properties", "gate", "both"],
)
def test_the_same_xml_as_the_tree_amendment(
    name: str, properties: list[tuple[str, str]], reasons: list[str] | None
) -> None:
    text = DOCUMENTS[name]
    pieces = amended_junit(text.encode(), properties, reasons)
    expected = _before(text, properties, reasons)
    if pieces is None:
        assert expected == text  # nothing to add: the file is left alone
        return
    assert _canonical(b"".join(pieces)) == _canonical(expected)


def test_nothing_to_add_leaves_the_file_alone() -> None:
    assert amended_junit(DOCUMENTS["pytest's usual"].encode(), [], None) is None
    assert amended_junit(DOCUMENTS["a failing case"].encode(), [], REASONS) is None


def test_pytest_bytes_are_kept_around_what_is_added() -> None:
    text = DOCUMENTS["two suites, newlines"]
    pieces = amended_junit(text.encode(), [("n", "v")], None)
    assert pieces is not None
    out = b"".join(pieces).decode()
    assert out.replace('<properties><property name="n" value="v" /></properties>', "") == text


def test_no_xml_is_an_error() -> None:
    with pytest.raises(ExpatError):
        amended_junit(b"<testsuites><testsuite>", [("n", "v")], None)
