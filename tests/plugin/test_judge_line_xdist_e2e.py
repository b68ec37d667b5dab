"""Rubrics the judge cannot grade, under pytest-xdist, where the controller sees node ids only.

A paid run under the default judge ``fake`` (which grades no rubric) must not warn about
rubrics it has none of. One that has them is warned with their count, as a warning pytest
counts like the run's other warnings (once per worker, as every worker collects).
"""

from __future__ import annotations

import pytest
from model_server import ScriptedModelServer, text
from runs import LensRun, served_by
from skillfactory import make_skill

pytest.importorskip("xdist")
pytest.importorskip("pydantic_ai.models.openai")

# slow: xdist workers running a real PydanticAI agent (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("openai_key")]

PLAIN = {"name": "plain", "task": "say ok", "assertions": [{"kind": "contains", "value": "ok"}]}
JUDGED = {**PLAIN, "name": "judged", "judge": {"rubric": ["The answer is polite."]}}


SAID = (
    "UngradedRubricsWarning: 1 case(s) carry a judge: rubric that judge 'fake' cannot grade; "
    "each will be errored after its run is paid. Name a real judge with --skill-lens-judge "
    'NAME or judge = "<name>" in skill-lens.toml'
)


def run(
    pytester: pytest.Pytester, server: ScriptedModelServer, *cases: dict[str, object]
) -> pytest.RunResult:
    make_skill(pytester.path / "skills", "greet", list(cases))
    server.script["say ok"] = [text("ok")]
    lens = LensRun(runner="pydantic-ai", subprocess=True, timeout=120)
    return lens(pytester, "-n", "2", *served_by(server.url))


def test_a_paid_run_without_a_rubric_says_nothing_of_rubrics(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    result = run(pytester, server, PLAIN, {**PLAIN, "name": "plain-2"})
    out = result.stdout.str()
    assert result.ret == 0, out
    assert "Plan: up to 1 arm(s) x 1 repeat(s) x 1 runner(s) x 2 case(s) = 2 runs" in out
    assert "Judge:" not in out and "judge: rubric" not in out, out
    result.assert_outcomes(passed=2, warnings=0)


def test_a_paid_run_with_a_rubric_is_warned_with_the_count_and_counted(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    result = run(pytester, server, PLAIN, JUDGED)
    out = result.stdout.str()
    assert result.ret == 1, out
    (said,) = [line for line in out.splitlines() if "judge: rubric" in line]
    assert said.endswith(f":0: {SAID}"), out  # in pytest's warnings summary, once
    result.assert_outcomes(passed=1, errors=1, warnings=2)  # one per worker
