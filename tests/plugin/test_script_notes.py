"""With scripts off, every skill that bundles runnable scripts is named in the reports."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

CASES = """
cases:
  - name: counts
    task: count the levels
"""


lens = LensRun(json="report.json", junit="junit.xml")


def junit_scripts(pytester: pytest.Pytester) -> list[list[str]]:
    """Per test suite of junit.xml, its skill_lens_scripts property values."""
    root = ET.parse(pytester.path / "junit.xml").getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    return [
        [
            p.get("value", "")
            for p in suite.iter("property")
            if p.get("name") == "skill_lens_scripts"
        ]
        for suite in suites
    ]


def _skills(pytester: pytest.Pytester) -> None:
    (pytester.path / "skill-lens.toml").write_text("", encoding="utf-8")
    triage = make_skill(pytester.path / "skills", "triage", CASES)
    write_file(triage / "scripts" / "count.py", "print(1)\n")
    write_file(triage / "scripts" / "summarise.sh", "echo 1\n")
    write_file(triage / "scripts" / "levels.json", "{}\n")  # unmapped: not runnable
    data_only = make_skill(pytester.path / "skills", "data-only", CASES)
    write_file(data_only / "scripts" / "table.csv", "a,b\n")
    make_skill(pytester.path / "skills", "plain", CASES)
    single = make_skill(pytester.path / "skills", "single", None)  # no cases at all
    write_file(single / "scripts" / "go.py", "print(1)\n")


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["in-process", "xdist"])
def test_idle_scripts_are_named_in_console_and_json(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    _skills(pytester)
    result = lens(pytester, *workers)
    assert result.ret == 0
    notes = [
        "skill single bundles 1 script; execution is off (allow_scripts = true in "
        "skill-lens.toml or --skill-lens-allow-scripts)",
        "skill triage bundles 2 scripts; execution is off (allow_scripts = true in "
        "skill-lens.toml or --skill-lens-allow-scripts)",
    ]
    result.stdout.fnmatch_lines(notes)
    assert junit_scripts(pytester) == [notes]
    text = result.stdout.str()
    assert "skill data-only bundles" not in text and "skill plain bundles" not in text
    assert "scripts: on" not in text
    report = lens.report(pytester)
    assert report["scripts"] is None
    assert report["script_notes"] == [
        {"skill_name": "single", "script_count": 1, "product_note": None},
        {"skill_name": "triage", "script_count": 2, "product_note": None},
    ]


def test_no_idle_note_when_scripts_are_on(pytester: pytest.Pytester) -> None:
    _skills(pytester)
    result = lens(pytester, "--skill-lens-allow-scripts")
    assert result.ret == 0
    assert "execution is off" not in result.stdout.str()
    result.stdout.fnmatch_lines(["scripts: on, sandbox: *"])
    (line,) = [x for x in result.stdout.lines if x.startswith("scripts: on, sandbox: ")]
    assert junit_scripts(pytester) == [[line]]
    report = lens.report(pytester)
    assert report["script_notes"] == []
    # The original CLI's property names as well, from the same decision as the JSON block.
    root = ET.parse(pytester.path / "junit.xml").getroot()
    named = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert named["skill-lens.scripts.sandbox"] == report["scripts"]["sandbox"]
    assert named["skill-lens.scripts.detail"] == (report["scripts"]["detail"] or "")
