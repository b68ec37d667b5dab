"""--skill-lens-concurrency N: runs overlap, reports keep their order, items stay apart."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

# Each case's task names how long the run takes and what it answers; the runner also calls
# the case's own mock tool twice (a sequence), sleeping between, so concurrent runs of two
# cases would interleave if they shared any state.
RUNNER = """
import time

from pytest_skill_lens.run.tools.mocktools import build_mock_tools
from pytest_skill_lens.run.result import RunResult, ToolCall


class Sleepy:
    name = "sleepy"

    def run(self, skill, case, workspace):
        seconds, answer = case.task.split(" ", 1)
        tools = build_mock_tools(case.tools)
        replies = []
        for _ in range(2):
            for name, tool in tools.items():
                replies.append(tool.call({}))
            time.sleep(float(seconds) / 2)
        if workspace is not None:
            (workspace / "out.txt").write_text(answer)
        return RunResult(output=answer + " " + " ".join(replies))


def pytest_skill_lens_runners(config):
    return {"sleepy": lambda context: Sleepy()}
"""


def _case(name: str, seconds: float, answer: str, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "task": f"{seconds} {answer}",
        "assertions": [{"kind": "contains", "value": answer}],
        **more,
    }


def _sequence_tool(tag: str) -> dict[str, Any]:
    return {
        "name": "next_step",
        "description": "the next step",
        "returns": [f"{tag}-first", f"{tag}-second"],
    }


lens = LensRun(runner="sleepy", json="out.json", options=("-v",))


def test_runs_overlap_but_reports_keep_the_planned_order(pytester: pytest.Pytester) -> None:
    write_file(pytester.path / "conftest.py", RUNNER)
    # The first case is the slowest: run at once, it would finish last.
    cases = [_case(f"c{i}", 0.8 - 0.2 * i, f"answer{i}") for i in range(4)]
    make_skill(pytester.path / "skills", "greet", cases)
    started = time.monotonic()
    result = lens(pytester, "--skill-lens-concurrency", "4")
    took = time.monotonic() - started
    assert result.ret == 0
    lines = [line for line in result.stdout.lines if "PASSED" in line]
    assert [line.split("::")[1].split("[")[0] for line in lines] == ["c0", "c1", "c2", "c3"]
    outputs = [o["output"].split(" ")[0] for o in lens.report(pytester).outcomes]
    assert outputs == ["answer0", "answer1", "answer2", "answer3"]
    # Serially 0.8 + 0.6 + 0.4 + 0.2 = 2.0 s of sleeping; overlapped, the slowest's 0.8 s.
    # Not a timing assertion of speed: only that they did overlap at all.
    assert took < 2.0 + 1.5


def test_concurrent_runs_keep_their_own_mock_sequences(pytester: pytest.Pytester) -> None:
    write_file(pytester.path / "conftest.py", RUNNER)
    cases = [
        _case("a", 0.4, "A", tools=[_sequence_tool("a")]),
        _case("b", 0.4, "B", tools=[_sequence_tool("b")]),
    ]
    make_skill(pytester.path / "skills", "greet", cases)
    assert lens(pytester, "--skill-lens-concurrency", "2").ret == 0
    outputs = [o["output"] for o in lens.report(pytester).outcomes]
    assert outputs == ["A a-first a-second", "B b-first b-second"]


def test_each_run_has_its_own_workspace_and_none_is_left(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_file(pytester.path / "conftest.py", RUNNER)
    cases = [
        _case(
            f"w{i}",
            0.2,
            f"W{i}",
            workspace={},
            assertions=[{"kind": "file-produced", "file": "out.txt"}],
        )
        for i in range(3)
    ]
    make_skill(pytester.path / "skills", "greet", cases)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    isolated = LensRun(runner="sleepy", subprocess=True)
    result = isolated(pytester, "-p", "no:cacheprovider", "--skill-lens-concurrency", "3")
    assert result.ret == 0
    result.assert_outcomes(passed=3)
    assert list(temp.iterdir()) == []


def test_a_conftest_that_overrides_a_fixture_still_applies(pytester: pytest.Pytester) -> None:
    write_file(
        pytester.path / "conftest.py",
        RUNNER
        + """

import pytest
from pytest_skill_lens.run.result import RunResult


class Loud:
    name = "loud"

    def run(self, skill, case, workspace):
        return RunResult(output="overridden")


@pytest.fixture
def skill_lens_runner(request):
    return Loud() if request.node.name.startswith("b") else Sleepy()
""",
    )
    cases = [_case("a1", 0.1, "A"), _case("b1", 0.1, "overridden")]
    make_skill(pytester.path / "skills", "greet", cases)
    assert lens(pytester, "--skill-lens-concurrency", "2").ret == 0
    outputs = [o["output"].split(" ")[0] for o in lens.report(pytester).outcomes]
    assert outputs == ["A", "overridden"]  # the override ran for both, in their turn


def test_runs_started_ahead_of_a_stop_are_recorded_with_their_spend(
    pytester: pytest.Pytester,
) -> None:
    write_file(pytester.path / "conftest.py", RUNNER)
    cases = [_case("c0", 0.1, "NEVER"), *(_case(f"c{i}", 0.3, f"answer{i}") for i in (1, 2))]
    cases[0]["task"] = "0.1 wrong"  # fails its contains: NEVER
    make_skill(pytester.path / "skills", "greet", cases)
    result = lens(pytester, "--skill-lens-concurrency", "3", "-x")
    assert result.ret == 1
    result.assert_outcomes(failed=1)  # pytest stopped after the first failure...
    statuses = [(o["case_name"], o["status"]) for o in lens.report(pytester).outcomes]
    # ...but the two started with it ran, and what they did is in the report.
    assert statuses == [("c0", "failed"), ("c1", "passed"), ("c2", "passed")]


def test_the_spend_ceiling_bounds_the_overshoot_by_the_width(pytester: pytest.Pytester) -> None:
    write_file(
        pytester.path / "conftest.py",
        RUNNER.replace(
            'return RunResult(output=answer + " " + " ".join(replies))',
            "return RunResult(output=answer, cost_usd=0.4)",
        ),
    )
    cases = [_case(f"c{i}", 0.2, "ok") for i in range(10)]
    make_skill(pytester.path / "skills", "greet", cases)
    result = lens(pytester, "--skill-lens-concurrency", "3", "--skill-lens-max-spend", "1")
    assert result.ret == 1
    ran = len(lens.report(pytester).outcomes)
    # The first three start at $0 together; after them $1.20 is recorded and nothing more
    # starts: the overshoot is what was in flight, at most the width.
    assert 3 <= ran <= 3 + 2, ran
    assert len(lens.report(pytester)["not_run"]) == 10 - ran


def test_concurrency_composes_with_xdist(pytester: pytest.Pytester) -> None:
    write_file(pytester.path / "conftest.py", RUNNER)
    cases = [_case(f"c{i}", 0.2, f"answer{i}") for i in range(6)]
    make_skill(pytester.path / "skills", "greet", cases)
    result = lens(pytester, "--skill-lens-concurrency", "2", "-n", "2")
    assert result.ret == 0
    outputs = [o["output"].split(" ")[0] for o in lens.report(pytester).outcomes]
    assert outputs == [f"answer{i}" for i in range(6)]
