"""A runner, judge or evaluator that hangs or hands back garbage errors its case, never the run.

Each test writes a real skill and a ``conftest.py`` whose runner misbehaves, runs pytest
the way a user does, and reads what the user sees: outcomes, exit code, the errored
case's message, the JSON report, the workspace on disk. The only durations here are hang
guards on the subprocess.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun, Report
from skillfactory import make_skill, write_file

GUARD = 120  # seconds: a hang guard for a whole inner run, never a figure to beat

# A runner that writes "<case> <workspace>" to seen.txt, then answers "done", except for
# cases named "hangs" (never return) and "slow" (0.7 s per session, for the deadline test).
SLEEPY_CONFTEST = """\
import time
from pathlib import Path

from pytest_skill_lens.run.result import RunResult

SEEN = Path(__file__).parent / "seen.txt"


class Sleepy:
    name = "sleepy"

    def run(self, skill, case, workspace):
        with SEEN.open("a", encoding="utf-8") as f:
            f.write(f"{case.name} {workspace}\\n")
        if case.name == "hangs":
            while True:
                time.sleep(3600)
        if case.name == "slow":
            time.sleep(0.7)
        return RunResult(output="done", input_tokens=3, cost_usd=0.01)


class Stuck:
    name = "stuck"

    def judge(self, request):
        while True:
            time.sleep(3600)


def pytest_skill_lens_runners(config):
    return {"sleepy": lambda context: Sleepy()}


def pytest_skill_lens_judges(config):
    return {"stuck": lambda context: Stuck()}
