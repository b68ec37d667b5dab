"""The real bridge as a product starts it: a subprocess spoken to over pipes, and the harness API.

Each test starts ``python -m pytest_skill_lens.mcp_bridge`` from the MCP config the
harness wrote (its command, args and env, with ``PATH`` the only other variable, as
Copilot starts a local server) in a working directory of its own. The last test has
the real Claude Code and Copilot CLI list and call the bridge's tool against the
scripted model server.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Literal

import pytest
from anthropic_server import AnthropicServer, text, tool_use

from pytest_skill_lens.run.products.table import BY_NAME
from pytest_skill_lens.run.tools.bridge_config import (
    BridgeFiles,
    BridgeSetupError,
    bridge_command,
    bridge_env,
    bridge_for,
    check_bridge,
    prepare_bridge,
    read_calls,
    remove_bridge,
)
from pytest_skill_lens.run.tools.bridge_form import BridgeForm
from pytest_skill_lens.suite.model import ToolSpec

# slow: MCP bridge processes (-m "not slow" skips it)
pytestmark = pytest.mark.slow

WAIT = 30.0  # a guard against a hang, never a measurement

TOOLS = [
    ToolSpec.model_validate(
        {
            "name": "get_work_item",
            "description": "Fetch one work item",
            "parameters": {"id": "string"},
            "returns": [
                {"when": {"id": "A"}, "value": "item A is blocked"},
                {"value": "not found"},
            ],
        }
    ),
    ToolSpec.model_validate({"name": "poll", "returns": ["pending", "done"]}),
]


def _form(name: str) -> BridgeForm:
    form = BY_NAME[name].bridge
    assert form is not None
    return form


class Bridge:
    """One bridge process and the lines it writes, read on a thread so no read can hang."""

    def __init__(self, files: BridgeFiles, cwd: Path, *, pump: bool = True) -> None:
        server = json.loads(files.config.read_text(encoding="utf-8"))["mcpServers"]["skill-lens"]
        env = {"PATH": os.environ.get("PATH", os.defpath), **server["env"]}
        self.process = subprocess.Popen(
            [server["command"], *server["args"]],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        assert self.process.stdout is not None
        if pump:  # off when a test closes stdout itself: a reading thread would hold its lock
            threading.Thread(target=self._pump, args=(self.process.stdout,), daemon=True).start()
        self.next_id = 0

    def _pump(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.lines.put(line)

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def receive(self) -> Any:
        return json.loads(self.lines.get(timeout=WAIT))

    def ask(self, method: str, params: Any = None) -> Any:
        self.next_id += 1
        message: dict[str, Any] = {"method": method, "jsonrpc": "2.0", "id": self.next_id}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode() + b"\n")
        reply = self.receive()
        assert reply["id"] == self.next_id
        return reply

    def notify(self, method: str) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")

    def initialize(self) -> Any:
        reply = self.ask(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test-client", "version": "1"},
            },
        )
        self.notify("notifications/initialized")
        return reply

    def call(self, name: str, arguments: Any) -> Any:
        return self.ask("tools/call", {"name": name, "arguments": arguments})

    def close(self) -> tuple[int, bytes]:
        """Close stdin (EOF) and wait: the exit code and what went to stderr."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=WAIT)
        return code, self.process.stderr.read()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The product's working directory, holding a module that must never be imported."""
    directory = tmp_path / "work"
    directory.mkdir()
    # The bridge runs with -P: a skill shipping pydantic.py cannot replace the real one.
    (directory / "pydantic.py").write_text("raise SystemExit('the cwd was imported')\n")
    return directory


@pytest.fixture
def files(work: Path) -> Iterator[BridgeFiles]:
    with bridge_for(TOOLS, _form("claude-code"), working_directory=work) as made:
        yield made


@pytest.fixture
def bridge(files: BridgeFiles, work: Path) -> Iterator[Bridge]:
    running = Bridge(files, work)
    yield running
    running.kill()


def text_of(reply: Any) -> str:
    [content] = reply["result"]["content"]
    return str(content["text"])


