"""Codex's launch hook: the -c TOML overrides it builds parse as TOML and say what they
should, whatever the endpoint or the bridge's paths hold; its own sandbox only under off."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pytest_skill_lens.run.products.codex import PRESET
from pytest_skill_lens.run.products.description import Launch, LaunchContext


def launch(isolated: bool = True, **env: str) -> Launch:
    assert PRESET.launch is not None
    server = {"command": "/py thon", "args": ["-m", 'a"b\nc'], "env": {"PYTHONPATH": "/x y"}}
    context = LaunchContext(
        env=env,
        files_home=Path("/h"),
        cwd=Path("/w"),
        isolated=isolated,
        sandboxed=True,
        mcp=server,
    )
    return PRESET.launch(context)


def overrides(made: Launch) -> dict[str, Any]:
    """Every ``-c key=value`` as TOML reads it (dotted keys nest)."""
    flags = list(made.flags)
    lines = [flags[at + 1] for at, flag in enumerate(flags) if flag == "-c"]
    return tomllib.loads("\n".join(lines))


def test_the_endpoint_becomes_a_responses_provider_keyed_by_a_variable() -> None:
    url = 'http://127.0.0.1:9/v1"\ninjected = true'
    read = overrides(launch(OPENAI_BASE_URL=url, OPENAI_API_KEY="sk-secret"))
    assert read["model_provider"] == "skill_lens"
    provider = read["model_providers"]["skill_lens"]
    assert provider["base_url"] == url and "injected" not in read
    assert (provider["env_key"], provider["wire_api"]) == ("OPENAI_API_KEY", "responses")
    assert "sk-secret" not in " ".join(launch(OPENAI_API_KEY="sk-secret").flags)


def test_without_an_endpoint_codex_keeps_its_own_provider() -> None:
    assert "model_provider" not in overrides(launch())


def test_the_bridge_is_the_skill_lens_server_with_its_tools_approved() -> None:
    server = overrides(launch())["mcp_servers"]["skill-lens"]
    assert server["command"] == "/py thon" and server["args"] == ["-m", 'a"b\nc']
    assert server["env"] == {"PYTHONPATH": "/x y"}
    assert server["default_tools_approval_mode"] == "approve"


def test_isolated_its_home_is_the_calls_and_its_sandbox_is_ours() -> None:
    made = launch()
    assert made.env == {"CODEX_HOME": "/h/.codex"} and ".codex/.skill-lens" in made.files
    assert "--dangerously-bypass-approvals-and-sandbox" in made.flags
    off = launch(isolated=False)
    assert off.env == {} and off.files == {}
    assert "--dangerously-bypass-approvals-and-sandbox" not in off.flags
    assert off.flags[:2] == ("--sandbox", "workspace-write")
