"""The ``cli`` runner: its table's rules, its prompt, and one start of a real command.

The command is this interpreter running a small script the test writes, so every
path (output, exit code, timeout, the output cap, delivery, the environment) is the
real process layer's.
"""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_skill_lens.run.catalog import builtin_runner
from pytest_skill_lens.run.products.cli import PRESET as CLI
from pytest_skill_lens.run.products.cli import (
    invoke_problem,
    settings_problem,
    start_problem,
)
from pytest_skill_lens.run.products.cli_trace import COST_NOTE, USAGE_NOTE
from pytest_skill_lens.run.products.description import MAX_PROMPT_BYTES, prompt_for
from pytest_skill_lens.run.products.runner import ProductRunner
from pytest_skill_lens.run.result import problems
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill, load_skill

AGENT = """\
import os, pathlib, sys
prompt = sys.argv[1]
if prompt.startswith("fail"):
    sys.stderr.write("x" * 900 + "it went wrong\\n")
    sys.exit(3)
if prompt.startswith("sleep"):
    import time
    time.sleep(30)
if prompt.startswith("flood"):
    sys.stdout.write("y" * 5000)
    sys.exit(0)
skill = pathlib.Path({skills_dir!r}) / "greet" / "SKILL.md"
print("prompt:", prompt)
print("args:", sys.argv[2:])
print("skill:", skill.read_text().splitlines()[1] if skill.is_file() else "none")
print("secret:", os.environ.get("SKILL_LENS_TEST_SECRET", "absent"))
print("passed:", os.environ.get("MY_AGENT_TOKEN", "absent"))
print("home:", os.environ["HOME"])
"""


def settings(**table: object) -> Settings:
    return Settings.model_validate({"runners": {"cli": table}} if table else {})


def refusal(settings: Settings) -> str:
    found = settings_problem(settings)
    assert found is not None
    return f"{found[0]} | {found[1]}"


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    directory = tmp_path / "skills" / "greet"
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greets warmly\n---\nSay hello.\n", encoding="utf-8"
    )
    return load_skill(directory / "SKILL.md")


def agent(tmp_path: Path, skills_dir: str = ".agents/skills") -> list[str]:
    script = tmp_path / "agent.py"
    script.write_text(AGENT.format(skills_dir=skills_dir), encoding="utf-8")
    return [sys.executable, str(script), "{prompt}"]


def case(task: str = "say hi", **fields: object) -> EvalCase:
    return EvalCase.model_validate({"name": "c", "task": task, **fields})


# -- the table -------------------------------------------------------------------------


def test_cli_without_a_command_cannot_be_named() -> None:
    assert "[runners.cli] names none" in refusal(settings())
    assert "[runners.cli] names none" in refusal(settings(pass_env=[]))


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ({"command": ["agent"]}, "exactly one {prompt} element (it has 0)"),
        ({"command": ["{prompt}", "x"]}, "cannot start with {prompt}"),
        ({"command": ["agent", "--p={prompt}"]}, "inside another argument"),
        ({"command": ["agent", "{prompt}"], "args": ["{prompt}"]}, "args may not hold {prompt}"),
        ({"command": ["agent", "{prompt}"], "skills_dir": "../up"}, "skills_dir '../up'"),
        ({"command": ["agent", "{prompt}"], "skills_dir": "/abs"}, "the path is absolute"),
        ({"command": ["agent", "{prompt}"], "invoke": "/{name}"}, "never uses {task}"),
        ({"command": ["agent", "{prompt}"], "invoke": "{tsak}"}, "uses {tsak}"),
        ({"command": ["agent", "{prompt}"], "invoke": "{task!r}"}, "no conversion or format"),
        ({"command": ["agent", "{prompt}"], "invoke": "{task:>9}"}, "no conversion or format"),
        ({"command": ["agent", "{prompt}"], "invoke": "{task"}, "is not a template"),
        ({"command": ["agent", "{prompt}"], "pass_env": ["HOME"]}, "home isolation sets itself"),
        ({"command": ["agent", "{prompt}"]}, "does not set pass_env"),
    ],
)
def test_a_table_the_cli_runner_cannot_run_is_refused_with_the_key(
    table: dict[str, object], expected: str
) -> None:
    assert expected in refusal(settings(**table))


def test_a_sound_table_is_accepted_and_pass_env_is_needed_only_under_isolation() -> None:
    command = ["agent", "--prompt", "{prompt}"]
    sound = settings(command=command, invoke="/{name} {task} {{literal}}", pass_env=[])
    assert settings_problem(sound) is None
    off = Settings.model_validate(
        {"product_sandbox": "off", "runners": {"cli": {"command": command}}}
    )
    assert settings_problem(off) is None
    required = settings(command=command, pass_env=[]).model_copy(
        update={"product_sandbox": "required"}
    )
    assert settings_problem(required) is None  # the run's sandbox decision holds "required"


def test_invoke_accepts_name_and_task_only() -> None:
    assert invoke_problem("{task}") is None
    assert invoke_problem("use {name}: {task}") is None


def test_the_executable_must_be_on_path(tmp_path: Path) -> None:
    assert start_problem(settings(command=agent(tmp_path), pass_env=[])) is None
    missing = start_problem(settings(command=["no-such-agent-x", "{prompt}"], pass_env=[]))
    assert missing is not None and "needs 'no-such-agent-x', which is not on PATH" in missing[0]