def test_the_bridge_serves_initialize_list_and_call_and_ends_at_eof(
    bridge: Bridge, files: BridgeFiles
) -> None:
    greeting = bridge.initialize()
    assert greeting["result"]["protocolVersion"] == "2025-06-18"
    assert greeting["result"]["serverInfo"]["name"] == "skill-lens"
    listing = bridge.ask("tools/list")["result"]["tools"]
    assert [tool["name"] for tool in listing] == ["get_work_item", "poll"]
    assert listing[0]["inputSchema"]["additionalProperties"] is False
    assert text_of(bridge.call("get_work_item", {"id": "A"})) == "item A is blocked"
    assert text_of(bridge.call("get_work_item", {"id": "Q"})) == "not found"
    assert [text_of(bridge.call("poll", {})) for _ in range(3)] == ["pending", "done", "done"]
    assert bridge.ask("ping")["result"] == {}
    unknown = bridge.ask("prompts/list")
    assert unknown["error"]["code"] == -32601
    assert bridge.close() == (0, b"")
    log = read_calls(files)
    assert (log.started, log.listed, log.complete) == (True, True, True)
    assert [(call.name, call.arguments, call.answer) for call in log.calls] == [
        ("get_work_item", {"id": "A"}, "item A is blocked"),
        ("get_work_item", {"id": "Q"}, "not found"),
        ("poll", {}, "pending"),
        ("poll", {}, "done"),
        ("poll", {}, "done"),
    ]


def test_every_call_is_in_the_calls_file_as_soon_as_it_is_answered(
    bridge: Bridge, files: BridgeFiles
) -> None:
    bridge.initialize()
    assert read_calls(files).listed is False
    bridge.call("get_work_item", {"id": "A"})
    log = read_calls(files)  # the bridge is still running: nothing waits in a buffer
    assert [call.answer for call in log.calls] == ["item A is blocked"]


def test_a_malformed_line_gets_a_parse_error_and_the_bridge_keeps_serving(
    bridge: Bridge, files: BridgeFiles
) -> None:
    bridge.initialize()
    for garbage in (b"{not json\n", b"\xff\xfe garbage\n", b"[" * 200_000 + b"\n"):
        bridge.send(garbage)
        reply = bridge.receive()
        assert (reply["id"], reply["error"]["code"]) == (None, -32700)
    assert text_of(bridge.call("poll", {})) == "pending"
    assert bridge.close() == (0, b"")


def test_a_huge_line_is_refused_by_its_id_and_the_bridge_keeps_serving(
    bridge: Bridge, files: BridgeFiles
) -> None:
    bridge.initialize()
    arguments = {"id": "A" * (5 * 1024 * 1024)}
    request = {"method": "tools/call", "params": {"name": "get_work_item", "arguments": arguments}}
    bridge.send(json.dumps({**request, "jsonrpc": "2.0", "id": 99}).encode() + b"\n")
    refused = bridge.receive()
    assert (refused["id"], refused["error"]["code"]) == (99, -32600)
    assert "over the bridge's limit" in refused["error"]["message"]
    assert text_of(bridge.call("get_work_item", {"id": "A"})) == "item A is blocked"
    assert bridge.close() == (0, b"")
    log = read_calls(files)
    assert (log.refused, len(log.calls)) == (1, 1)


def test_eof_before_anything_ends_the_bridge_cleanly(bridge: Bridge, files: BridgeFiles) -> None:
    assert bridge.close() == (0, b"")
    log = read_calls(files)
    assert (log.started, log.listed, log.calls) == (False, False, ())


def test_a_product_that_stops_reading_ends_the_bridge_quietly(
    files: BridgeFiles, work: Path
) -> None:
    running = Bridge(files, work, pump=False)
    try:
        assert running.process.stdout is not None
        running.process.stdout.close()
        running.send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "ping"}).encode() + b"\n")
        assert running.close() == (0, b"")
    finally:
        running.kill()


