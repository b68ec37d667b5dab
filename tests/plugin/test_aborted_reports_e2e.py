"""Every exit rewrites the report files: a run that ended without a gate (an authoring
error, a bad config value, Ctrl-C, pytest.exit, an internal error, --collect-only) leaves
reports that say it was aborted and why, never the previous run's green. And hostile text
from a runner never stops the reports or the summary from being written."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun, Report
from skillfactory import make_skill, scripted_runner_conftest, write_file

from pytest_skill_lens.report.markdown import ABORTED_HEADING
from pytest_skill_lens.report.written import write_reports

CASES = [
    {"name": "first", "task": "t", "assertions": [{"kind": "contains", "value": "42"}]},
    {"name": "second", "task": "t", "assertions": [{"kind": "contains", "value": "42"}]},
]

# A runner that answers "first", and stops the run at "second": the runner itself raises
# KeyboardInterrupt, or a conftest hook calls pytest.exit (a runner's own pytest.exit is
# only that case errored).
_STOPPING_CONFTEST = """\
import pytest

from pytest_skill_lens.run.result import RunResult


class Stopping:
    name = "scripted"

    def run(self, skill, case, workspace):
        if case.name == "second" and {in_runner}:
            raise KeyboardInterrupt
        return RunResult(output="42")


def pytest_skill_lens_runners(config):
    return {{"scripted": lambda context: Stopping()}}


def pytest_runtest_setup(item):
    if item.name.startswith("second") and not {in_runner}:
        {stop}
"""


reporting = LensRun(runner="scripted", json="out/report.json", markdown="out/report.md")
with_junit = replace(reporting, junit="out/junit.xml")


def _skill(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "quiz", CASES)
    step = {"output": "The answer is 42."}
    pytester.makeconftest(scripted_runner_conftest({"first": step, "second": step}))


def _green_run(pytester: pytest.Pytester) -> None:
    """The previous run: both reports (and JUnit) say the gate passed."""
    _skill(pytester)
    result = with_junit(pytester)
    assert result.ret == 0
    assert _json(pytester)["gate"]["passed"] is True
    assert _markdown(pytester).startswith("## skill-lens — ✅ gate passed")


def _json(pytester: pytest.Pytester) -> Report:
    return reporting.report(pytester)  # strict: valid UTF-8, and no NaN or Infinity


def _markdown(pytester: pytest.Pytester) -> str:
    return (pytester.path / "out" / "report.md").read_bytes().decode("utf-8")


def _assert_aborted(pytester: pytest.Pytester, reason: str, code: int) -> dict[str, Any]:
    """Both reports say the run was aborted with ``reason`` (a prefix), and nothing passed."""
    report = _json(pytester)
    assert report["aborted"] is True
    assert report["aborted_reason"].startswith(reason), report["aborted_reason"]
    assert report["gate"]["passed"] is False
    assert report["gate"]["exit_code"] == code
    assert report["gate"]["reasons"] == [
        f"the run was aborted before a gate was computed: {report['aborted_reason']}"
    ]
    markdown = _markdown(pytester)
    assert markdown.startswith(ABORTED_HEADING + "\n")
    assert "### Run aborted" in markdown
    assert "gate passed" not in markdown
    return report


def _junit_gate_error(pytester: pytest.Pytester) -> str:
    root = ET.parse(pytester.path / "out" / "junit.xml").getroot()
    error = root.find("testsuite[@name='skill-lens']/testcase[@name='gate']/error")
    assert error is not None
    return error.get("message") or ""


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["plain", "xdist"])
def test_an_authoring_error_rewrites_the_green_reports(
    pytester: pytest.Pytester, xdist: tuple[str, ...]
) -> None:
    _green_run(pytester)
    write_file(
        pytester.path / "skills" / "quiz" / "evals" / "cases.yaml",
        """\
        cases:
          - name: first
            task: t
            assertion: []
        """,
    )
    inner = replace(reporting, subprocess=bool(xdist))  # xdist: a process
    result = inner(pytester, *xdist)
    assert result.ret == 2
    report = _assert_aborted(pytester, "skill-lens authoring error: ", 2)
    assert "cases.yaml" in report["aborted_reason"]
    assert "unknown key 'assertion'" in report["aborted_reason"]
    assert "\n" not in report["aborted_reason"]  # the first line: the fix is in the console
    assert report["outcomes"] == []
    assert report["aborted_reason"] in _markdown(pytester).replace("\\", "")
    result.stdout.fnmatch_lines(
        [
            "skill-lens authoring error: *cases.yaml*unknown key 'assertion'*",
            "*= skill-lens =*",
            "Run aborted: no gate was computed, so this run is not a pass (exit code 2).",
        ]
    )
    # The error itself is printed once, by pytest, before the short summary (which under
    # CI=true pytest prints uncut, so it would repeat the message there).
    before_summary = result.stdout.str().partition("short test summary info")[0]
    assert before_summary.count("unknown key 'assertion'") == 1


@pytest.mark.parametrize(
    ("stop", "reason", "code"),
    [
        (None, "interrupted (KeyboardInterrupt)", 2),
        ('pytest.exit("maintenance window")', "pytest.exit(): maintenance window", 2),
        ('pytest.exit("stop here", returncode=7)', "pytest.exit(): stop here", 7),
        # A run without a gate never exits 0, whatever code it was stopped with.
        ('pytest.exit("all good", returncode=0)', "pytest.exit(): all good", 2),
    ],
    ids=["keyboard-interrupt-in-runner", "pytest-exit", "pytest-exit-code", "pytest-exit-0"],
)
def test_an_interrupted_run_rewrites_the_green_reports(
    pytester: pytest.Pytester, stop: str | None, reason: str, code: int
) -> None:
    _green_run(pytester)
    pytester.makeconftest(_STOPPING_CONFTEST.format(in_runner=stop is None, stop=stop or "pass"))
    result = replace(with_junit, subprocess=True)(pytester)
    assert result.ret == code
    report = _assert_aborted(pytester, reason, code)
    # What ran before the stop is kept; what did not is listed.
    assert [(o["case_name"], o["status"]) for o in report["outcomes"]] == [("first", "passed")]
    assert report["summary"]["passed"] == 1
    assert [item["case_name"] for item in report["not_run"]] == ["second"]
    assert "**1/1 passed**" in _markdown(pytester)
    # pytest's JUnit holds one passing case: the gate case keeps it from reading green.
    assert _junit_gate_error(pytester) == report["gate"]["reasons"][0]
    if code == 2:  # pytest prints no terminal summary for a code of a pytest.exit's own
        result.stdout.fnmatch_lines(["Run aborted: no gate was computed, *(exit code 2)."])


def test_a_keyboard_interrupt_under_xdist_rewrites_the_green_reports(
    pytester: pytest.Pytester,
) -> None:
    """The worker's KeyboardInterrupt stops the controller, which writes the reports."""
    _green_run(pytester)
    pytester.makeconftest(_STOPPING_CONFTEST.format(in_runner=True, stop="pass"))
    result = replace(reporting, subprocess=True)(pytester, "-n", "2")
    assert result.ret == 2
    report = _assert_aborted(pytester, "interrupted (", 2)
    assert "keyboard-interrupt" in report["aborted_reason"]
    assert "second" not in [o["case_name"] for o in report["outcomes"]]


