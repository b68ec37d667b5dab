"""``pytest-skill-lens mcp-import``, used as an author would: a captured listing (a file or
stdin) or a live stdio server becomes a tool library, which a suite then imports and runs.

The live servers are a tiny script written here; each run leaves no process behind.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from peak_memory import run_console
from runs import LensRun
from skillfactory import make_skill, write_file

from proc_watch import alive_with
from pytest_skill_lens.cli import console

SCRIPT = Path(sys.executable).parent / "pytest-skill-lens"
PR_SCHEMA = {
    "type": "object",
    "properties": {"owner": {"type": "string"}, "pull_number": {"type": "integer"}},
    "required": ["owner", "pull_number"],
    "additionalProperties": False,
}
LISTING = {
    "jsonrpc": "2.0",
    "id": 2,
    "result": {
        "tools": [
            {
                "name": "get-pull-request",
                "description": "Get a pull request",
                "inputSchema": PR_SCHEMA,
            },
            {"name": "list_orders", "inputSchema": {"type": "object"}},
        ]
    },
}

# A stdio MCP server, told how to behave by its first argument. It writes its pid to the
# file named by the second, so a test can see it is gone.
SERVER = textwrap.dedent(
    """\
    import json, os, subprocess, sys, time

    mode, pid_file = sys.argv[1], sys.argv[2]
    with open(pid_file, "a") as f:
        f.write(f"{os.getpid()}\\n")
    PAGES = {
        None: ([{"name": "alpha", "inputSchema": {"type": "object"}}], "c2"),
        "c2": ([{"name": "beta", "description": "B", "inputSchema": {"type": "object"}}], "c3"),
        "c3": ([{"name": "gamma", "inputSchema": {"type": "object", "properties": {}}}], None),
    }

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    if mode == "exit":
        sys.stderr.write("cannot find my config\\n")
        sys.exit(3)
    if mode == "banner":
        print("Server starting on stdio...", flush=True)
    if mode == "grandchild":
        subprocess.Popen(["sh", "-c", "sleep 1000; :", "mcp-import-grandchild"])
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # notifications/initialized
        method = message.get("method")
        if method is None:
            continue  # the client's answer to our ping
        if mode in ("hang", "grandchild"):
            continue
        if method not in ("initialize", "tools/list"):  # server/discover: a legacy server's
            send({"jsonrpc": "2.0", "id": message["id"],  # answer, so the SDK falls back
                  "error": {"code": -32601, "message": "Method not found"}})
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}}, "serverInfo": {"name": "tiny", "version": "1"}}})
            continue
        if mode == "error":
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32603, "message": "database down"}})
            continue
        if mode == "loop":
            send({"jsonrpc": "2.0", "id": message["id"],
                  "result": {"tools": [], "nextCursor": "again"}})
            continue
        # paged: a log notification and a ping of our own come first; the page waits
        # for the client's answer to the ping, so a client that ignores it times out.
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": "hi"}})
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
        answer = json.loads(sys.stdin.readline())
        assert answer == {"jsonrpc": "2.0", "id": "srv-1", "result": {}}, answer
        tools, cursor = PAGES[message.get("params", {}).get("cursor")]
        result = {"tools": tools, **({"nextCursor": cursor} if cursor else {})}
        send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    """
)

lens = LensRun()  # the skills under skills/, in process


@pytest.fixture
def server(tmp_path: Path) -> tuple[Path, Path]:
    script = write_file(tmp_path / "tiny_server.py", SERVER)
    return script, tmp_path / "pids.txt"


def _import(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = console(["mcp-import", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _gone(pid_file: Path) -> None:
    pids = [int(line) for line in pid_file.read_text().split()]
    assert pids
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "zombie"


def test_the_console_script_reads_a_file_and_stdin(tmp_path: Path) -> None:
    listing = write_file(tmp_path / "tools.json", json.dumps(LISTING))
    from_file = subprocess.run(
        [str(SCRIPT), "mcp-import", str(listing)], capture_output=True, timeout=120, check=False
    )
    from_stdin = subprocess.run(
        [str(SCRIPT), "mcp-import", "-", "--tool", "list_orders"],
        input=json.dumps(LISTING["result"]).encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert (from_file.returncode, from_file.stderr) == (0, b"")
    text = from_file.stdout.decode("utf-8")
    assert "  - name: get-pull-request\n    description: Get a pull request\n" in text
    assert "        pull_number:\n          type: integer\n" in text
    assert (from_stdin.returncode, from_stdin.stderr) == (0, b"")
    assert "get-pull-request" not in from_stdin.stdout.decode("utf-8")
    assert (
        "  - name: list_orders\n    description: TODO(skill-lens)\n" in from_stdin.stdout.decode()
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_stdin_is_read_only_up_to_the_listing_cap() -> None:
    # Read whole before the size was checked, an endless pipe held memory until it ran out
    # (here: a 1 GiB address space, which ends that in a second or two instead of never).
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    with open("/dev/zero", "rb") as endless:
        done = subprocess.run(
            [str(SCRIPT), "mcp-import", "-"],
            stdin=endless,
            capture_output=True,
            timeout=120,
            check=False,
            preexec_fn=limited,
        )

    assert (done.returncode, done.stdout) == (2, b"")
    assert "stdin is larger than 16,777,216 bytes" in done.stderr.decode()


def test_a_listing_error_is_on_stderr_with_nothing_on_stdout(tmp_path: Path) -> None:
    listing = write_file(tmp_path / "page.json", json.dumps({"tools": [], "nextCursor": "p2"}))
    done = subprocess.run(
        [str(SCRIPT), "mcp-import", str(listing)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        f"pytest-skill-lens mcp-import: {listing} is one page of a longer listing (it has a "
        "nextCursor): tools on the other pages would be missing",
        "  fix: ask the live server with --command, which follows every page, or put every "
        "page's tools into one listing",
    ]


def test_a_live_server_is_asked_page_by_page_then_killed(server: tuple[Path, Path]) -> None:
    script, pids = server
    done = subprocess.run(
        [
            str(SCRIPT),
            "mcp-import",
            "--tool",
            "gamma",
            "--tool",
            "alpha",
            "--command",
            sys.executable,
            str(script),
            "paged",
            str(pids),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "# A tool library from the MCP tools/list listing of the server '" in done.stdout
    names = [line for line in done.stdout.splitlines() if line.startswith("  - name: ")]
    assert names == ["  - name: alpha", "  - name: gamma"]  # listing order, across pages
    _gone(pids)


@pytest.mark.parametrize(
    ("mode", "extra", "message", "fix"),
    [
        (
            "hang",
            ["--timeout", "0.5"],
            "the server did not answer the MCP handshake within 0.5 s",
            "raise --timeout",
        ),
        ("error", [], 'the server refused tools/list: "database down"', "documentation"),
        (
            "loop",
            [],
            'gives the cursor "again" again: its pages never end',
            "fix the server's paging",
        ),
        (
            "exit",
            [],
            "the server exited with status 3 before it listed its tools (its stderr ends: "
            "'cannot find my config')",
            "run the command by hand",
        ),
        ("banner", [], "the server wrote a line that is not JSON-RPC", "its logs belong on stderr"),
    ],
)
def test_a_live_server_that_misbehaves_is_refused_and_killed(
    server: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    mode: str,
    extra: list[str],
    message: str,
    fix: str,
) -> None:
    script, pids = server
    code, out, err = _import(
        capsys, *extra, "--command", sys.executable, str(script), mode, str(pids)
    )
    assert (code, out) == (2, "")
    first, second = err.splitlines()
    assert first.startswith("pytest-skill-lens mcp-import: ") and message in first
    assert second.startswith("  fix: ") and fix in second
    _gone(pids)


def test_the_servers_whole_process_group_is_killed(
    server: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    script, pids = server
    code, _, err = _import(
        capsys, "--timeout", "1", "--command", sys.executable, str(script), "grandchild", str(pids)
    )
    assert code == 2 and "did not answer the MCP handshake" in err
    assert alive_with("mcp-import-grandchild") == []
    _gone(pids)


def test_a_program_that_does_not_exist_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _import(capsys, "--command", "no-such-mcp-server-here", "--flag")
    assert code == 2
    assert "cannot start 'no-such-mcp-server-here': No such file or directory" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give one source: a listing file (or -), --url or --command"),
        (
            ["x.json", "--command", "server"],
            "give one source: a listing file (or -), --url or --command",
        ),
        (["-", "--timeout", "0"], "--timeout must be a number above 0"),
        (["-", "--timeout", "nan"], "--timeout must be a number above 0"),
        (["missing.json"], "cannot read missing.json: No such file or directory"),
    ],
)
def test_usage_mistakes_exit_2(
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _import(capsys, *args)
    assert (code, out) == (2, "")
    assert message in err


def test_the_library_round_trips_into_a_suite_that_runs(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = write_file(pytester.path / "tools.json", json.dumps(LISTING))
    code, library, _ = _import(capsys, str(listing))
    assert code == 0
    target = write_file(pytester.path / "shared-tools" / "server.yaml", library)
    directory = make_skill(
        pytester.path / "skills",
        "reviewer",
        textwrap.dedent(
            """\
            tool_libraries: [../../../shared-tools/server.yaml]
            cases:
              - name: reads the pull request
                task: Review pull request 7
                tools:
                  - ref: get-pull-request
                    returns: '{"number": 7}'
                trajectory:
                  called: [get-pull-request]
            """
        ),
    )
    refused = lens(pytester, "--collect-only")
    assert refused.ret == 2  # the library's own placeholders: descriptions and returns
    assert "still holds the placeholder TODO(skill-lens)" in refused.stdout.str()
    assert "server.yaml" in refused.stdout.str()

    filled = library.replace("description: TODO(skill-lens)", "description: List orders")
    filled = filled.replace("returns: TODO(skill-lens)", "returns: '{}'")
    target.write_text(filled, encoding="utf-8")
    ran = lens(pytester)
    ran.assert_outcomes(failed=1)  # fake calls no tool: called: is not met, and says so
    assert "called:get-pull-request" in ran.stdout.str()
    assert directory.is_dir()


# A stdio server whose listing never ends (issue 29 item 10): every page holds PER tools
# and names a fresh cursor, so only the listing's bounds can stop the client.
ENDLESS = textwrap.dedent(
    """\
    import json, os, sys

    mode, pid_file = sys.argv[1], sys.argv[2]
    with open(pid_file, "a") as f:
        f.write(f"{os.getpid()}\\n")
    PER = {"wide": 60000, "long": 1, "pick": 3}.get(mode, 1)

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    page = 0
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if "id" not in message or method is None:
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}}, "serverInfo": {"name": "endless", "version": "1"}}})
            continue
        if method != "tools/list":
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32601, "message": "Method not found"}})
            continue
        page += 1
        if mode == "flood":  # one line that never ends
            sys.stdout.write('{"jsonrpc": "2.0", "id": %d, "result": {"tools": ["' % message["id"])
            while True:
                sys.stdout.write("x" * 65536)
        tools = [{"name": f"p{page}_{i}", "inputSchema": {"type": "object"}} for i in range(PER)]
        if mode == "pick" and page == 2:
            tools.append({"name": "wanted", "description": "W", "inputSchema": {"type": "object"}})
        send({"jsonrpc": "2.0", "id": message["id"],
              "result": {"tools": tools, "nextCursor": f"c{page + 1}"}})
    """
)


def _run_measured(tmp_path: Path, *args: str) -> tuple[int, str, str, float, int]:
    """The console script run to its end: exit code, stdout, stderr, seconds, and its own
    peak resident memory in MiB (peak_memory.py says why not wait4's)."""
    run = run_console(tmp_path, "mcp-import", *args)
    return run.code, run.out, run.err, run.seconds, run.peak_mib


@pytest.mark.slow  # seconds each: a server building 60,000 tools, or 1,000 pages
@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (
            "wide",
            "the server's listing passed 10,000 tools on tools/list page 1 (60,000 tools read, "
            "later pages unread): the listing was cut there, and nothing was written",
        ),
        (
            "long",
            "the server's listing runs past 1,000 pages (1,000 tools read): the listing was "
            "cut there, and nothing was written",
        ),
        (
            "flood",
            "the server sent more than 16,777,216 bytes (the cap, as for a listing file) by "
            "tools/list page 1, after 0 tools: the listing was cut there, and nothing was written",
        ),
    ],
)
def test_an_endless_listing_is_cut_quickly_in_bounded_memory(
    tmp_path: Path, mode: str, message: str
) -> None:
    script = write_file(tmp_path / "endless.py", ENDLESS)
    pids = tmp_path / "pids.txt"
    code, out, err, elapsed, peak_mib = _run_measured(
        tmp_path, "--timeout", "40", "--command", sys.executable, str(script), mode, str(pids)
    )
    assert (code, out) == (2, "")
    first, second = err.splitlines()
    assert first == f"pytest-skill-lens mcp-import: {message}"
    assert second.startswith("  fix: ")
    assert elapsed < 25  # the cap stopped it, not the 40 s deadline
    assert peak_mib < 600  # today's client held GBs: every page of every tool
    _gone(pids)


def test_with_tool_the_paging_stops_once_every_named_tool_is_found(tmp_path: Path) -> None:
    script = write_file(tmp_path / "endless.py", ENDLESS)
    pids = tmp_path / "pids.txt"
    code, out, err, _, _ = _run_measured(
        tmp_path, "--tool", "wanted", "--command", sys.executable, str(script), "pick", str(pids)
    )
    assert (code, err) == (0, "")
    names = [line for line in out.splitlines() if line.startswith("  - name: ")]
    assert names == ["  - name: wanted"]
    _gone(pids)
