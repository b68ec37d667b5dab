"""The ``pytest-skill-lens`` dispatcher: every command reachable, usage mistakes exit 2,
and nothing it loads needs pytest (the commands run where only the package is installed)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_skill_lens.cli import COMMANDS, console


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert console(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: pytest-skill-lens {init,mcp-import,convert,merge,html} ...")
    for name in ("init", "mcp-import", "convert", "merge", "html"):
        assert f"\n  {name} " in out
    assert list(COMMANDS) == ["init", "mcp-import", "convert", "merge", "html"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "pytest-skill-lens: name a command"),
        (["lint"], "pytest-skill-lens: unknown command 'lint'"),
        (["convert"], "the following arguments are required: PATH"),
        (["init", "--frobnicate", "x"], "unrecognized arguments: --frobnicate"),
        (["merge"], "the following arguments are required: SHARD.json"),
    ],
)
def test_a_usage_mistake_exits_2_and_says_why(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert console(argv) == 2
    assert message in capsys.readouterr().err


def test_a_command_s_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert console(["mcp-import", "--help"]) == 0
    assert "--command" in capsys.readouterr().out


def test_the_console_script_loads_neither_pytest_nor_the_plugin() -> None:
    script = (
        "import sys\n"
        "import pytest_skill_lens.cli\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest', 'pluggy')\n"
        "       or m.startswith('pytest_skill_lens.plugin')]\n"
        "print(sorted(bad))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
