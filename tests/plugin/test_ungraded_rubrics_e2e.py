"""A rubric the configured judge cannot grade is named before anything is spent.

Under the default judge ``fake`` a case's ``judge:`` rubric is errored (never passed),
but only after its runner ran and was paid. The plan says so first, with the count,
and a listing (``--collect-only``) says it too; pytest counts it as a warning. Under
xdist, whose controller sees node ids only, the warning alone says it (once per worker);
test_judge_line_xdist_e2e.py runs that against a paid runner.
"""

from __future__ import annotations

import pytest
from runs import LensRun
from skillfactory import make_skill, scripted_runner_conftest, write_file

pytest.importorskip("xdist")

JUDGED = {
    "name": "judged",
    "task": "t",
    "assertions": [{"kind": "contains", "value": "ok"}],
    "judge": {"rubric": ["The answer is polite."]},
}
PLAIN = {"name": "plain", "task": "t", "assertions": [{"kind": "contains", "value": "ok"}]}
SAID = (
    "Judge: 1 case(s) carry a judge: rubric that judge 'fake' cannot grade; each will be "
    "errored after its run is paid. Name a real judge with --skill-lens-judge NAME or "
    'judge = "<name>" in skill-lens.toml'
)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    make_skill(pytester.path / "skills", "greet", [JUDGED, PLAIN])
    script = {name: {"output": "ok", "cost_usd": 0.01} for name in ("judged", "plain")}
    write_file(pytester.path / "conftest.py", scripted_runner_conftest(script))
    return pytester


lens = LensRun(runner="scripted")


def test_the_plan_names_the_rubrics_before_the_first_case(suite: pytest.Pytester) -> None:
    result = lens(suite, "-v")
    lines = result.stdout.lines
    assert SAID in lines, result.stdout.str()
    first_item = next(i for i, line in enumerate(lines) if line.startswith("skills/greet"))
    assert lines.index(SAID) < first_item
    # Still errored when it ran, never passed; and counted like the run's other warnings.
    result.assert_outcomes(passed=1, errors=1, warnings=1)
    assert f"UngradedRubricsWarning: {SAID.removeprefix('Judge: ')}" in result.stdout.str()


def test_a_listing_says_it_too(suite: pytest.Pytester) -> None:
    result = lens(suite, "--collect-only", "-q")
    assert SAID in result.stdout.lines, result.stdout.str()


def test_a_judge_that_grades_says_nothing(suite: pytest.Pytester) -> None:
    write_file(
        suite.path / "conftest.py",
        (suite.path / "conftest.py").read_text() + "\n\ndef pytest_skill_lens_judges(config):\n"
        "    return {'lenient': lambda context: None}\n",
    )
    result = lens(suite, "--collect-only", "-q", "--skill-lens-judge", "lenient")
    assert not [line for line in result.stdout.lines if line.startswith("Judge:")]


def test_under_xdist_each_worker_warns_with_the_count(suite: pytest.Pytester) -> None:
    result = LensRun(runner="scripted", subprocess=True)(suite, "-n", "2")
    out = result.stdout.str()
    assert not [line for line in result.stdout.lines if line.startswith("Judge:")], out
    assert f"UngradedRubricsWarning: {SAID.removeprefix('Judge: ')}" in out
    result.assert_outcomes(passed=1, errors=1, warnings=2)


def test_under_xdist_a_suite_without_rubrics_is_not_warned(suite: pytest.Pytester) -> None:
    make_skill(suite.path / "skills", "greet", [PLAIN])
    result = LensRun(runner="scripted", subprocess=True)(suite, "-n", "2")
    out = result.stdout.str()
    assert "Judge:" not in out and "judge: rubric" not in out, out
    result.assert_outcomes(passed=1, warnings=0)
