"""The ``scripts: on, sandbox: ...`` line in every report, from the run's one decision."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.terminal import script_lines, summary_lines
from pytest_skill_lens.run.sandbox.script_sandbox import HARDENING

PASSED = GateResult(True, 0)


def record(sandbox: str, detail: str | None = None, hardening: str | None = None) -> RunRecord:
    return RunRecord(scripts={"sandbox": sandbox, "detail": detail, "hardening": hardening})


@pytest.mark.parametrize(
    ("scripts", "line"),
    [
        (record("bwrap"), "scripts: on, sandbox: bwrap"),
        (record("sandbox-exec"), "scripts: on, sandbox: sandbox-exec"),
        (
            record("none", "bwrap not found on PATH", HARDENING),
            "scripts: on, sandbox: none (bwrap not found on PATH); harness environment hidden "
            "from same-user processes (PR_SET_DUMPABLE)",
        ),
        (
            record("none", 'script_sandbox = "off"'),
            'scripts: on, sandbox: none (script_sandbox = "off")',
        ),
    ],
)
def test_the_line_says_which_isolation_applied(scripts: RunRecord, line: str) -> None:
    assert script_lines(scripts) == [line]
    assert summary_lines(scripts, PASSED)[0] == line  # first in the section


def test_no_line_and_a_null_block_when_scripts_are_off() -> None:
    off = RunRecord()
    assert script_lines(off) == []
    assert not any(line.startswith("scripts:") for line in summary_lines(off, PASSED))
    assert json.loads(render_json(off, PASSED))["scripts"] is None
    assert "scripts: on" not in render_markdown(off, PASSED)


def test_the_json_block_carries_sandbox_detail_and_hardening() -> None:
    data = json.loads(render_json(record("none", "bwrap not found on PATH", HARDENING), PASSED))
    assert data["scripts"] == {
        "sandbox": "none",
        "detail": "bwrap not found on PATH",
        "hardening": HARDENING,
    }


def test_markdown_carries_the_line_and_drops_it_first_to_fit() -> None:
    scripts = record("none", "bwrap not found on PATH")
    full = render_markdown(scripts, PASSED)
    assert full.endswith("<sub>scripts: on, sandbox: none (bwrap not found on PATH)</sub>\n")
    tight = render_markdown(scripts, PASSED, max_chars=len(full) - 1)
    assert "scripts: on" not in tight


def test_junit_suites_carry_the_lines_as_properties() -> None:
    from pytest_skill_lens.report.junit_properties import add_suite_properties

    single = '<testsuite name="pytest"><testcase name="a"/></testsuite>'
    assert add_suite_properties(single, []) is None
    amended = add_suite_properties(single, [("skill_lens_scripts", "scripts: on, sandbox: bwrap")])
    assert amended is not None
    root = ET.fromstring(amended)
    assert [child.tag for child in root] == ["properties", "testcase"]
    assert [(p.get("name"), p.get("value")) for p in root.iter("property")] == [
        ("skill_lens_scripts", "scripts: on, sandbox: bwrap")
    ]
    many = (
        '<testsuites><testsuite name="a"><properties><property name="x" value="1"/>'
        '</properties></testsuite><testsuite name="b"/></testsuites>'
    )
    amended = add_suite_properties(many, [("n", "one"), ("n", "two")])
    assert amended is not None
    suites = ET.fromstring(amended).findall("testsuite")
    assert [[p.get("value") for p in s.iter("property")] for s in suites] == [
        ["1", "one", "two"],
        ["one", "two"],
    ]


def test_junit_properties_use_the_original_clis_names_too() -> None:
    from pytest_skill_lens.report.junit_properties import script_properties

    on = script_properties(
        ["scripts: on, sandbox: none (bwrap not found)"],
        {"sandbox": "none", "detail": "bwrap not found", "hardening": None},
    )
    assert on == [
        ("skill_lens_scripts", "scripts: on, sandbox: none (bwrap not found)"),
        ("skill-lens.scripts.sandbox", "none"),
        ("skill-lens.scripts.detail", "bwrap not found"),
    ]
    off = script_properties(["skill a bundles 1 script; execution is off (...)"], None)
    assert off == [("skill_lens_scripts", "skill a bundles 1 script; execution is off (...)")]
