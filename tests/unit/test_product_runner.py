"""What every product runner shares: the table's rules, the argv, the prompt, the
environment under home isolation and the skill's delivery; plus the claude-code
runner's error paths that never start a process."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from pytest_skill_lens.run.products.claude_code import PRESET
from pytest_skill_lens.run.products.claude_code import PRESET as CLAUDE_CODE
from pytest_skill_lens.run.products.delivery import DeliveryFailed, deliver
from pytest_skill_lens.run.products.description import MAX_PROMPT_BYTES, argv, prompt_for
from pytest_skill_lens.run.products.env import product_env, signs_in
from pytest_skill_lens.run.products.runner import ProductRunner
from pytest_skill_lens.run.products.table_rules import table_problem
from pytest_skill_lens.settings import ProductTable, Settings
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill, load_skill


def table(**fields: object) -> ProductTable:
    return ProductTable.model_validate(fields)


def problem(**fields: object) -> str:
    found = table_problem(PRESET, table(**fields))
    assert found is not None
    return found[0]


def test_the_preset_argv_puts_the_table_args_after_the_flags_and_the_prompt_last() -> None:
    built = argv(PRESET, table(args=["--model", "sonnet"]), "/greet hi")
    assert built[:4] == ["claude", "-p", "--output-format", "stream-json"]
    assert "--no-session-persistence" in built
    assert built[-4:] == ["--model", "sonnet", "--", "/greet hi"]


def test_command_replaces_the_argv_with_the_prompt_as_one_element_and_no_shell() -> None:
    prompt = "a; rm -rf / $(x) 'quoted'"
    built = argv(PRESET, table(command=["wrap", "{prompt}", "--x"], args=["-v"]), prompt)
    assert built == ["wrap", prompt, "--x", "-v"]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"skills_dir": ".x"}, "skills_dir is for the cli runner"),
        ({"invoke": "{task}"}, "invoke is for the cli runner"),
        ({"args": ["--p={prompt}"]}, "args may not hold {prompt}"),
        ({"command": ["claude"]}, "exactly one {prompt} element (it has 0)"),
        ({"command": ["c", "{prompt}", "{prompt}"]}, "exactly one {prompt} element (it has 2)"),
        ({"command": ["{prompt}", "x"]}, "cannot start with {prompt}"),
        ({"command": ["c", "--p={prompt}"]}, "inside another argument"),
        ({"command": []}, "must name an executable first"),
        ({"pass_env": ["tmpdir"]}, "names tmpdir, which home isolation sets itself"),
        ({"pass_env": ["DISABLE_TELEMETRY"]}, "which home isolation sets itself"),
        ({"pass_env": ["IS_SANDBOX"]}, "which home isolation sets itself"),
        ({"pass_env": ["A B"]}, "takes variable names only"),
    ],
)
def test_a_table_the_preset_cannot_run_is_refused_with_the_key(
    fields: dict[str, object], expected: str
) -> None:
    found = problem(**fields)
    assert expected in found
    assert "[runners.claude-code]" in found


def test_a_sound_table_is_accepted() -> None:
    fields = {"command": ["claude", "-p", "{prompt}"], "args": ["-v"], "pass_env": ["HTTPS_PROXY"]}
    assert table_problem(PRESET, table(**fields)) is None


def skill_at(root: Path, text: str = "---\nname: greet\ndescription: d\n---\nBody\n") -> Skill:
    directory = root / "greet"
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_bytes(text.encode())
    return load_skill(directory / "SKILL.md")


def none_arm(skill: Skill) -> Skill:
    return dataclasses.replace(skill, variant="baseline", description="", instructions="")


def test_the_prompt_is_the_task_and_loaded_invokes_the_skill(tmp_path: Path) -> None:
    skill = skill_at(tmp_path)
    assert prompt_for(skill, EvalCase(name="c", task="do it")) == "/greet do it"
    assert prompt_for(skill, EvalCase(name="c", task="do it", mode="offered")) == "do it"
    assert prompt_for(none_arm(skill), EvalCase(name="c", task="do it")) == "do it"


def test_home_isolation_builds_the_environment_from_an_allowlist(tmp_path: Path) -> None:
    source = {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "ANTHROPIC_API_KEY": "k",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
        "OPENAI_API_KEY": "other product's",
        "GITHUB_TOKEN": "ci",
        "HTTPS_PROXY": "p",
        "HOME": "/root",
        "DISABLE_TELEMETRY": "0",
    }
    env = product_env(
        PRESET, table(pass_env=["HTTPS_PROXY"]), "home", tmp_path, source, sandbox=None
    )
    assert env["HOME"] == str(tmp_path)
    assert env["TMPDIR"] == str(tmp_path / "tmp")
    assert env["XDG_CONFIG_HOME"] == str(tmp_path / ".config")
    assert env["ANTHROPIC_API_KEY"] == "k" and env["HTTPS_PROXY"] == "p"
    assert "OPENAI_API_KEY" not in env and "GITHUB_TOKEN" not in env
    assert env["DISABLE_TELEMETRY"] == "1"  # the harness's, never the caller's
    assert (env.get("IS_SANDBOX") == "1") == (os.geteuid() == 0)
    off = product_env(PRESET, table(), "off", tmp_path, source, sandbox=None)
    assert off["HOME"] == "/root" and off["OPENAI_API_KEY"] == "other product's"


def test_signing_in_needs_a_non_empty_auth_variable_or_a_credential_in_pass_env() -> None:
    assert not signs_in(PRESET, table(), {"ANTHROPIC_API_KEY": " "})
    assert signs_in(PRESET, table(), {"CLAUDE_CODE_OAUTH_TOKEN": "t"})
    assert signs_in(PRESET, table(pass_env=["MY_GATEWAY_TOKEN"]), {})
    assert not signs_in(PRESET, table(pass_env=["AWS_REGION", "AWS_PROFILE"]), {})


def test_delivery_writes_skill_md_as_written_and_the_bundle_never_the_evals(
    tmp_path: Path,
) -> None:
    skill = skill_at(tmp_path / "src", "---\r\nname: greet\r\ndescription: d\r\n---\r\nBody\r\n")
    source = skill.directory
    (source / "references").mkdir()
    (source / "references" / "style.md").write_text("style\n")
    (source / "evals").mkdir()
    (source / "evals" / "cases.yaml").write_text("cases: []\n")
    (source / "x.eval.yaml").write_text("cases: []\n")
    (source / ".env").write_text("SECRET=1\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("through the link\n")
    (source / "linked.md").symlink_to(outside)
    cwd = tmp_path / "work"
    cwd.mkdir()
    delivered = deliver(skill, cwd, ".claude/skills")
    assert delivered == cwd.resolve() / ".claude" / "skills" / "greet"
    assert (delivered / "SKILL.md").read_bytes() == b"---\nname: greet\ndescription: d\n---\nBody\n"
    assert (delivered / "references" / "style.md").read_text() == "style\n"
    files = sorted(p.relative_to(delivered).as_posix() for p in delivered.rglob("*"))
    assert files == ["SKILL.md", "references", "references/style.md"]  # a link out ships not


def test_delivery_reads_a_link_inside_the_skill_through_and_writes_a_regular_file(
    tmp_path: Path,
) -> None:
    skill = skill_at(tmp_path / "src")
    (skill.directory / "real.md").write_text("real\n")
    (skill.directory / "alias.md").symlink_to("real.md")
    cwd = tmp_path / "work"
    cwd.mkdir()
    delivered = deliver(skill, cwd, ".claude/skills")
    assert delivered is not None
    alias = delivered / "alias.md"
    assert not alias.is_symlink() and alias.read_text() == "real\n"


def test_a_link_planted_in_the_working_directory_never_redirects_delivery(
    tmp_path: Path,
) -> None:
    skill = skill_at(tmp_path / "src")
    cwd, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    (cwd / ".claude").mkdir(parents=True)
    elsewhere.mkdir()
    (cwd / ".claude" / "skills").symlink_to(elsewhere)
    with pytest.raises(DeliveryFailed, match="symbolic link"):
        deliver(skill, cwd, ".claude/skills")
    assert list(elsewhere.iterdir()) == []


def test_delivery_overwrites_and_never_deletes(tmp_path: Path) -> None:
    skill = skill_at(tmp_path / "src")
    cwd = tmp_path / "work"
    cwd.mkdir()
    delivered = deliver(skill, cwd, ".claude/skills")
    assert delivered is not None
    (delivered / "SKILL.md").write_text("vandalised")
    (delivered / "added.md").write_text("a session's own file")
    deliver(skill, cwd, ".claude/skills")
    assert "Body" in (delivered / "SKILL.md").read_text()
    assert (delivered / "added.md").exists()


def test_a_baseline_none_arm_gets_no_skill_directory(tmp_path: Path) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    assert deliver(none_arm(skill_at(tmp_path / "src")), cwd, ".claude/skills") is None
    assert list(cwd.iterdir()) == []


def test_a_skill_name_that_is_not_one_directory_entry_is_a_delivery_failure(
    tmp_path: Path,
) -> None:
    skill = dataclasses.replace(skill_at(tmp_path / "src"), name="../escape")
    with pytest.raises(DeliveryFailed, match="not one directory entry"):
        deliver(skill, tmp_path, ".claude/skills")


def runner(**fields: object) -> ProductRunner:
    return ProductRunner(
        CLAUDE_CODE, Settings(runners={"claude-code": table(**fields)}), sandbox=None
    )


def test_a_prompt_over_100_kib_is_errored_before_anything_starts(tmp_path: Path) -> None:
    case = EvalCase(name="c", task="x" * MAX_PROMPT_BYTES)
    result = runner().run(skill_at(tmp_path), case, None)
    assert result.error is not None and "over the 102,400-byte limit" in result.error
    assert (result.cost_note, result.usage_note) == (None, None)  # nothing ran: nothing spent


def test_an_executable_missing_at_run_time_is_errored_with_empty_notes(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-claude")
    result = runner(command=[missing, "-p", "{prompt}"]).run(
        skill_at(tmp_path), EvalCase(name="c", task="t"), None
    )
    assert result.error is not None
    assert result.error.startswith(f"claude-code could not be started ({missing!r})")
    assert (result.cost_note, result.usage_note) == (None, None)


def test_a_product_printing_garbage_and_exiting_is_errored_with_the_spend_unknown(
    tmp_path: Path,
) -> None:
    script = tmp_path / "fake-claude"
    script.write_text("#!/bin/sh\necho 'not a trace'\necho oops >&2\nexit 7\n")
    script.chmod(0o755)
    work = tmp_path / "ws"
    work.mkdir()
    result = runner(command=[str(script), "{prompt}"]).run(
        skill_at(tmp_path), EvalCase(name="c", task="t"), work
    )
    assert result.error == (
        "the claude-code trace ended with no result event (exit code 7); stderr ends: oops"
    )
    assert result.cost_note is not None and "spend is unknown" in result.cost_note
    assert (work / ".claude" / "skills" / "greet" / "SKILL.md").is_file()  # kept in the workspace


def test_a_trace_over_max_output_bytes_is_errored_naming_the_key(tmp_path: Path) -> None:
    script = tmp_path / "fake-claude"
    script.write_text("#!/bin/sh\nhead -c 5000 /dev/zero | tr '\\0' 'x'\n")
    script.chmod(0o755)
    result = runner(command=[str(script), "{prompt}"], max_output_bytes=1000).run(
        skill_at(tmp_path), EvalCase(name="c", task="t"), None
    )
    assert result.error is not None
    assert "cut at max_output_bytes (1,000 bytes)" in result.error