@pytest.mark.parametrize(
    ("setup", "flags", "reason"),
    [
        ("min_pass_rate = 5\n", (), "skill-lens: configuration error: "),
        (
            "",
            ("--skill-lens-repeat", "0"),
            "skill-lens: configuration error: --skill-lens-repeat must be 1 or more, got 0",
        ),
        ("", ("--skill-lens-markdown-max-chars", "x"), "skill-lens: --skill-lens-markdown-max-"),
    ],
    ids=["bad-config-value", "bad-flag-value", "bad-markdown-max-chars"],
)
def test_a_configuration_error_rewrites_the_green_reports(
    pytester: pytest.Pytester, setup: str, flags: tuple[str, ...], reason: str
) -> None:
    _green_run(pytester)
    (pytester.path / "skill-lens.toml").write_text(setup, encoding="utf-8")
    # In-process: tests/conftest.py's pytester follows a pytest.exit in configure.
    result = with_junit(pytester, *flags)
    assert result.ret == 2
    report = _assert_aborted(pytester, reason, 2)
    assert report["outcomes"] == [] and report["summary"]["total"] == 0
    # pytest never started the session, so it wrote no JUnit: the old green one is replaced.
    assert _junit_gate_error(pytester) == report["gate"]["reasons"][0]
    root = ET.parse(pytester.path / "out" / "junit.xml").getroot()
    assert [case.get("name") for case in root.iter("testcase")] == ["gate"]


def test_an_internal_error_rewrites_the_green_reports(pytester: pytest.Pytester) -> None:
    _green_run(pytester)
    (pytester.path / "conftest.py").write_text(
        (pytester.path / "conftest.py").read_text(encoding="utf-8")
        + "\n\ndef pytest_collection_finish(session):\n    raise RuntimeError('boom')\n",
        encoding="utf-8",
    )
    result = reporting(pytester)
    assert result.ret == 3
    _assert_aborted(pytester, "internal error: RuntimeError: boom", 3)