def test_the_catalog_serves_neither_tools_trajectory_nor_offered_and_never_prices() -> None:
    description = builtin_runner("cli")
    assert description is not None and description.factory is not None
    assert {"tools", "trajectory", "offered"}.isdisjoint(description.serves)
    assert {"workspace", "sessions", "judge"} <= description.serves
    assert description.unpriced_reason(Settings()) is not None


# -- the prompt ------------------------------------------------------------------------


def test_loaded_fills_invoke_and_a_baseline_without_a_skill_gets_the_bare_task(
    skill: Skill,
) -> None:
    assert prompt_for(skill, case("say {hi}"), "{task}") == "say {hi}"
    assert prompt_for(skill, case("say hi"), "/{name} {task}") == "/greet say hi"
    empty = dataclasses.replace(skill, variant="baseline", description="", instructions="")
    assert prompt_for(empty, case("say hi"), "/{name} {task}") == "say hi"


# -- one run ---------------------------------------------------------------------------


def runner(tmp_path: Path, **table: object) -> ProductRunner:
    fields: dict[str, object] = {"pass_env": [], **table}
    if "command" not in fields:  # not setdefault: agent() rewrites the script
        fields["command"] = agent(tmp_path)
    return ProductRunner(CLI, settings(**fields), sandbox=None)


def test_the_output_is_stdout_with_latency_and_notes_for_tokens_and_cost(
    tmp_path: Path, skill: Skill, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILL_LENS_TEST_SECRET", "leak-me")
    monkeypatch.setenv("MY_AGENT_TOKEN", "t")
    result = runner(tmp_path, args=["--verbose"], pass_env=["MY_AGENT_TOKEN"]).run(
        skill, case("say 'hi'; $(x)"), None
    )
    assert problems(result) == []
    assert result.error is None
    lines = result.output.splitlines()
    assert lines[0] == "prompt: say 'hi'; $(x)"  # one argument, no shell
    assert lines[1] == "args: ['--verbose']"
    assert lines[2] == "skill: name: greet"  # delivered under .agents/skills
    assert lines[3:5] == ["secret: absent", "passed: t"]
    assert "skill-lens-cli-" in lines[5]
    assert result.latency_ms > 0
    assert (result.cost_note, result.usage_note) == (COST_NOTE, USAGE_NOTE)
    assert (result.tokens, result.cost_usd) == (0, 0.0)
    assert result.skill_loaded is None and result.skill_triggered is None


def test_skills_dir_and_a_workspace_are_honoured(tmp_path: Path, skill: Skill) -> None:
    work = tmp_path / "work"
    work.mkdir()
    fields = {"command": agent(tmp_path, "tools/skills"), "skills_dir": "tools/skills"}
    result = runner(tmp_path, **fields).run(skill, case(), work)
    assert "skill: name: greet" in result.output
    assert (work / "tools" / "skills" / "greet" / "SKILL.md").is_file()  # kept for inspection


def test_a_non_zero_exit_is_errored_with_the_stderr_tail_and_keeps_the_notes(
    tmp_path: Path, skill: Skill
) -> None:
    result = runner(tmp_path).run(skill, case("fail now"), None)
    assert result.error is not None
    assert result.error.startswith("cli exited with code 3; stderr ends: ")
    assert result.error.endswith("it went wrong")
    assert len(result.error) < 600
    assert (result.cost_note, result.usage_note) == (COST_NOTE, USAGE_NOTE)
    assert result.output == ""


def test_a_timeout_is_errored(tmp_path: Path, skill: Skill) -> None:
    result = runner(tmp_path, timeout_seconds=0.2).run(skill, case("sleep"), None)
    assert result.error == (
        "cli timed out after 0.2 s (timeout_seconds in [runners.cli], or the case timeout)"
    )
    assert result.cost_note == COST_NOTE


def test_output_past_max_output_bytes_is_errored_naming_the_key(
    tmp_path: Path, skill: Skill
) -> None:
    result = runner(tmp_path, max_output_bytes=1000).run(skill, case("flood"), None)
    assert result.error is not None
    assert "cut at max_output_bytes (1,000 bytes)" in result.error
    assert "[runners.cli]" in result.error
    assert result.output == ""  # never a partial output read as the answer


def test_a_run_that_never_started_a_process_has_no_notes(tmp_path: Path, skill: Skill) -> None:
    gone = ProductRunner(
        CLI, settings(command=[str(tmp_path / "vanished"), "{prompt}"], pass_env=[]), sandbox=None
    )
    result = gone.run(skill, case(), None)
    assert result.error is not None and "cli could not be started" in result.error
    assert (result.cost_note, result.usage_note) == (None, None)
    huge = runner(tmp_path).run(skill, case("x" * (MAX_PROMPT_BYTES + 1)), None)
    assert huge.error is not None and "over the 102,400-byte limit" in huge.error
    assert (huge.cost_note, huge.usage_note) == (None, None)


def test_a_relative_executable_is_resolved_where_the_run_started(
    tmp_path: Path, skill: Skill, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "bin" / "agent.sh"
    script.parent.mkdir()
    script.write_text(textwrap.dedent('#!/bin/sh\necho "ran: $1"\n'), encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    result = ProductRunner(
        CLI, settings(command=["bin/agent.sh", "{prompt}"], pass_env=[]), sandbox=None
    ).run(skill, case(), None)
    assert (result.error, result.output) == (None, "ran: say hi\n")
