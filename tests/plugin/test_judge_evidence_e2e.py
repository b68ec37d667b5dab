"""A judge's words are bounded like every other evidence: a judge that answers 50 MB of
evidence (or of an error) leaves a small report that says what was cut."""

from __future__ import annotations

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

FLOOD = 50_000_000
VERBOSE_CONFTEST = f"""\
from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict


class Verbose:
    name = "verbose"

    def judge(self, request):
        words = "e" * {FLOOD}
        if "fail" in request.tasks[0]:
            return JudgeVerdict(checks=None, error="cannot grade: " + words)
        return JudgeVerdict(
            checks=[JudgeCheck("r1", False, words), JudgeCheck("r2", True, "ok " + words)]
        )


def pytest_skill_lens_judges(config):
    return {{"verbose": lambda context: Verbose()}}
"""
RUBRIC = {"rubric": ["Greets the team", "Is brief"]}


def test_a_judge_flooding_its_evidence_leaves_a_small_report_saying_it_was_cut(
    pytester: pytest.Pytester,
) -> None:
    cases = [
        {"name": "graded", "task": "greet the team", "judge": RUBRIC},
        {"name": "ungraded", "task": "fail to greet", "judge": RUBRIC},
    ]
    make_skill(pytester.path / "skills", "greet", cases)
    write_file(pytester.path / "conftest.py", VERBOSE_CONFTEST)
    write_file(pytester.path / "skill-lens.toml", 'judge = "verbose"\n')
    lens = LensRun(json="report.json", markdown="report.md")
    result = lens(pytester)
    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(failed=1, errors=1)
    path = pytester.path / "report.json"
    assert path.stat().st_size < 200_000
    assert (pytester.path / "report.md").stat().st_size < 200_000
    assert len(result.stdout.str()) < 200_000
    outcomes = lens.report(pytester).by_case()

    (judged,) = [s for s in outcomes["graded"]["scores"] if s["evaluator"] == "judge"]
    first, second = judged["checks"]
    assert (first["passed"], second["passed"]) == (False, True)
    assert first["evidence"].startswith("eeee")
    assert first["evidence"].endswith(f"... [{FLOOD - 1_000} characters removed]")
    assert second["evidence"].startswith("ok eee")
    assert "characters removed]" in second["evidence"]

    (errored,) = [s for s in outcomes["ungraded"]["scores"] if s["evaluator"] == "judge"]
    assert errored["errored"] is True
    assert errored["detail"].startswith("judge failed: cannot grade: eee")
    assert "characters removed]" in errored["detail"] and len(errored["detail"]) < 5_000
