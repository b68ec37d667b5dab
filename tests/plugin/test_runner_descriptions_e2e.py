"""A plugin's runner or judge registered with a description: each promise it makes is held."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from runs import LensRun
from skillfactory import make_skill

CONFTEST = """\
from pytest_skill_lens.run.catalog import RunnerDescription
from pytest_skill_lens.run.requirements import Extra
from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.score.judge import FakeJudge
from pytest_skill_lens.score.judges.catalog import JudgeDescription

NOT_INSTALLED = Extra("mine", 'pip install "mine[x]"', lambda model: "mine_sdk")


class Says:
    name = "mine"

    def run(self, skill, case, workspace):
        return RunResult(output="hello", model="mine")


def make(context):
    return Says()


def pytest_skill_lens_runners(config):
    return {{"mine": {runner}}}


def pytest_skill_lens_judges(config):
    return {{"judged": {judge}}}
"""


def setup(
    pytester: pytest.Pytester,
    runner: str,
    cases: Sequence[Mapping[str, object]] | None = None,
    judge: str = "FakeJudge",
) -> None:
    make_skill(pytester.path / "skills", "hello", cases or [{"name": "c", "task": "t"}])
    pytester.makeconftest(CONFTEST.format(runner=runner, judge=judge))


run = LensRun(runner="mine")


def test_a_bare_factory_runs_as_before(pytester: pytest.Pytester) -> None:
    setup(pytester, "make")

    result = run(pytester)

    assert result.ret == 0
    result.assert_outcomes(passed=1)


def test_a_description_runs_like_its_factory(pytester: pytest.Pytester) -> None:
    setup(pytester, 'RunnerDescription("mine", make)')

    result = run(pytester)

    assert result.ret == 0
    result.assert_outcomes(passed=1)


def test_its_missing_extra_stops_the_run_naming_the_install(pytester: pytest.Pytester) -> None:
    setup(pytester, 'RunnerDescription("mine", make, extra=NOT_INSTALLED)')

    result = run(pytester, "--collect-only")

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "Exit: skill-lens: the runner 'mine' needs the mine extra, which is not installed "
            """(no module named 'mine_sdk'); install it: pip install "mine[x]\""""
        ]
    )


def test_its_settings_check_stops_the_run_with_the_fix(pytester: pytest.Pytester) -> None:
    check = 'lambda settings: (f"no {settings.model!r} here", "use mine:model")'
    setup(pytester, f'RunnerDescription("mine", make, check_settings={check})')

    result = run(pytester)

    assert result.ret == 2
    result.stderr.fnmatch_lines(["Exit: skill-lens: no 'openai:gpt-4o-mini' here; use mine:model"])


def test_a_runner_that_reads_the_model_needs_its_key_except_to_list(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    setup(pytester, 'RunnerDescription("mine", make, reads_model=True)')

    refused = run(pytester)
    listed = run(pytester, "--collect-only")

    assert refused.ret == 2
    refused.stderr.fnmatch_lines(
        [
            "Exit: skill-lens: the runner 'mine' needs OPENAI_API_KEY for the model "
            "'openai:gpt-4o-mini', and it is not set; export OPENAI_API_KEY=...*"
        ]
    )
    assert listed.ret == 0


def test_a_case_using_a_feature_it_does_not_serve_is_an_authoring_error(
    pytester: pytest.Pytester,
) -> None:
    serves = 'frozenset({"workspace", "sessions", "judge"})'  # as a command line could
    setup(
        pytester,
        f'RunnerDescription("mine", make, serves={serves})',
        [{"name": "plain", "task": "t"}, {"name": "reached", "task": "t", "mode": "offered"}],
    )

    refused = run(pytester)
    listed = run(pytester, "--collect-only", "-q")

    assert refused.ret == 2
    refused.stdout.fnmatch_lines(
        [
            "*case 'reached' (#2 in the file), field 'mode': the case uses mode: offered, "
            "which runner 'mine' does not serve*",
            "*fix: run the case under another runner, or drop mode: offered from it*",
        ]
    )
    assert listed.ret == 0  # listing applies no runner rule, as for the tool names


def test_a_runner_declaring_every_tool_refuses_an_undeclared_trajectory_name(
    pytester: pytest.Pytester,
) -> None:
    typo = {"name": "typo", "task": "t", "trajectory": {"called": ["lookup_ordr"]}}
    setup(pytester, 'RunnerDescription("mine", make, declares_every_tool=True)', [typo])

    result = run(pytester)

    assert result.ret == 2
    result.stdout.fnmatch_lines(["*the trajectory names 'lookup_ordr'*runner 'mine' can never*"])


def test_a_bare_factory_is_not_held_to_the_tool_name_rule(pytester: pytest.Pytester) -> None:
    typo = {"name": "typo", "task": "t", "trajectory": {"called": ["lookup_ordr"]}}
    setup(pytester, "make", [typo])

    result = run(pytester)

    assert result.ret == 1  # run and failed: the runner never called it
    result.assert_outcomes(failed=1)


@pytest.mark.parametrize(
    ("runner", "said"),
    [
        pytest.param(
            'RunnerDescription("other", make)',
            "a plugin registers the runner 'mine' with the description of 'other'; "
            "register it under its own name",
            id="another-name",
        ),
        pytest.param(
            'RunnerDescription("mine")',
            "the runner 'mine' was registered with something not callable",
            id="no-factory",
        ),
    ],
)
def test_a_description_that_cannot_be_used_is_refused(
    pytester: pytest.Pytester, runner: str, said: str
) -> None:
    setup(pytester, runner)

    result = run(pytester)

    assert result.ret == 2
    result.stderr.fnmatch_lines([f"Exit: skill-lens: {said}"])


def test_a_builtin_name_is_taken(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "hello", [{"name": "c", "task": "t"}])
    pytester.makeconftest(
        "from pytest_skill_lens.run.fake import FakeRunner\n\n\n"
        "def pytest_skill_lens_runners(config):\n"
        '    return {"cli": lambda context: FakeRunner()}\n'
    )

    result = LensRun()(pytester)

    assert result.ret == 2
    result.stderr.fnmatch_lines(["*registers the runner 'cli', which is already taken*"])


def test_a_judge_description_with_a_missing_extra_stops_the_run(
    pytester: pytest.Pytester,
) -> None:
    setup(pytester, "make", judge='JudgeDescription("judged", FakeJudge, extra=NOT_INSTALLED)')
    (pytester.path / "skill-lens.toml").write_text('judge = "judged"\n', encoding="utf-8")

    result = run(pytester)

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        ["Exit: skill-lens: the judge 'judged' needs the mine extra, which is not installed*"]
    )
