"""``pytest-skill-lens mcp-import --url``, used as an author would (issue 30 item 8): a
remote MCP server, over streamable HTTP or the older SSE, becomes a tool library that a
suite then imports and runs; headers come from named environment variables only.

The servers are the MCP SDK's own (``MCPServer``) served by uvicorn on 127.0.0.1 in a
subprocess, behind a small ASGI wrapper that records each request's ``Authorization``
header and answers 401 without the expected one. A hostile server is a plain socket.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from peak_memory import run_console
from runs import LensRun
from skillfactory import make_skill, write_file

from pytest_skill_lens.cli import console

pytestmark = pytest.mark.slow  # a uvicorn server in a subprocess per test

SCRIPT = Path(sys.executable).parent / "pytest-skill-lens"
SECRET = "Bearer s3cret-token-value"

SERVER = textwrap.dedent(
    """\
    import json, socket, sys
    from pathlib import Path

    import uvicorn
    from mcp.server.mcpserver import MCPServer

    transport, port_file, seen_file, token = sys.argv[1:5]
    server = MCPServer("remote-tiny", version="1.2")

    @server.tool(name="get-pull-request", description="Get a pull request")
    def get_pull_request(owner: str, pull_number: int) -> str:
        return "{}"

    @server.tool(description="List orders")
    def list_orders() -> str:
        return "[]"

    app = server.streamable_http_app() if transport == "http" else server.sse_app()

    async def recording(scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode(): v.decode() for k, v in scope["headers"]}
            with open(seen_file, "a") as f:
                f.write(json.dumps([scope["method"], headers.get("authorization")]) + "\\n")
            if token and headers.get("authorization") != token:
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain")]})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await app(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    Path(port_file).write_text(str(sock.getsockname()[1]))
    uvicorn.Server(uvicorn.Config(recording, log_level="warning")).run(sockets=[sock])
    """
)


class Remote:
    def __init__(self, base: str, seen: Path) -> None:
        self.base = base
        self.seen = seen

    def url(self, transport: str) -> str:
        return f"{self.base}/mcp" if transport == "http" else f"{self.base}/sse"

    def authorizations(self) -> list[str | None]:
        if not self.seen.exists():
            return []
        return [json.loads(line)[1] for line in self.seen.read_text().splitlines()]


def _start(tmp_path: Path, transport: str, token: str) -> Iterator[Remote]:
    script = write_file(tmp_path / "remote_server.py", SERVER)
    port_file, seen = tmp_path / "port.txt", tmp_path / "seen.jsonl"
    process = subprocess.Popen(
        [sys.executable, str(script), transport, str(port_file), str(seen), token],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text()):
            assert process.poll() is None, "the test server died"
            assert time.monotonic() < deadline, "the test server never started"
            time.sleep(0.05)
        port = int(port_file.read_text())
        while True:  # listening once uvicorn has started, which follows the bind
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the test server never listened"
                time.sleep(0.05)
        yield Remote(f"http://127.0.0.1:{port}", seen)
    finally:
        process.kill()
        process.wait()


@pytest.fixture(params=["http", "sse"])
def remote(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Remote, str]]:
    for server in _start(tmp_path, request.param, SECRET):
        yield server, request.param


@pytest.fixture
def open_remote(tmp_path: Path) -> Iterator[Remote]:
    yield from _start(tmp_path, "http", "")


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), "mcp-import", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_a_remote_server_becomes_a_library_a_suite_runs(
    remote: tuple[Remote, str], pytester: pytest.Pytester
) -> None:
    server, transport = remote
    done = _run(
        "--url",
        server.url(transport),
        "--transport",
        transport,
        "--header-env",
        "Authorization=MCP_TEST_AUTH",
        env={"MCP_TEST_AUTH": SECRET},
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert f"listing of the server at {server.url(transport)}" in done.stdout
    names = [line for line in done.stdout.splitlines() if line.startswith("  - name: ")]
    assert names == ["  - name: get-pull-request", "  - name: list_orders"]
    assert "        pull_number:\n          title: Pull Number\n          type: integer\n" in (
        done.stdout
    )  # the server's inputSchema, verbatim
    # The header reached the server on every request, from the environment only.
    seen = server.authorizations()
    assert seen and set(seen) == {SECRET}
    assert SECRET not in done.stdout

    library = done.stdout.replace("returns: TODO(skill-lens)", "returns: '{}'")
    write_file(pytester.path / "shared-tools" / "remote.yaml", library)
    make_skill(
        pytester.path / "skills",
        "reviewer",
        textwrap.dedent(
            """\
            tool_libraries: [../../../shared-tools/remote.yaml]
            cases:
              - name: reads the pull request
                task: Review pull request 7
                tools:
                  - ref: get-pull-request
                trajectory:
                  called: [get-pull-request]
            """
        ),
    )
    ran = LensRun()(pytester)
    ran.assert_outcomes(failed=1)  # fake calls no tool: called: is not met, and says so
    assert "called:get-pull-request" in ran.stdout.str()


def test_a_wrong_token_is_the_servers_401_and_never_printed(
    remote: tuple[Remote, str],
) -> None:
    server, transport = remote
    done = _run(
        "--url",
        server.url(transport),
        "--transport",
        transport,
        "--header-env",
        "Authorization=MCP_TEST_AUTH",
        env={"MCP_TEST_AUTH": "Bearer wrong-one"},
    )
    assert (done.returncode, done.stdout) == (2, "")
    first, second = done.stderr.splitlines()
    assert "HTTP 401" in first
    assert "--header-env" in second
    assert "wrong-one" not in done.stderr
    assert server.authorizations()[0] == "Bearer wrong-one"


@pytest.mark.parametrize(
    ("args", "env", "message", "hidden"),
    [
        (
            ["--header-env", "Authorization=MCP_NOT_SET_HERE"],
            {},
            "--header-env Authorization=MCP_NOT_SET_HERE: the environment variable "
            "MCP_NOT_SET_HERE is not set",
            None,
        ),
        (
            ["--header-env", "Authorization=MCP_EMPTY"],
            {"MCP_EMPTY": ""},
            "--header-env Authorization=MCP_EMPTY: the environment variable MCP_EMPTY is empty",
            None,
        ),
        (
            ["--header-env", "Authorization=Bearer abc.def-123"],
            {},
            "--header-env Authorization=...: the part after = must name an environment variable",
            "abc.def-123",
        ),
        (
            ["--header-env", "Authorization=ghp_tokenValue123"],
            {},
            "--header-env Authorization=...: the part after = must name an environment variable",
            "ghp_tokenValue123",
        ),
        (
            ["--header-env", "X-Key=MCP_NEWLINE"],
            {"MCP_NEWLINE": "a\r\nInjected: yes"},
            "--header-env X-Key=MCP_NEWLINE: the environment variable MCP_NEWLINE holds a "
            "line break or control character",
            "Injected",
        ),
        (["--header-env", "Bad Name=MCP_X"], {}, "'Bad Name' is not an HTTP header name", None),
        (["--header-env", "Authorization"], {}, "give NAME=ENVVAR", None),
    ],
    ids=["unset", "empty", "literal", "literal-token", "control", "header-name", "no-equals"],
)
def test_a_header_comes_only_from_a_set_environment_variable(
    open_remote: Remote, args: list[str], env: dict[str, str], message: str, hidden: str | None
) -> None:
    done = _run("--url", open_remote.url("http"), *args, env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert message in done.stderr
    assert hidden is None or hidden not in done.stderr
    assert open_remote.authorizations() == []  # refused before anything was sent


def test_credentials_in_the_url_are_refused_unprinted(open_remote: Remote) -> None:
    url = open_remote.url("http").replace("http://", "http://me:hunter2@")
    done = _run("--url", url)
    assert (done.returncode, done.stdout) == (2, "")
    assert "the URL carries credentials" in done.stderr
    assert "hunter2" not in done.stderr
    assert open_remote.authorizations() == []


def test_the_http_transport_against_an_sse_server_hints_at_sse(tmp_path: Path) -> None:
    for server in _start(tmp_path, "sse", ""):
        done = _run("--url", server.url("sse"), "--timeout", "20")
        assert (done.returncode, done.stdout) == (2, "")
        assert "--transport sse" in done.stderr


def test_a_port_nobody_listens_on_is_named(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = _run("--url", f"http://127.0.0.1:{port}/mcp", "--timeout", "10")
    assert (done.returncode, done.stdout) == (2, "")
    assert f"cannot connect to http://127.0.0.1:{port}/mcp" in done.stderr


def _raw_server(answer: Callable[[socket.socket, threading.Event], None]) -> Iterator[str]:
    """A plain socket server on 127.0.0.1 answering every request with ``answer``."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=reply, args=(connection,), daemon=True).start()

    def reply(connection: socket.socket) -> None:
        with connection, contextlib.suppress(OSError):
            connection.recv(65536)
            answer(connection, stop)

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    stop.set()
    listener.close()


