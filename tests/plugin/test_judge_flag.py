"""``--skill-lens-judge NAME``: the judge for one run, over ``judge`` in skill-lens.toml.

The flag goes through the same merge (flag over file over default) and the same checks
as the key: an unknown name is exit 2 naming where it came from and every judge the run
knows, and the judge's own preflight (its model flag, its API key) applies to it alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

_RUBRIC_CASE = """
cases:
  - name: graded
    task: say hello
    judge:
      expected: A greeting.
      rubric:
        - The reply greets someone
"""

# A judge that passes every rubric line, so a run shows which judge graded it.
_APPROVING_JUDGE = """
from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict


class Approving:
    name = "approving"

    def judge(self, request):
        checks = [JudgeCheck(i, True, f"approved: {text}") for i, text in request.rubric]
        return JudgeVerdict(checks=checks, model="approving")


def pytest_skill_lens_judges(config):
    return {"approving": lambda context: Approving()}
"""

_EVERY_JUDGE = (
    "approving, claude-code, cli, codex, copilot, fake, gemini-cli, langchain, opencode, "
    "pydantic-ai"
)
_FIX = (
    "  fix: name one of them, or register your own with pytest_skill_lens_judges in a "
    "conftest.py (docs/extending.md)"
)


@pytest.fixture
def graded(pytester: pytest.Pytester) -> pytest.Pytester:
    make_skill(pytester.path / "skills", "greet", _RUBRIC_CASE)
    pytester.makeconftest(_APPROVING_JUDGE)
    return pytester


lens = LensRun(json="report.json")


def _outcome(pytester: pytest.Pytester) -> dict[str, Any]:
    (outcome,) = lens.report(pytester).outcomes
    return outcome


def _judge_score(outcome: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in outcome["scores"] if s["evaluator"] == "judge")


def test_the_flag_chooses_the_judge(graded: pytest.Pytester) -> None:
    result = lens(graded, "--skill-lens-judge", "approving")

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["skill-lens *: runner(s) fake; judge approving; config *"])
    checks = _judge_score(_outcome(graded))["checks"]
    assert checks == [
        {"id": "r1", "passed": True, "evidence": "approved: The reply greets someone"}
    ]


def test_the_flag_wins_over_the_file(graded: pytest.Pytester) -> None:
    write_file(graded.path / "skill-lens.toml", 'judge = "approving"\n')

    by_file = lens(graded)
    assert by_file.ret == 0
    by_file.stdout.fnmatch_lines(["*; judge approving; config *skill-lens.toml"])

    by_flag = lens(graded, "--skill-lens-judge", "fake")
    # The fake judge grades nothing: the rubric case is errored, never passed.
    assert by_flag.ret == 1
    by_flag.assert_outcomes(errors=1)
    by_flag.stdout.fnmatch_lines(["*; judge fake; config *skill-lens.toml"])
    score = _judge_score(_outcome(graded))
    assert score["errored"] is True
    assert 'judge = "fake" grades nothing' in score["detail"]


def test_an_unknown_judge_from_the_flag_names_the_flag_and_every_judge(
    graded: pytest.Pytester,
) -> None:
    write_file(graded.path / "skill-lens.toml", 'judge = "approving"\n')
    result = lens(graded, "--skill-lens-judge", "aproving")

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "Exit: skill-lens: --skill-lens-judge: unknown judge 'aproving'; "
            f"available: {_EVERY_JUDGE}",
            _FIX,
        ]
    )
    assert result.stderr.str().count("unknown judge 'aproving'") == 1
    assert "collected" not in result.stdout.str()  # refused before collection: no case ran
    report = lens.report(graded)
    assert report["aborted"] is True and report.outcomes == []


def test_an_unknown_judge_from_the_file_names_the_file_and_the_key(
    graded: pytest.Pytester,
) -> None:
    config = write_file(graded.path / "skill-lens.toml", 'judge = "aproving"\n')
    result = lens(graded)

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            f"Exit: skill-lens: {config}, field 'judge': unknown judge 'aproving'; "
            f"available: {_EVERY_JUDGE}",
            _FIX,
        ]
    )


def test_the_judge_model_flag_is_checked_against_the_flag_s_judge(
    graded: pytest.Pytester,
) -> None:
    # Stopped in pytest_configure: tests/conftest.py's pytester reports that in-process.
    result = graded.runpytest(
        "--skill-lens",
        "skills",
        "--skill-lens-judge",
        "fake",
        "--skill-lens-judge-model",
        "openai:gpt-4.1",
    )

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "*skill-lens: --skill-lens-judge-model is read only by a pydantic-ai or langchain "
            "judge, and the judge is 'fake'",
            '  fix: drop the flag, or set judge = "pydantic-ai" (or "langchain") in '
            "skill-lens.toml (or pass --skill-lens-judge pydantic-ai)",
        ]
    )


def test_a_keyed_judge_from_the_flag_needs_its_key_before_any_case_runs(
    graded: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = graded.runpytest("--skill-lens", "skills", "--skill-lens-judge", "pydantic-ai")

    assert result.ret == 2
    result.stderr.fnmatch_lines(["*skill-lens: *pydantic-ai* needs OPENAI_API_KEY*"])
    result.stdout.no_fnmatch_line("*passed*")


def test_the_flag_is_in_the_option_group(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        ["evaluate Agent Skills (pytest-skill-lens):", "  --skill-lens-judge=NAME*"]
    )