"""

DONE = [{"kind": "contains", "value": "done"}]


def _sleepy(pytester: pytest.Pytester, cases: list[dict[str, Any]], toml: str = "") -> None:
    make_skill(pytester.path / "skills", "nap", cases)
    write_file(pytester.path / "conftest.py", SLEEPY_CONFTEST)
    write_file(pytester.path / "skill-lens.toml", toml)  # no file above can leak in


# The inner run under the sleepy runner, with a JSON report and a hang guard.
sleepy = LensRun(runner="sleepy", json="report.json", subprocess=True, timeout=GUARD)


def _report(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    return Report.read(pytester.path / "report.json").by_case()


def _seen(pytester: pytest.Pytester) -> dict[str, str]:
    lines = (pytester.path / "seen.txt").read_text(encoding="utf-8").splitlines()
    return dict(line.split(" ", 1) for line in lines)


def _summary(text: str) -> str:
    """The skill-lens section of the terminal report, without the per-item errors above it
    and without the lines naming the report files (their paths hold pytest's digits)."""
    section = text.split("= skill-lens =", 1)[1].split("short test summary info", 1)[0]
    return "\n".join(line for line in section.splitlines() if " report written: " not in line)


# --- item 8: a runner or judge that never returns ---------------------------------------------


def test_a_runner_that_never_returns_errors_its_case_and_the_session_goes_on(
    pytester: pytest.Pytester,
) -> None:
    _sleepy(
        pytester,
        [
            {"name": "hangs", "task": "t", "workspace": {"files": {"notes.md": "x"}}},
            {"name": "second", "task": "t", "assertions": DONE},
            {"name": "third", "task": "t", "assertions": DONE},
        ],
    )

    # The hang guard: the abandoned call must not keep the process alive.
    result = sleepy(pytester, "--skill-lens-case-timeout", "1")

    assert result.ret == 1
    result.assert_outcomes(passed=2, errors=1)
    message = "runner 'sleepy' did not return within 1 s (case_timeout_seconds)"
    result.stdout.fnmatch_lines(["*ERROR at setup of nap :: hangs (sleepy)*", f"error: {message}"])
    outcomes = _report(pytester)
    assert {name: o["status"] for name, o in outcomes.items()} == {
        "hangs": "errored",
        "second": "passed",
        "third": "passed",
    }
    assert outcomes["hangs"]["error"] == message
    # Whatever the abandoned call spent is unknown, and never reads as a free run.
    assert outcomes["hangs"]["cost_note"] and outcomes["hangs"]["usage_note"]
    workspace = Path(_seen(pytester)["hangs"])
    assert workspace.name and not workspace.exists()  # removed at teardown as usual


def test_one_deadline_covers_every_session_of_a_case(pytester: pytest.Pytester) -> None:
    # Two sessions of at least 0.7 s each can never fit in one 1 s deadline, while
    # each would fit in a deadline of its own.
    _sleepy(
        pytester,
        [
            {"name": "slow", "sessions": ["one", "two"], "workspace": {}},
            {"name": "after", "task": "t", "assertions": DONE},
        ],
        toml="case_timeout_seconds = 1\n",
    )

    result = sleepy(pytester)

    assert result.ret == 1
    result.assert_outcomes(passed=1, errors=1)
    assert _report(pytester)["slow"]["error"] == (
        "runner 'sleepy' did not return within 1 s (case_timeout_seconds)"
    )


def test_a_judge_that_never_returns_is_named_in_the_timeout(pytester: pytest.Pytester) -> None:
    _sleepy(
        pytester,
        [
            {"name": "graded", "task": "t", "judge": {"rubric": ["It says done"]}},
            {"name": "after", "task": "t", "assertions": DONE},
        ],
        toml='judge = "stuck"\ncase_timeout_seconds = 1.5\n',
    )

    result = sleepy(pytester)

    assert result.ret == 1
    result.assert_outcomes(passed=1, errors=1)
    late = "judge 'stuck' did not return within 1.5 s (case_timeout_seconds)"
    result.stdout.fnmatch_lines(["*ERROR at setup of nap :: graded (sleepy)*", f"*{late}"])
    # Like any judge that could not grade: the case is errored by its judge score, and the
    # run itself, which finished and was measured, keeps its figures.
    graded = _report(pytester)["graded"]
    assert graded["status"] == "errored"
    judge = next(s for s in graded["scores"] if s["evaluator"] == "judge")
    assert judge["detail"] == f"judge failed: {late}"
    assert judge["cost_note"]  # what the judge spent is unknown, never "free"
    assert (graded["tokens"], graded["cost_usd"]) == (3, 0.01)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")
def test_ctrl_c_interrupts_a_run_waiting_on_a_runner(pytester: pytest.Pytester) -> None:
    _sleepy(pytester, [{"name": "hangs", "task": "t"}, {"name": "never", "task": "t"}])
    sleeping = LensRun(runner="sleepy", options=("-p", "no:cacheprovider"))
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", *sleeping.argv()],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        seen = pytester.path / "seen.txt"
        deadline = time.monotonic() + GUARD  # hang guard: the runner has started
        while not seen.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert seen.exists(), "the runner never started"
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=GUARD)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 2, output  # pytest's "interrupted"
    assert "KeyboardInterrupt" in output
    assert "never" not in _seen(pytester)  # nothing ran after the interruption


BAD_TIMEOUTS = [
    pytest.param(
        None,
        ("--skill-lens-case-timeout", "0"),
        "*--skill-lens-case-timeout must be more than 0, got 0.0*",
        id="flag-zero",
    ),
    pytest.param(
        None,
        ("--skill-lens-case-timeout", "-5"),
        "*--skill-lens-case-timeout must be more than 0, got -5.0*",
        id="flag-negative",
    ),
    pytest.param(
        None,
        ("--skill-lens-case-timeout", "nan"),
        "*--skill-lens-case-timeout must be a finite number, got 'nan'*",
        id="flag-nan",
    ),
    pytest.param(
        None,
        ("--skill-lens-case-timeout", "soon"),
        "*--skill-lens-case-timeout expects a number, got 'soon'*",
        id="flag-text",
    ),
    pytest.param(
        "case_timeout_seconds = 0\n",
        (),
        "*skill-lens.toml, field 'case_timeout_seconds'*must be more than 0, got 0",
        id="key-zero",
    ),
    pytest.param(
        "case_timeout_seconds = inf\n",
        (),
        "*skill-lens.toml, field 'case_timeout_seconds'*must be a finite number, got inf",
        id="key-inf",
    ),
    pytest.param(
        'case_timeout_seconds = "60"\n',
        (),
        "*skill-lens.toml, field 'case_timeout_seconds'*must be a number, got '60'",
        id="key-text",
    ),
]


