"""The ``cli`` runner end to end: a small Python script, written by the test, is the command.

The script prints the prompt it got and the first line of the delivered SKILL.md, so
an assertion on its stdout checks what the command really received; a prompt
containing ``fail`` makes it exit 3 with a message on stderr.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

AGENT = """\
import pathlib, sys
prompt = sys.argv[1]
if "fail" in prompt:
    sys.stderr.write("the agent gave up\\n")
    sys.exit(3)
skill = pathlib.Path(".agents/skills/greet/SKILL.md")
print("got:", prompt)
print("skill:", skill.read_text().splitlines()[1] if skill.is_file() else "none")
pathlib.Path("answer.txt").write_text("written by the agent")
"""


def toml_for(
    pytester: pytest.Pytester, extra: str = 'pass_env = []\ninvoke = "/{name} {task}"\n'
) -> str:
    script = write_file(pytester.path / "agent.py", AGENT)
    command = json.dumps([sys.executable, str(script), "{prompt}"])
    return f"[runners.cli]\ncommand = {command}\n{extra}"


def run(
    pytester: pytest.Pytester,
    cases: Sequence[Mapping[str, Any]],
    *args: str,
    toml: str | None = None,
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    # In-process, refusals at configure time too (tests/conftest.py's pytester).
    make_skill(pytester.path / "skills", "greet", cases)
    write_file(pytester.path / "skill-lens.toml", toml_for(pytester) if toml is None else toml)
    lens = LensRun(runner="cli", json="report.json")
    return lens(pytester, *args), lens.outcomes_by_case(pytester)


def test_a_loaded_case_gets_the_invoke_template_and_the_delivered_skill(
    pytester: pytest.Pytester,
) -> None:
    cases = [
        {
            "name": "greets",
            "task": "say hi",
            "workspace": {"files": {"seed.txt": "seeded\n"}},
            "assertions": [
                {"kind": "contains", "value": "got: /greet say hi"},
                {"kind": "contains", "value": "skill: name: greet"},
                {"kind": "file-produced", "file": "answer.txt"},
            ],
        },
        {
            "name": "a failing control",
            "task": "say hi",
            "assertions": [{"kind": "contains", "value": "got: say hi"}],
        },
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 1
    assert outcomes["greets"]["status"] == "passed", result.stdout.str()
    assert outcomes["a failing control"]["status"] == "failed"
    outcome = outcomes["greets"]
    assert outcome["latency_ms"] > 0
    assert outcome["cost_note"] == (
        "the cli runner reports no cost: what the command spent is not measured"
    )
    assert outcome["usage_note"] is not None
    assert outcome["skill_loaded"] is None  # stdout cannot tell


def test_budget_measures_latency_only(pytester: pytest.Pytester) -> None:
    cases = [
        {
            "name": "budgeted",
            "task": "say hi",
            "budget": {"max_tokens": 1000, "max_cost_usd": 1.0, "max_latency_ms": 600000},
        }
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 1
    (budget,) = [s for s in outcomes["budgeted"]["scores"] if s["evaluator"] == "budget"]
    checks = {c["id"]: c for c in budget["checks"]}
    assert checks["max_latency_ms"]["passed"] is True
    assert checks["max_tokens"]["passed"] is False
    assert checks["max_tokens"]["evidence"].startswith("token budget not evaluated: the cli")
    assert checks["max_cost_usd"]["passed"] is False
    assert checks["max_cost_usd"]["evidence"].startswith("cost budget not evaluated: the cli")


def test_sessions_run_the_command_once_each_in_one_workspace(pytester: pytest.Pytester) -> None:
    cases = [
        {
            "name": "two visits",
            "workspace": {"files": {"seed.txt": "seeded\n"}},
            "sessions": ["first visit", "second visit"],
            "assertions": [{"kind": "contains", "value": "got: /greet second visit"}],
        }
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["two visits"]["status"] == "passed"


def test_a_non_zero_exit_is_errored_with_the_stderr_tail(pytester: pytest.Pytester) -> None:
    result, outcomes = run(pytester, [{"name": "gives up", "task": "fail please"}])
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["gives up"]
    assert outcome["error"] == "cli exited with code 3; stderr ends: the agent gave up"
    assert outcome["cost_note"] is not None  # it ran: its spend is unknown, never zero


@pytest.mark.parametrize(
    ("case", "field"),
    [
        ({"tools": [{"name": "lookup", "description": "Look", "returns": "x"}]}, "tools:"),
        ({"trajectory": {"max_calls": 3}}, "trajectory:"),
        ({"mode": "offered", "trajectory": {"skill_triggered": True}}, "trajectory:"),
        ({"mode": "offered"}, "mode: offered"),
    ],
)
def test_what_cli_cannot_measure_is_an_authoring_error_before_any_case(
    pytester: pytest.Pytester, case: dict[str, Any], field: str
) -> None:
    result, _ = run(pytester, [{"name": "c", "task": "say hi", **case}])
    assert result.ret == 2
    assert f"the case uses {field}, which runner 'cli' does not serve" in result.stdout.str()


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ("", "the cli runner runs the command you name, and [runners.cli] names none"),
        ("[runners.cli]\npass_env = []\n", "[runners.cli] names none"),
        (None, "does not set pass_env"),
        ('[runners.cli]\ncommand = ["agent"]\npass_env = []\n', "exactly one {prompt} element"),
    ],
)
def test_a_table_cli_cannot_run_is_exit_2_before_any_case(
    pytester: pytest.Pytester, toml: str | None, expected: str
) -> None:
    text = toml_for(pytester, extra="") if toml is None else toml
    result, _ = run(pytester, [{"name": "c", "task": "say hi"}], toml=text)
    assert result.ret == 2
    assert expected in result.stdout.str() + result.stderr.str()


def test_a_missing_executable_and_a_spend_ceiling_are_exit_2(pytester: pytest.Pytester) -> None:
    toml = '[runners.cli]\ncommand = ["no-such-agent-x", "{prompt}"]\npass_env = []\n'
    result, _ = run(pytester, [{"name": "c", "task": "say hi"}], toml=toml)
    assert result.ret == 2
    assert (
        "needs 'no-such-agent-x', which is not on PATH" in result.stdout.str() + result.stderr.str()
    )
    result, _ = run(pytester, [{"name": "c", "task": "say hi"}], "--skill-lens-max-spend", "1")
    assert result.ret == 2
    assert (
        "the spend of runner 'cli' can never be priced" in result.stdout.str() + result.stderr.str()
    )


def test_the_command_runs_under_home_isolation(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILL_LENS_TEST_SECRET", "leak-me")
    script = write_file(
        pytester.path / "env.py",
        "import os\nprint(os.environ.get('SKILL_LENS_TEST_SECRET', 'absent'), "
        "os.environ['HOME'])\n",
    )
    command = json.dumps([sys.executable, str(script), "{prompt}"])
    toml = f"[runners.cli]\ncommand = {command}\npass_env = []\n"
    cases = [{"name": "env", "task": "x", "assertions": [{"kind": "contains", "value": "absent"}]}]
    result, outcomes = run(pytester, cases, toml=toml)
    assert result.ret == 0, result.stdout.str()
    assert "skill-lens-cli-" in outcomes["env"]["output"]
    assert not Path(outcomes["env"]["output"].split()[1]).exists()


@pytest.mark.parametrize(
    ("check", "field", "written"),
    [
        (
            {"kind": "file-produced", "file": ".agents/skills/greet/SKILL.md"},
            "assertions[0].file",
            ".agents/skills/greet/SKILL.md",
        ),
        (
            {"kind": "contains", "value": "x", "file_glob": "*/*/*/SKILL.md"},
            "assertions[0].file_glob",
            "*/*/*/SKILL.md",
        ),
    ],
    ids=["file", "glob"],
)
def test_a_check_that_would_read_the_delivered_skill_is_exit_2(
    pytester: pytest.Pytester, check: dict[str, Any], field: str, written: str
) -> None:
    cases = [{"name": "reads the copy", "task": "t", "workspace": {}, "assertions": [check]}]
    result, outcomes = run(pytester, cases)
    assert result.ret == 2
    text = result.stdout.str()
    assert f"field '{field}'" in text
    assert f"{written!r} can read .agents/skills/greet/, where runner 'cli' delivers" in text
    assert outcomes == {}  # nothing ran


def test_a_check_beside_the_delivered_skill_is_allowed(pytester: pytest.Pytester) -> None:
    cases = [
        {
            "name": "reads its own output",
            "task": "t",
            "workspace": {},
            "assertions": [{"kind": "file-produced", "file": "answer.txt"}],
        }
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["reads its own output"]["status"] == "passed"
