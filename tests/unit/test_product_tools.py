"""run/products/bridge.py: names mapped back, tables refused, runs settled by the log."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pytest_skill_lens.run.products import bridge
from pytest_skill_lens.run.products.bridge import (
    BridgeSetupError,
    check_tools,
    settle,
    start_with_tools,
    tools_problem,
)
from pytest_skill_lens.run.products.claude_code import PRESET
from pytest_skill_lens.run.products.claude_code import PRESET as CLAUDE_CODE
from pytest_skill_lens.run.products.process import run_dir
from pytest_skill_lens.run.products.runner import ProductRunner
from pytest_skill_lens.run.products.table import BY_NAME
from pytest_skill_lens.run.products.trace import declared_names
from pytest_skill_lens.run.result import Hook, RunResult, ToolCall
from pytest_skill_lens.run.tools.bridge_calls import BridgeCall, BridgeLog
from pytest_skill_lens.run.tools.bridge_form import BridgeForm
from pytest_skill_lens.settings import ProductTable, Settings
from pytest_skill_lens.suite.model import EvalCase, ToolSpec
from pytest_skill_lens.suite.skill import load_skill

TOOLS = [ToolSpec(name="lookup", returns="found")]
COPILOT = BY_NAME["copilot"]
CLI = BY_NAME["cli"]


def _form(name: str) -> BridgeForm:
    form = BY_NAME[name].bridge
    assert form is not None
    return form


def log(**fields: object) -> BridgeLog:
    values: dict[str, object] = {
        "started": True,
        "listed": True,
        "calls": (),
        "refused": 0,
        "damaged": 0,
        "truncated": False,
    }
    return BridgeLog(**{**values, **fields})  # type: ignore[arg-type]


def clean_run() -> RunResult:
    return RunResult(
        output="Found it.",
        tool_calls=[ToolCall("lookup", {"id": "A"})],
        input_tokens=100,
        output_tokens=5,
        cost_usd=0.01,
        model="claude-x",
        hooks=[Hook("Stop", "Stop", "success")],
        skill_loaded=True,
    )


# -- names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("product", "spelled"),
    [("claude-code", "mcp__skill-lens__lookup"), ("copilot", "skill-lens-lookup")],
)
def test_each_products_spelling_maps_back_to_the_declared_name(product: str, spelled: str) -> None:
    mapped = declared_names(_form(product).prefix, ["lookup", "poll"])
    assert mapped[spelled] == "lookup"
    assert sorted(mapped.values()) == ["lookup", "poll"]


@pytest.mark.parametrize(
    "other",
    [
        "mcp__skill-lens__Lookup",  # letter case
        "mcp__skill_lens__lookup",  # punctuation
        "mcp__other__lookup",  # another server's tool
        "skill-lens-lookup",  # Copilot's spelling under Claude Code
        "lookup",  # the bare name is the product's own tool, if it has one
        "Bash",
    ],
)
def test_any_other_spelling_is_not_mapped(other: str) -> None:
    assert other not in declared_names(_form("claude-code").prefix, ["lookup"])


def test_claude_code_gets_the_mcp_schemas_in_its_tool_list() -> None:
    assert _form("claude-code").env == {"ENABLE_TOOL_SEARCH": "false"}


# -- what the table allows ----------------------------------------------------------------


def test_the_preset_itself_takes_the_bridge_and_claude_codes_tools_flag_is_not_refused() -> None:
    assert tools_problem(PRESET, ProductTable()) is None
    assert tools_problem(PRESET, ProductTable(args=["--tools", ""])) is None
    command = ["/opt/bin/claude", "-p", "{prompt}"]
    assert tools_problem(PRESET, ProductTable(command=command)) is None


def test_a_wrapper_command_cannot_take_the_bridge() -> None:
    problem = tools_problem(PRESET, ProductTable(command=["wrap", "{prompt}"]))
    assert problem is not None
    assert "command starts 'wrap', not 'claude'" in problem[0]


@pytest.mark.parametrize(
    "table",
    [
        ProductTable(args=["--available-tools=bash"]),
        ProductTable(args=["--available-tools", "bash"]),
        ProductTable(command=["copilot", "-p", "{prompt}", "--available-tools=x"]),
    ],
)
def test_copilots_tool_allowlist_would_hide_the_bridge_and_is_refused(table: ProductTable) -> None:
    problem = tools_problem(COPILOT, table)
    assert problem is not None and "carries --available-tools" in problem[0]
    assert tools_problem(COPILOT, ProductTable(args=["--available-toolsx"])) is None


def test_a_product_with_no_known_mcp_flag_is_refused() -> None:
    problem = tools_problem(CLI, ProductTable())
    assert problem is not None and "no known way to take mock tools" in problem[0]


def test_the_preflight_checks_the_table_before_starting_the_bridge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[int] = []
    monkeypatch.setattr(bridge, "check_bridge", lambda tools: started.append(1))
    settings = Settings(runners={"claude-code": ProductTable(command=["wrap", "{prompt}"])})
    assert check_tools(PRESET, settings, TOOLS) is not None
    assert started == []


def test_the_preflight_names_a_bridge_that_does_not_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bridge, "check_bridge", lambda tools: "exited 1: no pydantic")
    problem = check_tools(PRESET, Settings(), TOOLS)
    assert problem is not None
    assert problem[0] == (
        "the MCP bridge that serves mock tools to claude-code does not start: exited 1: no pydantic"
    )


def test_the_preflight_passes_when_the_real_bridge_starts() -> None:
    assert check_tools(PRESET, Settings(), TOOLS) is None


# -- starting with tools ------------------------------------------------------------------


def test_no_tools_no_bridge(tmp_path: Path) -> None:
    script = tmp_path / "fake"
    script.write_text('#!/bin/sh\necho "$@"\n')
    script.chmod(0o755)
    with run_dir("probe", sandbox=None) as run:
        tooled = start_with_tools(
            PRESET,
            ProductTable(),
            [],
            [str(script), "a"],
            run=run,
            cwd=run.work,
            env={"PATH": "/usr/bin:/bin"},
            timeout=30,
            max_output_bytes=10_000,
        )
    assert tooled.log is None
    assert tooled.ran.finished.stdout.data == b"a\n"


def test_the_config_goes_last_and_the_bridge_dir_sits_in_the_calls_own_directory(
    tmp_path: Path,
) -> None:
    script = tmp_path / "fake"
    # Prints its last argument and its environment's tool-search switch.
    script.write_text('#!/bin/sh\nfor a; do last=$a; done\necho "$last $ENABLE_TOOL_SEARCH"\n')
    script.chmod(0o755)
    with run_dir("probe", sandbox=None) as run:
        tooled = start_with_tools(
            PRESET,
            ProductTable(),
            TOOLS,
            [str(script), "-p", "task", "--table-arg"],
            run=run,
            cwd=run.work,
            env={"PATH": "/usr/bin:/bin"},
            timeout=30,
            max_output_bytes=10_000,
        )
        last, switch = tooled.ran.finished.stdout.data.decode().split()
        config = Path(last.removeprefix("--mcp-config="))
        assert last.startswith("--mcp-config=") and switch == "false"
        assert config.parent.parent == run.root  # outside run.work, the working directory
        assert not config.exists()  # deleted when the call ended
    assert tooled.log == log(started=False, listed=False)  # a fake product never starts it


def test_a_wrapper_reached_with_tools_is_a_setup_error_never_a_run_without_them(
    tmp_path: Path,
) -> None:
    with run_dir("probe", sandbox=None) as run, pytest.raises(BridgeSetupError, match="wrapper"):
        start_with_tools(
            PRESET,
            ProductTable(command=["wrap", "{prompt}"]),
            TOOLS,
            ["wrap", "task"],
            run=run,
            cwd=run.work,
            env={},
            timeout=30,
            max_output_bytes=10_000,
        )


def test_the_runner_reports_a_setup_error_as_an_errored_run(tmp_path: Path) -> None:
    skill_md = tmp_path / "greet" / "SKILL.md"
    skill_md.parent.mkdir()
    skill_md.write_text("---\nname: greet\ndescription: d\n---\nBody\n")
    table = ProductTable(command=[str(tmp_path / "wrap"), "{prompt}"])
    runner = ProductRunner(CLAUDE_CODE, Settings(runners={"claude-code": table}), sandbox=None)
    case = EvalCase(name="c", task="t", tools=TOOLS)
    result = runner.run(load_skill(skill_md), case, None)
    assert result.error is not None
    assert result.error.startswith("claude-code could not be given the mock tools: ")
    assert (result.cost_note, result.usage_note) == (None, None)  # nothing started


# -- settling a run by its bridge log -----------------------------------------------------


def test_a_run_without_tools_or_with_its_tools_listed_is_unchanged() -> None:
    assert settle(PRESET, clean_run(), None) == clean_run()
    called = (BridgeCall("lookup", {"id": "A"}, "found", None),)
    assert settle(PRESET, clean_run(), log(calls=called)) == clean_run()


@pytest.mark.parametrize(
    ("started", "says"),
    [
        (False, "claude-code finished without ever starting the MCP bridge"),
        (True, "claude-code started the MCP bridge but never asked it for its tools"),
    ],
)
def test_a_clean_run_that_never_listed_the_tools_is_errored_keeping_its_spend(
    started: bool, says: str
) -> None:
    result = settle(PRESET, clean_run(), log(started=started, listed=False))
    assert result.error is not None and result.error.startswith(says)
    assert "never offered to the model" in result.error
    assert (result.output, result.tool_calls, result.skill_loaded) == ("", [], None)
    assert (result.input_tokens, result.cost_usd, result.model) == (100, 0.01, "claude-x")
    assert result.hooks == clean_run().hooks  # the trace reached its end


def test_the_traces_own_error_comes_first() -> None:
    errored = RunResult(error="claude-code timed out after 5 s", cost_note="spend unknown")
    result = settle(PRESET, errored, log(started=False, listed=False))
    assert result.error == "claude-code timed out after 5 s"


def test_a_damaged_log_is_a_note_and_named_in_the_error_it_may_explain() -> None:
    result = settle(PRESET, clean_run(), log(damaged=2, truncated=True, refused=1))
    assert result.error is None
    assert result.stop_note == (
        "the MCP bridge's calls log holds 2 damaged line(s), more than the harness reads "
        "(the rest was not read), 1 message(s) over the bridge's size cap, dropped unread"
    )
    noted = dataclasses.replace(clean_run(), stop_note="the skill never loaded")
    both = settle(PRESET, noted, log(damaged=1))
    assert (
        both.stop_note
        == "the skill never loaded; the MCP bridge's calls log holds 1 damaged line(s)"
    )
    unlisted = settle(PRESET, clean_run(), log(listed=False, damaged=1))
    assert (
        unlisted.error is not None
        and "(the MCP bridge's calls log holds 1 damaged" in unlisted.error
    )
