"""The task is always the prompt (issue 29, item 8), and the paths a product reads as its
own configuration are one table (item 1): both pure, checked without a process.

The argv forms were verified against the pinned binaries (tests/plugin/
test_product_config_isolation_e2e.py runs them): Claude Code takes everything after
``--`` as its prompt, and Copilot's ``--prompt=<task>`` binds the task as the option's
value whatever it starts with (``-p -- <task>`` is refused by Copilot).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.run.products import claude_code, copilot
from pytest_skill_lens.run.products.delivery import DeliveryFailed, deliver
from pytest_skill_lens.run.products.description import (
    PROMPT_PLACEHOLDER,
    argv,
    exposed_prompt_problem,
    with_flags,
)
from pytest_skill_lens.settings import ProductTable
from pytest_skill_lens.suite.product_config import (
    CONFIG_PATHS,
    config_path_problem,
    config_readers,
)
from pytest_skill_lens.suite.skill import Skill, load_skill

DASHED = ["--version", "--mcp-config=/tmp/x", "-p", "--", "-"]


def table(**fields: object) -> ProductTable:
    return ProductTable.model_validate(fields)


@pytest.mark.parametrize("task", DASHED)
def test_claude_codes_argv_ends_with_the_separator_and_the_task(task: str) -> None:
    built = argv(claude_code.PRESET, table(args=["--model", "sonnet"]), task)
    assert built[-2:] == ["--", task]
    assert built.index("-p") < built.index("--model") < len(built) - 2
    assert built.count(task) == 1 or task in ("-p", "--")  # never anywhere else as itself


@pytest.mark.parametrize("task", DASHED)
def test_copilots_argv_binds_the_task_as_the_prompt_options_value(task: str) -> None:
    built = argv(copilot.PRESET, table(args=["--model", "x"]), task)
    assert f"--prompt={task}" in built
    assert "-p" not in built
    assert task not in built  # never an element of its own, where it could read as a flag


def test_flags_added_later_go_before_a_separated_prompt_and_after_anything_else() -> None:
    assert with_flags(["claude", "-p", "--", "--version"], ["--mcp-config=f"]) == [
        "claude",
        "-p",
        "--mcp-config=f",
        "--",
        "--version",
    ]
    assert with_flags(["copilot", "--prompt=x"], ["--u=f"]) == ["copilot", "--prompt=x", "--u=f"]


def test_table_args_go_before_a_separator_the_command_puts_before_its_prompt() -> None:
    built = argv(claude_code.PRESET, table(command=["wrap", "--", "{prompt}"], args=["-v"]), "-x")
    assert built == ["wrap", "-v", "--", "-x"]


@pytest.mark.parametrize(
    ("command", "task", "exposed"),
    [
        (["agent", "{prompt}"], "--version", True),
        (["agent", "--prompt", "{prompt}"], "-rf", True),
        (["agent", "--", "{prompt}"], "--version", False),
        (["agent", "{prompt}"], "say hello", False),
        (["agent", "{prompt}"], "/greet --version", False),
    ],
)
def test_a_dash_task_in_a_command_slot_it_could_be_read_from_as_a_flag_is_named(
    command: list[str], task: str, exposed: bool
) -> None:
    found = exposed_prompt_problem("[runners.cli]", command, task)
    if not exposed:
        assert found is None
        return
    assert found is not None
    assert repr(task[:40]) in found[0] and "[runners.cli] command" in found[0]
    assert f'"--", "{PROMPT_PLACEHOLDER}"' in found[1]


# -- the paths a product reads as its own configuration ------------------------------------


@pytest.mark.parametrize(
    ("path", "product"),
    [
        (".claude/settings.json", "claude-code"),
        (".claude/settings.local.json", "claude-code"),
        (".mcp.json", "claude-code"),
        ("./.claude//settings.json", "claude-code"),
        (".Claude/Settings.JSON", "claude-code"),  # the same file on a case-blind disk
        (".github/hooks/any.json", "copilot"),
        (".github/copilot/settings.json", "copilot"),
        (".github/copilot/settings.local.json", "copilot"),
        (".github/mcp.json", "copilot"),
        (".codex/config.toml", "codex"),
        (".gemini/settings.json", "gemini-cli"),
        (".opencode/plugin/x.ts", "opencode"),
        ("opencode.json", "opencode"),
    ],
)
def test_a_path_a_product_reads_as_its_configuration_is_named_with_the_product(
    path: str, product: str
) -> None:
    assert product in [name for name, _ in config_readers(path)]
    found = config_path_problem(path)
    assert found is not None and product in found and repr(path) in found


@pytest.mark.parametrize(
    "path",
    ["notes.md", "src/.claude/settings.json", ".claude/skills/x/SKILL.md", "docs/.mcp.json"],
)
def test_data_elsewhere_is_no_products_configuration(path: str) -> None:
    assert config_readers(path) == []
    assert config_path_problem(path) is None


def test_each_preset_takes_its_inert_files_from_the_one_table() -> None:
    for preset in (claude_code.PRESET, copilot.PRESET):
        assert preset.name in CONFIG_PATHS
    # Claude Code reads its project settings file under the preset's own flags, so the
    # plugin overwrites it before a start; Copilot reads nothing from an untrusted folder.
    assert [p.path for p in claude_code.PRESET.inert_files] == [".claude/settings.json"]
    assert copilot.PRESET.inert_files == ()


# -- delivery: configuration files made inert, never delivered ------------------------------


def skill_at(root: Path, name: str = "greet") -> Skill:
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nBody\n")
    return load_skill(directory / "SKILL.md")


def test_a_settings_file_an_earlier_session_left_is_made_inert_never_written_through(
    tmp_path: Path,
) -> None:
    skill = skill_at(tmp_path / "src")
    cwd, outside = tmp_path / "work", tmp_path / "outside.json"
    (cwd / ".claude").mkdir(parents=True)
    outside.write_text('{"env": {"ANTHROPIC_BASE_URL": "http://elsewhere"}}')
    (cwd / ".claude" / "settings.json").symlink_to(outside)
    deliver(skill, cwd, ".claude/skills", inert=claude_code.PRESET.inert_files)
    made = cwd / ".claude" / "settings.json"
    assert not made.is_symlink() and made.read_bytes() == b"{}\n"
    assert "elsewhere" in outside.read_text()  # replaced, never written through
    made.write_text('{"hooks": {}}')  # as a session's Bash would
    deliver(skill, cwd, ".claude/skills", inert=claude_code.PRESET.inert_files)
    assert made.read_bytes() == b"{}\n"


def test_no_settings_file_is_made_where_there_was_none(tmp_path: Path) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    deliver(skill_at(tmp_path / "src"), cwd, ".claude/skills", inert=claude_code.PRESET.inert_files)
    assert not (cwd / ".claude" / "settings.json").exists()


def test_a_bundled_file_is_never_delivered_where_a_product_reads_its_configuration(
    tmp_path: Path,
) -> None:
    # Only a cli table can aim skills_dir there; the presets' own never can.
    skill = skill_at(tmp_path / "src", "hooks")
    (skill.directory / "plant.json").write_text("{}")
    cwd = tmp_path / "work"
    cwd.mkdir()
    with pytest.raises(DeliveryFailed, match="where copilot reads its own configuration"):
        deliver(skill, cwd, ".github")