@pytest.mark.parametrize(("toml", "args", "message"), BAD_TIMEOUTS)
def test_a_bad_case_timeout_is_exit_2_naming_its_source(
    pytester: pytest.Pytester, toml: str | None, args: tuple[str, ...], message: str
) -> None:
    _sleepy(pytester, [{"name": "second", "task": "t"}], toml=toml or "")

    result = LensRun(runner="sleepy", quiet=False)(pytester, *args)

    assert result.ret == 2
    result.stderr.fnmatch_lines([message])
    assert not (pytester.path / "seen.txt").exists()  # refused before any runner was called


# --- items 10 and 11: garbage and impossible figures ---------------------------------------

GARBAGE_CONFTEST = """\
import math

from pytest_skill_lens.run.result import RunResult, ToolCall
from pytest_skill_lens.score.check import CheckResult, Score
from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict

GARBAGE = {
    "calls": {"tool_calls": [None, 5, "x"]},
    "output": {"output": 12345},
    "tokens": {"input_tokens": "12"},
    "bool-tokens": {"output_tokens": True},
    "negative-cost": {"cost_usd": -1e9},
    "nan-cost": {"cost_usd": math.nan},
    "negative-latency": {"latency_ms": -1.0},
    "triggered": {"skill_triggered": "yes"},
    "arguments": {"tool_calls": [ToolCall("lookup", {"id": object()})]},
}


class Garbage:
    name = "garbage"

    def run(self, skill, case, workspace):
        if case.name == "not-a-result":
            return {"output": "done"}
        return RunResult(**GARBAGE.get(case.name, {"output": "done", "cost_usd": 0.5}))


class Shoddy:
    name = "shoddy"

    def judge(self, request):
        if "shoddy" in request.tasks[0]:
            return JudgeVerdict(checks=[JudgeCheck("r1", "yes", "looks fine")], cost_usd=-5.0)
        return JudgeVerdict(checks=[JudgeCheck("r1", True, "it says done")], cost_usd=0.25)


class Shape:
    name = "shape"

    def evaluate(self, case, result, context):
        if case.name == "bad-score":
            return Score("shape", "no", math.nan, "d", (None,))
        return Score("shape", True, 1.0, "fine")


def pytest_skill_lens_runners(config):
    return {"garbage": lambda context: Garbage()}


def pytest_skill_lens_judges(config):
    return {"shoddy": lambda context: Shoddy()}


def pytest_skill_lens_evaluators(config):
    return [Shape()]
"""

MALFORMED = "runner 'garbage' returned a malformed RunResult: "
EXPECTED_ERRORS = {
    "calls": MALFORMED + "tool_calls[0]: Input should be a ToolCall, not NoneType (got None); "
    "tool_calls[1]: Input should be a ToolCall, not int (got 5); "
    "tool_calls[2]: Input should be a ToolCall, not str (got 'x')",
    "output": MALFORMED + "output: Input should be a valid string (got 12345)",
    "tokens": MALFORMED + "input_tokens: Input should be a valid integer (got '12')",
    "bool-tokens": MALFORMED + "output_tokens: Input should be a valid integer (got True)",
    "negative-cost": MALFORMED
    + "cost_usd: Input should be greater than or equal to 0 (got -1000000000.0)",
    "nan-cost": MALFORMED + "cost_usd: Input should be a finite number (got nan)",
    "negative-latency": MALFORMED
    + "latency_ms: Input should be greater than or equal to 0 (got -1.0)",
    "triggered": MALFORMED + "skill_triggered: Input should be a valid boolean (got 'yes')",
    "arguments": MALFORMED + "tool_calls[0].arguments.id: input was not a valid JSON value "
    "(got <object object at",
    "not-a-result": "runner 'garbage' returned dict, not a RunResult",
}


