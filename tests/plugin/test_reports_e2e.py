"""The report files a run writes: ``--skill-lens-json``, ``--skill-lens-markdown`` and
pytest's own ``--junitxml``, and what a report that cannot be written does to the exit code."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_skill, scripted_runner_conftest

_CASES = """
cases:
  - name: answers
    task: answer
    assertions:
      - {kind: contains, value: "42"}
  - name: misses
    task: answer
    tools:
      - name: lookup
        description: Look something up
        parameters:
          q: string
    assertions:
      - {kind: contains, value: "42"}
      - {kind: not_contains, value: sorry}
    budget: {max_tokens: 500}
  - name: breaks
    task: answer
"""

_SCRIPT: dict[str, dict[str, Any]] = {
    "answers": {
        "output": "The answer is 42.",
        "input_tokens": 100,
        "output_tokens": 20,
        "cost_usd": 0.0012,
        "latency_ms": 300.0,
        "model": "acme-small",
    },
    "misses": {
        "output": "sorry, I do not know",
        "tool_calls": [["lookup", {"q": "the answer"}]],
        "input_tokens": 200,
        "output_tokens": 30,
        "cost_usd": 0.0023,
        "latency_ms": 700.0,
        "model": "acme-small",
        "stop_note": "stopped at end_turn",
    },
    "breaks": {"error": "HTTP 529: overloaded", "latency_ms": 50.0, "model": "acme-small"},
}


def _write(pytester: pytest.Pytester, toml: str = "") -> None:
    make_skill(pytester.path / "skills", "quiz", _CASES)
    pytester.makeconftest(scripted_runner_conftest(_SCRIPT))
    (pytester.path / "skill-lens.toml").write_text(toml, encoding="utf-8")


lens = LensRun(runner="scripted")
reporting = LensRun(
    runner="scripted", json="out/report.json", markdown="out/report.md", junit="out/junit.xml"
)


def test_json_report_summary_outcomes_scores_and_gate(pytester: pytest.Pytester) -> None:
    _write(pytester)
    result = reporting(pytester)
    assert result.ret == 1
    report = reporting.report(pytester)

    summary = report["summary"]
    assert {k: summary[k] for k in ("total", "passed", "failed", "errored", "not_run")} == {
        "total": 3,
        "passed": 1,
        "failed": 1,
        "errored": 1,
        "not_run": 0,
    }
    assert summary["pass_rate"] == pytest.approx(1 / 3)
    assert summary["pass_rate_by_skill"] == {"quiz": pytest.approx(1 / 3)}
    assert summary["total_tokens"] == 350
    assert summary["total_cost_usd"] == pytest.approx(0.0035)
    assert summary["total_latency_ms"] == pytest.approx(1050.0)
    assert summary["judge_cost_usd"] == 0
    assert summary["baseline_errored"] == 0

    outcomes = report["outcomes"]
    # The planned order (the file's order), whatever order they finished in.
    assert [o["case_name"] for o in outcomes] == ["answers", "misses", "breaks"]
    for outcome in outcomes:
        assert outcome["skill_name"] == "quiz"
        assert outcome["runner"] == "scripted"
        assert outcome["arm"] == "candidate"
        assert outcome["repeat_index"] == 0
        assert outcome["model"] == "acme-small"
    answers, misses, breaks = outcomes
    assert [o["status"] for o in outcomes] == ["passed", "failed", "errored"]
    assert answers["output"] == "The answer is 42."
    assert answers["error"] is None
    assert (answers["tokens"], answers["cost_usd"], answers["latency_ms"]) == (120, 0.0012, 300.0)
    assert misses["stop_note"] == "stopped at end_turn"
    assert misses["cost_note"] is None and misses["usage_note"] is None
    assert breaks["error"] == "HTTP 529: overloaded"
    assert breaks["output"] == ""

    scores = {s["evaluator"]: s for s in misses["scores"]}
    assertion = scores["assertion"]
    assert {k: assertion[k] for k in ("passed", "score", "errored")} == {
        "passed": False,
        "score": 0.0,
        "errored": False,
    }
    assert assertion["detail"] == "0/2 checks held; failed: contains[0], not_contains[1]"
    assert [(c["id"], c["passed"]) for c in assertion["checks"]] == [
        ("contains[0]", False),
        ("not_contains[1]", False),
    ]
    assert assertion["checks"][0]["evidence"].startswith('"42" does not appear in the output')
    assert scores["budget"]["passed"] is True
    # The run's stop note travels with the token check it explains.
    assert scores["budget"]["checks"] == [
        {
            "id": "max_tokens",
            "passed": True,
            "evidence": "used 230 tokens, limit is 500; stopped at end_turn",
        }
    ]
    # Passing checks carry their evidence too.
    (check,) = {s["evaluator"]: s for s in answers["scores"]}["assertion"]["checks"]
    assert check["passed"] is True and check["evidence"].startswith('"42" found at character')

    assert report["gate"] == {
        "passed": False,
        "exit_code": 1,
        "reasons": ["pass rate 33% is below the required 100%", "1 case errored"],
    }


def test_markdown_report_has_the_verdict_and_failures_with_evidence(
    pytester: pytest.Pytester,
) -> None:
    _write(pytester)
    reporting(pytester)
    text = (pytester.path / "out" / "report.md").read_text(encoding="utf-8")
    assert text.startswith("## skill-lens — ❌ gate failed\n")
    assert "**1/3 passed** · 1 failed · 1 errored · pass rate 33%" in text
    assert "### Gate failed" in text
    assert "- pass rate 33% is below the required 100%" in text
    assert "- 1 case errored" in text
    assert "<summary>Failures and errors (1 failed, 1 errored)</summary>" in text
    assert "**`quiz` :: `misses`** (scripted) — failed" in text
    assert '  - contains\\[0\\]: "42" does not appear in the output' in text
    assert "sorry, I do not know" in text
    assert "**`quiz` :: `breaks`** (scripted) — errored" in text
    assert "HTTP 529: overloaded" in text
    # A passing case is not expanded.
    assert "`answers`" not in text


def test_markdown_report_of_a_passing_run(pytester: pytest.Pytester) -> None:
    _write(pytester)
    result = lens(pytester, "-k", "answers", "--skill-lens-markdown", "report.md")
    assert result.ret == 0
    text = (pytester.path / "report.md").read_text(encoding="utf-8")
    assert text.startswith("## skill-lens — ✅ gate passed\n")
    assert "### Gate failed" not in text and "Failures" not in text


def _testcases(pytester: pytest.Pytester) -> dict[str, ET.Element]:
    root = ET.parse(pytester.path / "out" / "junit.xml").getroot()
    return {case.get("name", ""): case for case in root.iter("testcase")}


def _properties(case: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def test_junit_failure_error_and_bare_pass_with_properties(pytester: pytest.Pytester) -> None:
    _write(pytester)
    reporting(pytester)
    cases = _testcases(pytester)
    assert set(cases) == {"answers[scripted]", "misses[scripted]", "breaks[scripted]"}

    passed = cases["answers[scripted]"]
    assert [child.tag for child in passed] == ["properties"]

    failed = cases["misses[scripted]"]
    (failure,) = failed.findall("failure")
    assert failed.find("error") is None
    body = failure.text or ""
    assert '  contains[0]: "42" does not appear in the output' in body
    assert "output: sorry, I do not know" in body
    assert 'tool calls:\n  lookup(q="the answer")' in body
    assert "Traceback" not in body
    assert "contains[0]" in failure.get("message", "")

    errored = cases["breaks[scripted]"]
    (error,) = errored.findall("error")
    assert errored.find("failure") is None
    assert (error.text or "").startswith("error: HTTP 529: overloaded")
    assert "Traceback" not in (error.text or "")

    for name, case in cases.items():
        props = _properties(case)
        assert props["skill"] == "quiz", name
        assert props["case"] == name.split("[")[0]
        assert props["runner"] == "scripted"
        assert props["arm"] == "candidate"
    assert _properties(passed)["tokens"] == "120"
    assert float(_properties(passed)["cost_usd"]) == pytest.approx(0.0012)
    assert _properties(failed)["tokens"] == "230"
    assert _properties(errored)["tokens"] == "0"

    root = ET.parse(pytester.path / "out" / "junit.xml").getroot()
    (suite,) = root.iter("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")


def test_an_unwritable_report_makes_a_passing_run_exit_2(pytester: pytest.Pytester) -> None:
    _write(pytester)
    (pytester.path / "afile").write_text("a regular file, not a directory", encoding="utf-8")
    result = lens(
        pytester,
        "-k",
        "answers",
        "--skill-lens-json",
        "afile/report.json",
        "--skill-lens-markdown",
        "report.md",
    )
    result.assert_outcomes(passed=1)
    assert result.ret == 2
    result.stdout.fnmatch_lines(["Failed to write JSON report to */afile/report.json: *"])
    # The other report is still written, and it records the gate's own verdict.
    assert (
        (pytester.path / "report.md")
        .read_text(encoding="utf-8")
        .startswith("## skill-lens — ✅ gate passed")
    )


def test_an_unwritable_report_keeps_a_failing_run_at_exit_1(pytester: pytest.Pytester) -> None:
    _write(pytester)
    (pytester.path / "afile").write_text("a regular file, not a directory", encoding="utf-8")
    result = lens(pytester, "--skill-lens-markdown", "afile/report.md")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["Failed to write Markdown report to */afile/report.md: *"])


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["plain", "xdist"])
def test_junit_of_a_run_where_no_case_ran_is_not_green(
    pytester: pytest.Pytester, xdist: tuple[str, ...]
) -> None:
    _write(pytester)
    # Under xdist, in a child process.
    inner = LensRun(runner="scripted", junit="out/junit.xml", subprocess=bool(xdist))

    result = inner(pytester, "-k", "nomatch", *xdist)
    assert result.ret == 1
    root = ET.parse(pytester.path / "out" / "junit.xml").getroot()
    gate = root.find("testsuite[@name='skill-lens']/testcase[@name='gate']/error")
    assert gate is not None
    assert (gate.get("message") or "").startswith("no eval cases ran: the -k/-m selection")


def test_the_junit_amendment_replaces_a_link_and_never_follows_it(
    pytester: pytest.Pytester,
) -> None:
    """pytest writes its file through a link planted at the path; the amended file (the
    gate case, the scripts properties) replaces the link, and the file it pointed to is
    left as pytest wrote it."""
    _write(pytester, "allow_scripts = true\n")
    elsewhere = pytester.path / "elsewhere.xml"
    elsewhere.write_text("<testsuites />", encoding="utf-8")
    (pytester.path / "junit.xml").symlink_to(elsewhere)
    result = lens(pytester, "-k", "nomatch", "--junitxml", "junit.xml")
    assert result.ret == 1
    path = pytester.path / "junit.xml"
    assert not path.is_symlink()
    root = ET.parse(path).getroot()
    assert root.find("testsuite[@name='skill-lens']/testcase[@name='gate']/error") is not None
    names = {p.get("name") for p in root.iter("property")}
    assert "skill-lens.scripts.sandbox" in names  # both amendments, in the one file
    untouched = ET.parse(elsewhere).getroot()
    assert untouched.find("testsuite[@name='skill-lens']") is None
    assert not list(pytester.path.glob(".junit.xml.*"))  # no temporary left


def test_junit_of_a_run_with_a_failure_gets_no_extra_gate_case(pytester: pytest.Pytester) -> None:
    _write(pytester)
    result = lens(pytester, "--junitxml", "junit.xml")
    assert result.ret == 1
    root = ET.parse(pytester.path / "junit.xml").getroot()
    assert root.find("testsuite[@name='skill-lens']") is None


def test_the_summary_names_every_report_it_wrote(pytester: pytest.Pytester) -> None:
    _write(pytester)
    result = reporting(pytester, "--skill-lens-html", "out/report.html")
    out = pytester.path / "out"
    result.stdout.fnmatch_lines(
        [
            f"JSON report written: {out / 'report.json'}",
            f"Markdown report written: {out / 'report.md'}",
            f"HTML report written: {out / 'report.html'}",
        ],
        consecutive=True,
    )
    # An aborted run's rewritten reports are named too.
    (pytester.path / "skill-lens.toml").write_text("min_pass_rate = 5\n", encoding="utf-8")
    refused = reporting(pytester)
    assert refused.ret == 2
    assert f"JSON report written: {out / 'report.json'}" in refused.stderr.str()