def test_a_session_that_never_started_still_rewrites_every_report(
    pytester: pytest.Pytester,
) -> None:
    """A later plugin's pytest_sessionstart fails: pytest skips session finish, and writes
    no JUnit; the plugin's reports (and the old JUnit file) still say aborted."""
    _green_run(pytester)
    (pytester.path / "conftest.py").write_text(
        (pytester.path / "conftest.py").read_text(encoding="utf-8")
        + "\n\ndef pytest_sessionstart(session):\n    raise RuntimeError('no start')\n",
        encoding="utf-8",
    )
    result = with_junit(pytester)
    assert result.ret == 3
    report = _assert_aborted(pytester, "internal error: RuntimeError: no start", 3)
    assert _junit_gate_error(pytester) == report["gate"]["reasons"][0]


def test_a_usage_error_rewrites_the_green_reports(pytester: pytest.Pytester) -> None:
    _green_run(pytester)
    result = reporting(pytester, "no/such/path")
    assert result.ret == 4
    _assert_aborted(pytester, "usage error: file or directory not found: no/such/path", 4)


def test_collect_only_rewrites_the_green_reports(pytester: pytest.Pytester) -> None:
    _green_run(pytester)
    result = reporting(pytester, "--collect-only")
    assert result.ret == 0  # listing is pytest's own verdict
    report = _assert_aborted(pytester, "--collect-only lists the cases", 0)
    assert [item["case_name"] for item in report["not_run"]] == ["first", "second"]
    assert "Run aborted" not in result.stdout.str()  # the listing is the console output


_HOSTILE = "bad \udc80 escape \x1b[2J\x1b[31mred\x1b[0m nul \x00 end"


def test_hostile_runner_text_still_ends_with_the_summary_and_valid_reports(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "quiz", CASES)
    step = {"output": _HOSTILE, "tool_calls": [["lookup", {"q\udc81": _HOSTILE}]]}
    pytester.makeconftest(scripted_runner_conftest({"first": step, "second": {"output": "42"}}))
    result = replace(with_junit, subprocess=True)(pytester)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*= skill-lens =*", "1 passed, 1 failed, 0 errored — pass rate 50%", "Gate FAILED:"]
    )
    report = _json(pytester)
    first = report["outcomes"][0]
    assert first["output"] == _HOSTILE.replace("\udc80", "\ufffd")  # the rest kept, escaped
    assert first["tool_calls"] == [
        {"name": "lookup", "arguments": {"q\ufffd": _HOSTILE.replace("\udc80", "\ufffd")}}
    ]
    markdown = _markdown(pytester)
    assert markdown.startswith("## skill-lens — ❌ gate failed")
    assert "\ufffd" in markdown
    assert "\x1b" not in markdown and "\x00" not in markdown
    root = ET.parse(pytester.path / "out" / "junit.xml").getroot()
    case = root.find(".//testcase[@name='first[scripted]']")
    assert case is not None and case.find("failure") is not None
    assert {p.get("name"): p.get("value") for p in case.iter("property")}["case"] == "first"


def test_a_directory_as_a_report_path_is_a_write_error_with_the_summary(
    pytester: pytest.Pytester,
) -> None:
    _skill(pytester)
    (pytester.path / "out" / "report.json").mkdir(parents=True)
    result = reporting(pytester)
    assert result.ret == 2
    result.stdout.fnmatch_lines(
        ["Gate passed", "Failed to write JSON report to */out/report.json: *"]
    )
    assert _markdown(pytester).startswith("## skill-lens — ✅ gate passed")


def test_a_report_that_cannot_be_rendered_removes_the_old_file(tmp_path: Path) -> None:
    old = tmp_path / "report.json"
    old.write_text('{"gate": {"passed": true}}', encoding="utf-8")
    kept = tmp_path / "report.md"

    def broken() -> str:
        raise ValueError("cannot render")

    writes = write_reports([("JSON", old, broken), ("Markdown", kept, lambda: "## ok\n")])
    assert writes.errors == (
        f"Failed to write JSON report to {old}: ValueError: cannot render "
        "(the previous file was removed)",
    )
    assert writes.written == (f"Markdown report written: {kept}",)
    assert not old.exists()
    assert kept.read_text(encoding="utf-8") == "## ok\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]  # no temporary left


def test_a_plain_run_without_the_flags_writes_no_report(pytester: pytest.Pytester) -> None:
    _skill(pytester)
    (pytester.path / "skill-lens.toml").write_text("min_pass_rate = 5\n", encoding="utf-8")
    result = LensRun(runner="scripted")(pytester)
    assert result.ret == 2
    assert not (pytester.path / "out").exists()


def test_an_xdist_worker_never_writes_the_reports(pytester: pytest.Pytester) -> None:
    """Under -n 2 the controller alone writes: the file holds the whole run, not aborted."""
    _skill(pytester)
    result = replace(reporting, subprocess=True)(pytester, "-n", "2")
    assert result.ret == 0
    report = _json(pytester)
    assert report["aborted"] is False and report["aborted_reason"] is None
    assert sorted(o["case_name"] for o in report["outcomes"]) == ["first", "second"]
