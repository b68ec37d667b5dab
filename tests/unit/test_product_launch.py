"""A product's launch hook (description.Launch): flags, environment and home files that a
product takes as configuration rather than as the Preset's fixed fields (Codex's ``-c``
flags, Gemini's settings.json, OpenCode's config in the environment), with the MCP
bridge's server entry handed to it instead of a config-file flag."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.products.bridge import BridgeSetupError, start_with_tools
from pytest_skill_lens.run.products.description import (
    Launch,
    LaunchContext,
    Preset,
    launch_problem,
)
from pytest_skill_lens.run.products.env import isolation_sets
from pytest_skill_lens.run.products.process import run_dir
from pytest_skill_lens.run.tools.bridge_form import BridgeForm
from pytest_skill_lens.settings import ProductTable
from pytest_skill_lens.suite.model import ToolSpec

# The "product": prints its argv, the variables it was given and the home file's text.
_DUMP = (
    "import json, os, sys; from pathlib import Path; "
    "h = Path(os.environ['HOME_FILE']); "
    "print(json.dumps({'argv': sys.argv[1:], 'seen': os.environ.get('SEEN'), "
    "'file': h.read_text() if h.is_file() else None}))"
)
seen: list[LaunchContext] = []


def _launch(context: LaunchContext) -> Launch:
    seen.append(context)
    server = context.mcp
    flags: tuple[str, ...] = ("--endpoint", context.env.get("MY_BASE_URL", "none"))
    if server is not None:
        flags += ("--mcp", json.dumps({"command": server["command"], "args": server["args"]}))
    return Launch(
        flags=flags,
        env={"SEEN": "yes", "HOME_FILE": str(context.files_home / "conf" / "settings.json")},
        files={"conf/settings.json": '{"auth": "key"}'},
    )


def _preset(bridge: BridgeForm | None) -> Preset:
    return Preset(
        name="dumper",
        executable=sys.executable,
        flags=("-c", _DUMP),
        skills_dir=".dumper/skills",
        install="-",
        auth_hint="-",
        launch=_launch,
        launch_variables=("SEEN", "HOME_FILE"),
        bridge=bridge,
    )


def _start(preset: Preset, tools: list[ToolSpec], tmp_path: Path) -> dict[str, Any]:
    seen.clear()
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    with run_dir("dumper", sandbox=None) as run:
        env: Mapping[str, str] = {"PATH": "/usr/bin:/bin", "MY_BASE_URL": "http://127.0.0.1:9"}
        tooled = start_with_tools(
            preset,
            ProductTable(),
            tools,
            [sys.executable, "-c", _DUMP, "--", "the task"],
            run=run,
            cwd=work,
            env=env,
            timeout=30,
            max_output_bytes=100_000,
        )
        assert seen and seen[0].files_home == run.home
    out: dict[str, Any] = json.loads(tooled.ran.finished.stdout.data)
    return out


def test_the_launch_adds_flags_before_the_prompt_env_and_home_files(tmp_path: Path) -> None:
    out = _start(_preset(None), [], tmp_path)
    assert out["argv"] == ["--endpoint", "http://127.0.0.1:9", "--", "the task"]
    assert out["seen"] == "yes"
    assert out["file"] == '{"auth": "key"}'
    assert seen[0].mcp is None
    assert seen[0].cwd == tmp_path / "work"


def test_a_flagless_bridge_reaches_the_product_through_the_launch(tmp_path: Path) -> None:
    form = BridgeForm(flag=None, server={}, prefix="mcp__skill_lens__")
    tool = ToolSpec(name="lookup", description="d", input_schema={"type": "object"})
    out = _start(_preset(form), [tool], tmp_path)
    mcp = json.loads(out["argv"][out["argv"].index("--mcp") + 1])
    assert "pytest_skill_lens.mcp_bridge" in " ".join(mcp["args"])
    assert out["argv"][-2:] == ["--", "the task"]  # the bridge adds no config-file flag


def test_a_bridge_without_a_flag_or_a_launch_is_refused(tmp_path: Path) -> None:
    preset = _preset(BridgeForm(flag=None, server={}, prefix="x"))
    bare = Preset(**{**preset.__dict__, "launch": None})
    tool = ToolSpec(name="lookup", description="d", input_schema={"type": "object"})
    with pytest.raises(BridgeSetupError, match="no launch"):
        _start(bare, [tool], tmp_path)


def test_launch_variables_may_not_be_passed_by_name() -> None:
    assert {"SEEN", "HOME_FILE"} <= set(isolation_sets(_preset(None)))


@pytest.mark.parametrize(
    "files",
    [{"../escape": "x"}, {"/abs/path": "x"}, {"": "x"}, {"a/../../b": "x"}],
)
def test_a_home_file_outside_the_home_is_refused(files: dict[str, str]) -> None:
    assert launch_problem(Launch(files=files)) is not None


def test_a_home_file_inside_the_home_is_fine() -> None:
    assert launch_problem(Launch(files={".gemini/settings.json": "{}"})) is None