def test_each_bridge_process_starts_its_sequences_from_the_top(
    files: BridgeFiles, work: Path
) -> None:
    for _session in range(2):
        running = Bridge(files, work)
        try:
            running.initialize()
            assert text_of(running.call("poll", {})) == "pending"
            assert running.close()[0] == 0
        finally:
            running.kill()
    assert [call.answer for call in read_calls(files).calls] == ["pending", "pending"]


# --- the harness's files ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("product", "flag", "kind"),
    [("claude-code", "--mcp-config=", "stdio"), ("copilot", "--additional-mcp-config=@", "local")],
)
def test_the_config_names_the_bridge_as_the_one_server_outside_the_working_directory(
    work: Path, product: Literal["claude-code", "copilot"], flag: str, kind: str
) -> None:
    made = prepare_bridge(TOOLS, _form(product), working_directory=work)
    try:
        assert not made.directory.is_relative_to(work.resolve())
        assert made.argument == f"{flag}{made.config}"
        config = json.loads(made.config.read_text(encoding="utf-8"))
        [(name, server)] = config["mcpServers"].items()
        assert (name, server["type"]) == ("skill-lens", kind)
        assert [server["command"], *server["args"]] == bridge_command(made.spec, made.calls)
        assert server["env"] == bridge_env()
        if product == "copilot":
            assert server["tools"] == ["*"]
        assert made.calls.read_text(encoding="utf-8") == ""
        assert sorted(path.name for path in made.directory.iterdir()) == [
            "calls.jsonl",
            "mcp.json",
            "spec.json",
        ]
        assert made.directory.stat().st_mode & 0o077 == 0
    finally:
        remove_bridge(made)
    assert not made.directory.exists()


def test_the_directory_is_deleted_when_the_block_ends_however_it_ends(work: Path) -> None:
    with (
        pytest.raises(RuntimeError),
        bridge_for(TOOLS, _form("copilot"), working_directory=work) as made,
    ):
        raise RuntimeError("the product crashed")
    assert not made.directory.exists()


def test_a_bridge_directory_inside_the_working_directory_is_refused(work: Path) -> None:
    with pytest.raises(BridgeSetupError, match="inside the working directory"):
        prepare_bridge(TOOLS, _form("claude-code"), working_directory=work, parent=work)
    assert sorted(path.name for path in work.iterdir()) == ["pydantic.py"]


def test_tools_that_cannot_be_served_are_a_setup_error(work: Path) -> None:
    with pytest.raises(BridgeSetupError, match="declared twice"):
        prepare_bridge([TOOLS[0], TOOLS[0]], _form("claude-code"), working_directory=work)


def test_an_interpreter_path_a_product_would_expand_is_refused(work: Path) -> None:
    with pytest.raises(BridgeSetupError, match="cannot be configured"):
        prepare_bridge(
            TOOLS, _form("copilot"), working_directory=work, python="/opt/${HOME}/python"
        )


def test_a_parent_that_cannot_hold_a_directory_is_a_setup_error(work: Path) -> None:
    with pytest.raises(BridgeSetupError, match="cannot make the bridge directory"):
        prepare_bridge(TOOLS, _form("claude-code"), working_directory=work, parent=work / "missing")


# --- --check ----------------------------------------------------------------------------


