"""The gemini-cli preset: its argv, the settings file its launch hook writes into the
call's home, the model it was told, and its judge's restriction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_skill_lens.run.products.description import LaunchContext, argv
from pytest_skill_lens.run.products.gemini_cli import JUDGE_POLICY, PRESET, SETTINGS_FILE
from pytest_skill_lens.settings import ProductTable

SERVER: dict[str, object] = {
    "command": "/usr/bin/python3",
    "args": ["-m", "bridge"],
    "env": {"PYTHONPATH": "/x"},
}


def context(mcp: dict[str, object] | None = None) -> LaunchContext:
    home = Path("/tmp/home")
    return LaunchContext(
        env={"HOME": str(home)},
        files_home=home,
        cwd=Path("/w"),
        isolated=True,
        sandboxed=False,
        mcp=mcp,
    )


@pytest.mark.parametrize("task", ["say hi", "--version", "-p x", "--prompt=--help"])
def test_the_task_is_bound_as_the_prompt_options_value(task: str) -> None:
    command = argv(PRESET, ProductTable(args=["-m", "gemini-2.5-flash"]), task)
    assert command[0] == "gemini"
    assert command[-1] == f"--prompt={task}"  # never an argument of its own
    assert command[-3:-1] == ["-m", "gemini-2.5-flash"]  # the table's args before it
    assert {"--yolo", "--skip-trust", "stream-json"} <= set(command)


def test_the_launch_writes_the_settings_the_product_needs_and_no_server_without_tools() -> None:
    launch = PRESET.launch(context()) if PRESET.launch else None
    assert launch is not None and launch.flags == () and dict(launch.env) == {}
    settings = json.loads(launch.files[SETTINGS_FILE])
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["general"]["maxAttempts"] == 1
    assert settings["privacy"]["usageStatisticsEnabled"] is False
    assert settings["telemetry"]["enabled"] is False
    assert "mcpServers" not in settings


def test_with_tools_the_bridge_is_its_one_mcp_server() -> None:
    assert PRESET.launch is not None
    settings = json.loads(PRESET.launch(context(SERVER)).files[SETTINGS_FILE])
    assert settings["mcpServers"] == {"skill-lens": SERVER}


def test_the_model_named_in_the_table_is_the_one_it_was_told() -> None:
    assert PRESET.told_model(ProductTable(args=["-m", "gemini-2.5-pro"])) == "gemini-2.5-pro"
    assert PRESET.told_model(ProductTable(args=["--model=gemini-2.5-flash"])) == "gemini-2.5-flash"
    assert PRESET.told_model(ProductTable()) == ""


def test_the_judge_is_handed_a_policy_file_that_denies_every_tool() -> None:
    assert PRESET.judge_restriction == (f"--policy={JUDGE_POLICY}",)
    text = JUDGE_POLICY.read_text(encoding="utf-8")
    assert 'toolName = "*"' in text and 'decision = "deny"' in text
