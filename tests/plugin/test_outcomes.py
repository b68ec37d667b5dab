"""What a user sees for each kind of case result: PASSED, FAILED (call) or ERROR (setup).

Every test builds real skill folders, registers scripted runners and judges in a
``conftest.py`` and runs pytest the way a user would.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_skill, scripted_runner_conftest

# Judges by name, for a ``judge = "<name>"`` in skill-lens.toml.
_JUDGES = """
from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict


class Judge:
    def __init__(self, name):
        self.name = name

    def judge(self, request):
        if self.name == "evidence":
            checks = [
                JudgeCheck(i, True, f"the reply says {request.output!r}")
                for i, _ in request.rubric
            ]
        elif self.name == "silent":
            checks = [JudgeCheck(i, True, "") for i, _ in request.rubric]
        else:  # "mismatched": ids that are not the rubric's
            checks = [JudgeCheck("q" + i, True, "looks right") for i, _ in request.rubric]
        return JudgeVerdict(checks=checks, model="scripted-judge")


def pytest_skill_lens_judges(config):
    return {
        name: (lambda context, name=name: Judge(name))
        for name in ("evidence", "silent", "mismatched")
    }
"""


def _setup(pytester: pytest.Pytester, script: dict[str, dict[str, Any]], toml: str = "") -> None:
    pytester.makeconftest(scripted_runner_conftest(script, extra=_JUDGES))
    # Always present, so no skill-lens.toml above the temp dir can leak into the run.
    (pytester.path / "skill-lens.toml").write_text(toml, encoding="utf-8")


lens = LensRun(runner="scripted", junit="junit.xml", json="report.json", options=("-v",))


def _junit_cases(pytester: pytest.Pytester) -> dict[str, ET.Element]:
    root = ET.parse(pytester.path / "junit.xml").getroot()
    return {case.get("name", ""): case for case in root.iter("testcase")}


def _statuses(pytester: pytest.Pytester) -> dict[str, str]:
    return lens.report(pytester).statuses()


def test_a_passing_case_is_passed(pytester: pytest.Pytester) -> None:
    make_skill(
        pytester.path / "skills",
        "alpha",
        """
        cases:
          - name: greets
            task: say hello
            assertions:
              - kind: contains
                value: Hello
        """,
    )
    _setup(pytester, {"greets": {"output": "Hello there"}})
    result = lens(pytester)
    result.stdout.fnmatch_lines(["skills/alpha/SKILL.md::greets[[]scripted[]] PASSED*"])
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    case = _junit_cases(pytester)["greets[scripted]"]
    assert case.find("failure") is None and case.find("error") is None
    assert _statuses(pytester) == {"greets": "passed"}


def test_a_failed_assertion_is_a_failure_with_check_and_evidence(
    pytester: pytest.Pytester,
) -> None:
    make_skill(
        pytester.path / "skills",
        "alpha",
        """
        cases:
          - name: greets
            task: say hello
            assertions:
              - kind: contains
                value: Goodbye
        """,
    )
    _setup(pytester, {"greets": {"output": "Hello there"}})
    result = lens(pytester)
    result.stdout.fnmatch_lines(["skills/alpha/SKILL.md::greets[[]scripted[]] FAILED*"])
    result.assert_outcomes(failed=1)
    assert result.ret == 1
    text = result.stdout.str()
    assert "Traceback" not in text
    result.stdout.fnmatch_lines(
        [
            "*alpha :: greets (scripted)*",
            "assertion: 0/1 checks held; failed: contains[[]0[]]",
            '  contains[[]0[]]: "Goodbye" does not appear in the output: "Hello there"',
            "output: Hello there",
        ]
    )
    # Nothing of the plugin's internals leaks into the failure text.
    assert "CaseFailed" not in text and "act.py" not in text and "collect.py" not in text
    assert _statuses(pytester) == {"greets": "failed"}


def test_failure_is_reported_in_the_call_phase_and_error_in_setup(
    pytester: pytest.Pytester,
) -> None:
    make_skill(
        pytester.path / "skills",
        "alpha",
        """
        cases:
          - name: fails
            task: t
            assertions:
              - kind: contains
                value: absent
          - name: errors
            task: t
        """,
    )
    _setup(pytester, {"fails": {"output": "present"}, "errors": {"error": "HTTP 503"}})
    recorder = pytester.inline_run(*LensRun(runner="scripted").argv())
    failed = {
        (r.nodeid.split("::")[-1], r.when)
        for r in recorder.getreports("pytest_runtest_logreport")
        if r.failed
    }
    assert failed == {("fails[scripted]", "call"), ("errors[scripted]", "setup")}


def test_a_runner_error_is_an_error_at_setup_showing_the_error(
    pytester: pytest.Pytester,
) -> None:
    make_skill(
        pytester.path / "skills",
        "alpha",
        """
        cases:
          - name: unlucky
            task: t
            assertions:
              - kind: contains
                value: anything
        """,
    )
    _setup(pytester, {"unlucky": {"error": "provider returned HTTP 503 after 3 attempts"}})
    result = lens(pytester)
    result.assert_outcomes(errors=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of alpha :: unlucky (scripted)*",
            "error: provider returned HTTP 503 after 3 attempts",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    # No evaluator ran after a runner error: the check is not reported as failing.
    assert "contains[0]" not in result.stdout.str()
    case = _junit_cases(pytester)["unlucky[scripted]"]
    error = case.find("error")
    assert error is not None and case.find("failure") is None
    assert "provider returned HTTP 503 after 3 attempts" in (error.text or "")
    assert _statuses(pytester) == {"unlucky": "errored"}


def test_a_runner_that_raises_is_errored_not_a_crash(pytester: pytest.Pytester) -> None:
    make_skill(
        pytester.path / "skills",
        "alpha",
        """
        cases:
          - name: explodes
            task: t
          - name: survives
            task: t
        """,
    )
    _setup(pytester, {"explodes": {"raise": "socket closed"}, "survives": {"output": "ok"}})
    result = lens(pytester)
    result.assert_outcomes(errors=1, passed=1)
    assert result.ret == 1  # through the gate, not pytest's internal error (3)
    text = result.stdout.str()
    assert "INTERNALERROR" not in text and "Traceback" not in text
    result.stdout.fnmatch_lines(
        [
            "skills/alpha/SKILL.md::explodes[[]scripted[]] ERROR*",
            "error: runner 'scripted' raised RuntimeError: socket closed",
        ]
    )
    assert _statuses(pytester) == {"explodes": "errored", "survives": "passed"}


_RUBRIC_CASE = """
    cases:
      - name: graded
        task: write a refusal
        judge:
          expected: A short refusal.
          rubric:
            - The reply refuses politely
            - The reply names the order
    """


def test_the_fake_judge_with_a_rubric_is_errored_never_passed(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "alpha", _RUBRIC_CASE)
    _setup(pytester, {"graded": {"output": "No, order 12 cannot be refunded, sorry."}})
    result = lens(pytester)
    result.assert_outcomes(errors=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(['*judge failed: judge = "fake" grades nothing*'])
    assert "Traceback" not in result.stdout.str()
    assert _junit_cases(pytester)["graded[scripted]"].find("error") is not None
    assert _statuses(pytester) == {"graded": "errored"}


def test_a_judge_that_passes_every_check_with_evidence_passes(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "alpha", _RUBRIC_CASE)
    _setup(
        pytester,
        {"graded": {"output": "No, order 12 cannot be refunded, sorry."}},
        toml='judge = "evidence"\n',
    )
    result = lens(pytester)
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    (outcome,) = lens.report(pytester).outcomes
    (judge,) = [s for s in outcome["scores"] if s["evaluator"] == "judge"]
    assert judge["passed"] is True
    assert [(c["id"], c["passed"]) for c in judge["checks"]] == [("r1", True), ("r2", True)]
    assert all("the reply says" in c["evidence"] for c in judge["checks"])


def test_a_judge_pass_without_evidence_is_a_failure(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "alpha", _RUBRIC_CASE)
    _setup(pytester, {"graded": {"output": "fine"}}, toml='judge = "silent"\n')
    result = lens(pytester)
    result.assert_outcomes(failed=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["  r1: passed with no evidence", "  r2: passed with no evidence"])
    assert "Traceback" not in result.stdout.str()
    assert _junit_cases(pytester)["graded[scripted]"].find("failure") is not None
    assert _statuses(pytester) == {"graded": "failed"}


def test_a_judge_returning_the_wrong_ids_is_errored(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "alpha", _RUBRIC_CASE)
    _setup(pytester, {"graded": {"output": "fine"}}, toml='judge = "mismatched"\n')
    result = lens(pytester)
    result.assert_outcomes(errors=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*judge failed: the verdict's check ids do not match the rubric*"])
    text = result.stdout.str()
    assert "missing r1, r2" in text and "unexpected qr1, qr2" in text
    assert "Traceback" not in text
    assert _junit_cases(pytester)["graded[scripted]"].find("error") is not None
    assert _statuses(pytester) == {"graded": "errored"}