def test_garbage_from_a_runner_judge_or_evaluator_errors_only_its_own_case(
    pytester: pytest.Pytester,
) -> None:
    budget = {"max_tokens": 100, "max_cost_usd": 100, "max_latency_ms": 60000}
    cases: list[dict[str, Any]] = [
        {"name": name, "task": "t", "budget": budget} for name in EXPECTED_ERRORS
    ]
    cases += [
        {"name": "bad-verdict", "task": "a shoddy verdict", "judge": {"rubric": ["It works"]}},
        {"name": "bad-score", "task": "t"},
        {"name": "good", "task": "t", "assertions": DONE, "budget": budget},
        {"name": "graded", "task": "t", "judge": {"rubric": ["It says done"]}},
    ]
    make_skill(pytester.path / "skills", "junk", cases)
    write_file(pytester.path / "conftest.py", GARBAGE_CONFTEST)
    write_file(pytester.path / "skill-lens.toml", 'judge = "shoddy"\n')

    result = LensRun(runner="garbage", json="report.json")(pytester)

    text = result.stdout.str()
    assert "INTERNALERROR" not in text and "Traceback" not in text
    assert result.ret == 1
    result.assert_outcomes(passed=2, errors=len(EXPECTED_ERRORS) + 2)
    outcomes = _report(pytester)
    statuses = {name: o["status"] for name, o in outcomes.items()}
    assert statuses == {
        **{name: "errored" for name in EXPECTED_ERRORS},
        "bad-verdict": "errored",
        "bad-score": "errored",
        "good": "passed",
        "graded": "passed",
    }
    for name, error in EXPECTED_ERRORS.items():
        assert outcomes[name]["error"].startswith(error), name
        # The garbage never becomes a recorded figure.
        assert outcomes[name]["cost_usd"] == 0 and outcomes[name]["tokens"] == 0, name
        assert outcomes[name]["latency_ms"] >= 0, name
        assert outcomes[name]["tool_calls"] == [], name
    details = {s["evaluator"]: s["detail"] for s in outcomes["bad-verdict"]["scores"]}
    assert details["judge"] == (
        "judge failed: judge 'shoddy' returned a malformed JudgeVerdict: "
        "checks[0].passed: Input should be a valid boolean (got 'yes'); "
        "cost_usd: Input should be greater than or equal to 0 (got -5.0)"
    )
    details = {s["evaluator"]: s["detail"] for s in outcomes["bad-score"]["scores"]}
    assert details["shape"] == (
        "evaluator 'shape' returned a malformed Score: "
        "passed: Input should be a valid boolean (got 'no'); "
        "score: Input should be a finite number (got nan); "
        "checks[0]: Input should be a CheckResult, not NoneType (got None)"
    )
    # The summary is printed, and its totals are the good cases' own: never negative, never nan.
    # Four cases ran a well-formed $0.50 run; the judge graded one well-formed $0.25 verdict.
    # What the malformed ones spent is unknown, so the totals say some costs are not priced.
    result.stdout.fnmatch_lines(
        [
            "*= skill-lens =*",
            "*Total cost: $2.0000, some costs not priced*"
            " | Judge overhead: $0.2500, some costs not priced*",
            "Gate FAILED:",
        ]
    )
    assert not re.search(r"\$-|-\d|\bnan\b|\binf\b", _summary(text))


def test_the_sessions_sum_of_well_formed_figures_cannot_overflow_into_a_pass(
    pytester: pytest.Pytester,
) -> None:
    # Each session's cost is finite; their sum is not, and is refused like any other.
    make_skill(
        pytester.path / "skills",
        "big",
        [
            {
                "name": "huge",
                "sessions": ["one", "two"],
                "workspace": {},
                "budget": {"max_cost_usd": 100},
            }
        ],
    )
    write_file(
        pytester.path / "conftest.py",
        """\
        from pytest_skill_lens.run.result import RunResult


        class Huge:
            name = "huge"

            def run(self, skill, case, workspace):
                return RunResult(output="done", cost_usd=1.7e308)


        def pytest_skill_lens_runners(config):
            return {"huge": lambda context: Huge()}
        """,
    )
    write_file(pytester.path / "skill-lens.toml", "")

    result = LensRun(runner="huge", json="report.json")(pytester)

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert _report(pytester)["huge"]["error"] == (
        "the sessions' combined result is malformed: "
        "cost_usd: Input should be a finite number (got inf)"
    )
    assert not re.search(r"\binf\b|\bnan\b", _summary(result.stdout.str()))