def run_bridge(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", os.defpath), **bridge_env()}
    argv = [sys.executable, "-P", "-m", "pytest_skill_lens.mcp_bridge", *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=WAIT)


def test_check_passes_a_good_spec(files: BridgeFiles, work: Path) -> None:
    done = run_bridge("--check", "--spec", str(files.spec), cwd=work)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "skill-lens MCP bridge: ok, 2 tools\n",
        "",
    )
    assert check_bridge(TOOLS) is None
    assert check_bridge([]) is None


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "cannot read the spec"),
        ("{", "is not JSON"),
        ('{"skill_lens_bridge": 1, "tools": [{"name": "a"}]}', "no input_schema"),
        ('{"tools": []}', "not a skill-lens bridge spec"),
    ],
)
def test_check_fails_a_bad_spec_with_one_line(
    tmp_path: Path, content: str | None, says: str
) -> None:
    spec = tmp_path / "spec.json"
    if content is not None:
        spec.write_text(content, encoding="utf-8")
    done = run_bridge("--check", "--spec", str(spec), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    [line] = done.stderr.splitlines()
    assert line.startswith("skill-lens MCP bridge: ") and says in line


def test_check_fails_a_calls_file_that_cannot_be_written(files: BridgeFiles, work: Path) -> None:
    calls = work / "no-such-dir" / "calls.jsonl"
    done = run_bridge("--check", "--spec", str(files.spec), "--calls", str(calls), cwd=work)
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert "cannot open the calls file" in line


def test_serving_without_a_calls_file_is_a_usage_error(files: BridgeFiles, work: Path) -> None:
    done = run_bridge("--spec", str(files.spec), cwd=work)
    assert done.returncode == 2
    assert "--calls is required" in done.stderr


def test_check_bridge_reports_an_interpreter_that_cannot_run_the_bridge(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text(
        "#!/bin/sh\necho 'Traceback ...' >&2\necho 'ImportError: no pydantic' >&2\nexit 3\n"
    )
    fake.chmod(0o755)
    assert check_bridge(TOOLS, python=str(fake)) == (
        "the MCP bridge check exited 3: ImportError: no pydantic"
    )
    assert "did not start" in str(check_bridge(TOOLS, python=str(tmp_path / "missing")))


def test_check_bridge_reports_tools_that_cannot_be_served() -> None:
    assert "declared twice" in str(check_bridge([TOOLS[1], TOOLS[1]]))


# --- the real products --------------------------------------------------------------------

PRODUCT_ENV = {
    "claude-code": {
        "ANTHROPIC_API_KEY": "dummy",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_NON_ESSENTIAL_MODEL_CALLS": "1",
        "IS_SANDBOX": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "ENABLE_TOOL_SEARCH": "false",
    },
    "copilot": {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_TYPE": "anthropic",
        "COPILOT_PROVIDER_API_KEY": "dummy",
        "COPILOT_MODEL": "claude-sonnet-4.5",
    },
}
PRODUCT_ARGV = {
    "claude-code": [
        "claude",
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
        "--setting-sources",
        "project",
        "--strict-mcp-config",
        "--no-session-persistence",
    ],
    "copilot": [
        "copilot",
        "--allow-all-tools",
        "--output-format",
        "json",
        "--no-custom-instructions",
        "--no-auto-update",
    ],
}
TOOL_NAME = {"claude-code": "mcp__skill-lens__get_work_item", "copilot": "skill-lens-get_work_item"}


@pytest.mark.parametrize("product", ["claude-code", "copilot"])
def test_the_real_product_lists_and_calls_the_bridges_tool(
    product: Literal["claude-code", "copilot"], work: Path, tmp_path: Path, products_on_path: Path
) -> None:
    task = "Look up work item A"
    script = {task: [tool_use([(TOOL_NAME[product], {"id": "A"})]), text("A is blocked")]}
    home = tmp_path / "home"
    home.mkdir()
    with (
        AnthropicServer(by_content=script) as server,
        bridge_for(TOOLS, _form(product), working_directory=work) as made,
    ):
        url = {
            "ANTHROPIC_BASE_URL"
            if product == "claude-code"
            else "COPILOT_PROVIDER_BASE_URL": server.url
        }
        env = {"PATH": os.environ["PATH"], "HOME": str(home), **PRODUCT_ENV[product], **url}
        command, *flags = PRODUCT_ARGV[product]
        argv = [str(products_on_path / command), "-p", task, *flags, made.argument]
        done = subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
        log = read_calls(made)
        offered = [
            [tool["name"] for tool in request.body.get("tools", [])] for request in server.requests
        ]
    assert all(TOOL_NAME[product] in names for names in offered)
    assert (log.started, log.listed) == (True, True)
    assert log.calls[0].arguments == {"id": "A"}
    assert [call.answer for call in log.calls] == ["item A is blocked"]
    # The model received the bridge's answer as the tool's result.
    results = [
        block
        for request in server.requests
        for message in request.body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert "item A is blocked" in json.dumps(results)