def _flood(connection: socket.socket, stop: threading.Event) -> None:
    """An endless JSON body."""
    connection.sendall(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    chunk = b"x" * 65536
    framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    while not stop.is_set():
        connection.sendall(framed)


def _gzipped(connection: socket.socket, stop: threading.Event) -> None:
    """A small compressed body that would inflate to far more."""
    body = gzip.compress(b" " * 10_000_000)
    head = (
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    connection.sendall(head.encode() + body)


@pytest.fixture
def flooding_server() -> Iterator[str]:
    yield from _raw_server(_flood)


@pytest.fixture
def gzip_server() -> Iterator[str]:
    yield from _raw_server(_gzipped)


def test_an_endless_http_answer_is_cut_at_the_byte_cap(
    flooding_server: str, tmp_path: Path
) -> None:
    run = run_console(
        tmp_path, "mcp-import", "--url", flooding_server, "--timeout", "60", stdout=False
    )
    assert run.code == 2
    assert (
        "the server sent more than 16,777,216 bytes (the cap, as for a listing file) during "
        "the MCP handshake" in run.err
    )
    assert run.seconds < 30
    assert run.peak_mib < 400  # uncounted, it held over 1 GiB within 4 s


def test_a_compressed_answer_is_refused_unread(gzip_server: str) -> None:
    done = _run("--url", gzip_server, "--timeout", "30")
    assert (done.returncode, done.stdout) == (2, "")
    assert (
        "the server compressed its answer (gzip) though asked not to: its size could not be "
        "bounded" in done.stderr
    )


def test_without_the_sdk_the_live_sources_name_the_extra(tmp_path: Path) -> None:
    listing = write_file(tmp_path / "tools.json", '{"tools": []}')
    # A fresh process in which the SDK cannot be imported, as after a plain install.
    blocked = "import sys; sys.modules['mcp'] = None; from pytest_skill_lens.cli import console; "
    for args, code in (
        (["--url", "http://127.0.0.1:9/mcp"], 2),
        (["--command", "true"], 2),
        ([str(listing)], 0),  # a captured listing needs no SDK
    ):
        done = subprocess.run(
            [sys.executable, "-c", blocked + f"sys.exit(console({['mcp-import', *args]!r}))"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == code, done.stderr
        if code == 2:
            assert done.stderr.splitlines() == [
                "pytest-skill-lens mcp-import: a live server (--command or --url) needs the MCP "
                "SDK (the Python package mcp), which is not installed",
                '  fix: pip install "pytest-skill-lens[mcp]"',
            ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--transport", "sse", "tools.json"], "--transport and --header-env go with --url"),
        (["--header-env", "A=B", "-"], "--transport and --header-env go with --url"),
        (
            ["--url", "http://127.0.0.1:9/mcp", "tools.json"],
            "give one source: a listing file (or -), --url or --command",
        ),
        (["--url", "ftp://example.test/mcp"], "--url must be an http:// or https:// URL"),
        (["--url", "http:///mcp"], "--url must be an http:// or https:// URL"),
    ],
)
def test_url_usage_mistakes_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code = console(["mcp-import", *args])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert message in err
