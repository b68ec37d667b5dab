"""The product sandbox: the decision, its trust sentences, the bwrap layout, and real starts.

The real starts run a shell under the product's bwrap argv, as root here, doing what a
hostile product would (write outside its working directory, read another skill-lens
directory, drop privileges it does not have) and what a product needs (write its
working directory and home, reach 127.0.0.1). The sentences are pinned word for word:
they are what every report prints.
"""

from __future__ import annotations

import http.server
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.report.json_report import report_dict
from pytest_skill_lens.report.junit_properties import add_suite_properties
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.product_lines import (
    PRODUCTS_PROPERTY,
    SCRIPTS_REACHABLE,
    product_line,
    product_properties,
)
from pytest_skill_lens.report.terminal import summary_lines
from pytest_skill_lens.run.process.temp_parent import make_dir, parent_of
from pytest_skill_lens.run.products import preflight
from pytest_skill_lens.run.products.entries import product_entries, product_names
from pytest_skill_lens.run.products.process import (
    RunDir,
    StartFailed,
    run_dir,
    start,
    wrap_argv,
    wraps,
)
from pytest_skill_lens.run.sandbox import product_sandbox
from pytest_skill_lens.run.sandbox.product_sandbox import (
    OFF_TRUST,
    PRODUCT_ISOLATION,
    ProductEntry,
    ProductSandbox,
    bwrap_argv,
    decide,
    wrap,
)
from pytest_skill_lens.run.sandbox.script_sandbox import system_temp_dir
from pytest_skill_lens.settings import Settings

# slow: real starts under the product's bwrap (-m "not slow" skips it)
pytestmark = pytest.mark.slow

TEMP = system_temp_dir()
LINUX = sys.platform.startswith("linux")
BWRAP = decide("auto")
needs_bwrap = pytest.mark.skipif(
    BWRAP.backend != "bwrap",
    reason=f"no working bwrap on this machine ({BWRAP.detail}); .ci/run installs bubblewrap",
)

HOME_ONLY = (
    "runs with permission prompts disabled, a temporary home directory and only an "
    "allowlisted environment; that is not a sandbox: no skill-lens sandbox applies "
    "(bwrap not found on PATH), and the product can read and write anything you can; "
    "bundled scripts are reachable through the product's own tools"
)
UNDER_BWRAP = (
    "runs with permission prompts disabled, a temporary home directory and only an "
    "allowlisted environment, under bwrap: it cannot itself change files outside its "
    "working directory and its own temporary directories, or read other skill-lens "
    "temporary directories; it can read anything else you can, reach the network, and ask "
    "system services to act for it; bundled scripts are reachable through the product's "
    "own tools"
)


# -- the decision and its sentences ---------------------------------------------------------


def test_off_never_probes_and_says_the_full_environment() -> None:
    off = decide("off")
    assert off == ProductSandbox(
        "off", "none", home_isolated=False, detail='product_sandbox = "off"'
    )
    assert (
        off.trust
        == OFF_TRUST
        == (
            "runs with permission prompts disabled and the full environment; no skill-lens "
            "sandbox applies; bundled scripts are reachable through the product's own tools"
        )
    )
    assert off.data() == {
        "mode": "off",
        "backend": "none",
        "home_isolated": False,
        "detail": 'product_sandbox = "off"',
    }


@pytest.mark.skipif(not LINUX, reason="the bwrap probe is Linux's")
@pytest.mark.parametrize("mode", ["auto", "required"])
def test_no_bwrap_on_path_is_home_isolation_that_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    decision = decide(mode)  # type: ignore[arg-type]
    assert (decision.mode, decision.backend, decision.home_isolated) == (mode, "none", True)
    assert decision.detail == "bwrap not found on PATH"
    assert decision.trust == HOME_ONLY
    assert decision.data()["backend"] == "none"


@needs_bwrap
def test_a_working_bwrap_is_the_backend_with_its_sentence() -> None:
    decision = decide("required")
    assert (decision.mode, decision.backend, decision.home_isolated) == ("required", "bwrap", True)
    assert decision.trust == UNDER_BWRAP
    assert decision.data() == {
        "mode": "required",
        "backend": "bwrap",
        "home_isolated": True,
        "detail": decision.detail,  # None, or what an older bwrap could not forbid
    }


@pytest.mark.skipif(not LINUX, reason="the bwrap probe is Linux's")
def test_the_probe_reports_a_failing_bwraps_first_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin:/bin")
    decision = decide("auto")
    assert decision.backend == "none"
    assert decision.detail == "bwrap: No permissions to creating new namespace"
    assert "(bwrap: No permissions to creating new namespace)" in decision.trust


@pytest.mark.parametrize(
    ("platform", "why"),
    [
        ("darwin", product_sandbox.MACOS_DETAIL),
        ("win32", "no sandbox backend on Windows"),
        ("freebsd14", "no sandbox backend on freebsd14"),
    ],
)
def test_other_platforms_get_home_isolation_with_the_reason(platform: str, why: str) -> None:
    found = product_sandbox._probe(platform, "/usr/bin", str(TEMP))
    assert (found.backend, found.home_isolated, found.detail) == ("none", True, why)


# -- the argv --------------------------------------------------------------------------------


def test_the_bwrap_argv_keeps_the_network_and_binds_only_the_products_areas() -> None:
    run = parent_of(TEMP) / "skill-lens-x"
    work = run / "work"
    argv = bwrap_argv(
        "/usr/bin/bwrap", ["claude", "-p", "hi"], cwd=work, writable=[work, run], temp=TEMP
    )
    parent = str(parent_of(TEMP))
    assert argv == [
        "/usr/bin/bwrap",
        *("--ro-bind", "/", "/"),  # the temp directory in it, as it is
        *("--dev", "/dev"),
        *("--proc", "/proc"),
        *("--tmpfs", parent),  # every skill-lens directory of the user, of every session
        *("--bind", str(run), str(run)),  # work is inside it: bound once
        *("--remount-ro", parent),
        *("--remount-ro", "/proc"),
        *PRODUCT_ISOLATION,
        *("--chdir", str(work)),
        "--",
        *("claude", "-p", "hi"),
    ]
    # A script's confinement, less the network namespace: the product must reach its provider.
    assert "--unshare-net" not in PRODUCT_ISOLATION
    for flag in ("--unshare-user", "--disable-userns", "--cap-drop", "--unshare-pid"):
        assert flag in PRODUCT_ISOLATION


def test_nothing_is_wrapped_without_a_backend() -> None:
    argv = ["claude", "-p", "hi"]
    cwd = TEMP
    assert wrap(None, argv, cwd=cwd, writable=[]) == argv
    assert wrap(decide("off"), argv, cwd=cwd, writable=[]) == argv
    home_only = ProductSandbox("auto", "none", True, detail="bwrap not found on PATH")
    assert wrap(home_only, argv, cwd=cwd, writable=[]) == argv


def test_a_start_that_keeps_the_real_home_is_never_wrapped(tmp_path: Path) -> None:
    decision = ProductSandbox("auto", "bwrap", True, executable="/usr/bin/bwrap")
    run = RunDir(tmp_path, tmp_path / "home", tmp_path / "work", decision)
    real_home = {"HOME": "/root", "PATH": os.environ.get("PATH", "")}
    assert wrap_argv(["sh", "-c", "true"], run, run.work, real_home) == ["sh", "-c", "true"]
    isolated = {"HOME": str(run.home), "PATH": "/usr/bin:/bin"}
    wrapped = wrap_argv(["sh", "-c", "true"], run, run.work, isolated)
    assert wrapped[0] == "/usr/bin/bwrap"
    assert wrapped[-3:] in (["/usr/bin/sh", "-c", "true"], ["/bin/sh", "-c", "true"])
    with pytest.raises(StartFailed, match="not found on PATH"):
        wrap_argv(["no-such-product-here"], run, run.work, isolated)


def test_each_call_is_wrapped_by_the_decision_it_was_handed_not_by_the_process(
    tmp_path: Path,
) -> None:
    # Two calls of one process, under different decisions (a plugin's runner beside ours,
    # a test): each start follows its own RunDir's, whatever the other was handed.
    bwrap = ProductSandbox("auto", "bwrap", True, executable="/usr/bin/bwrap")
    home_only = ProductSandbox("auto", "none", True, detail="bwrap not found on PATH")
    runs = [
        RunDir(tmp_path, tmp_path / "home", tmp_path / "work", d) for d in (bwrap, home_only, None)
    ]
    isolated = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    assert [wraps(run, isolated) for run in runs] == [True, False, False]
    argvs = [wrap_argv(["sh", "-c", "true"], run, run.work, isolated) for run in runs]
    assert argvs[0][0] == "/usr/bin/bwrap"
    assert argvs[1:] == [["sh", "-c", "true"], ["sh", "-c", "true"]]


# -- real starts under bwrap, as a product would be started ---------------------------------


@pytest.fixture
def bwrap() -> ProductSandbox:
    return decide("auto")


@pytest.fixture
def loopback() -> Iterator[str]:
    """A server on 127.0.0.1 standing in for the product's provider."""
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def shell(run: RunDir, command: str, cwd: Path | None = None) -> tuple[int | None, str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(run.home)}
    ran = start(
        ["sh", "-c", command],
        run=run,
        cwd=cwd or run.work,
        env=env,
        timeout=60,
        max_output_bytes=100_000,
    )
    out = ran.finished.stdout.data + ran.finished.stderr.data
    return ran.finished.exit_code, out.decode("utf-8", errors="replace")


@needs_bwrap
def test_a_product_writes_its_working_directory_and_home_and_nothing_else(
    tmp_path: Path, bwrap: ProductSandbox
) -> None:
    outside = Path(tempfile.mkdtemp(prefix="product-sandbox-target-", dir="/var/tmp"))
    try:
        with run_dir("claude-code", sandbox=bwrap) as run:
            code, out = shell(
                run,
                f'echo in > inside.txt && echo home > "$HOME/h.txt" && echo ok; '
                f"echo pwned > {outside}/escape.txt; echo pwned > {tmp_path}/escape.txt; "
                f"echo pwned > {TEMP}/skill-lens-escape.txt; id -u",
            )
            assert (run.work / "inside.txt").read_text() == "in\n"
            assert (run.home / "h.txt").read_text() == "home\n"
        assert code == 0, out
        assert "ok" in out and "Read-only file system" in out
        assert "\n65534\n" in out  # not root inside, whoever runs the harness
        assert not (outside / "escape.txt").exists()
        assert not (tmp_path / "escape.txt").exists()
        assert not (TEMP / "skill-lens-escape.txt").exists()
    finally:
        (outside / "escape.txt").unlink(missing_ok=True)
        outside.rmdir()


@needs_bwrap
def test_other_skill_lens_directories_are_invisible(bwrap: ProductSandbox) -> None:
    secret = make_dir("skill-lens-other-")  # another case's, of this session or another
    (secret / "key.txt").write_text("sk-secret")
    try:
        with run_dir("claude-code", sandbox=bwrap) as run:
            _, out = shell(run, f"cat {secret}/key.txt; ls {parent_of()}")
        assert "sk-secret" not in out
        assert "No such file or directory" in out
        listing = out.splitlines()
        assert secret.name not in listing and run.root.name in listing  # only its own
    finally:
        (secret / "key.txt").unlink()
        secret.rmdir()


@needs_bwrap
def test_a_product_reaches_its_provider_on_loopback(loopback: str, bwrap: ProductSandbox) -> None:
    probe = f"import urllib.request; print(urllib.request.urlopen({loopback!r}).status)"
    with run_dir("claude-code", sandbox=bwrap) as run:
        code, out = shell(run, f"{sys.executable} -c {_quoted(probe)}")
    assert code == 0, out
    assert out.strip().endswith("200")


@needs_bwrap
def test_a_product_has_no_capability_and_cannot_remount(bwrap: ProductSandbox) -> None:
    with run_dir("claude-code", sandbox=bwrap) as run:
        _, out = shell(run, "grep CapEff /proc/self/status; mount -o remount,rw / 2>&1; echo rc=$?")
    assert "CapEff:\t0000000000000000" in out, out
    assert "rc=0" not in out


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


# -- which products a run names, and what the reports say -----------------------------------


def test_a_product_in_the_runner_and_judge_seat_is_named_once() -> None:
    assert product_names(["claude-code", "fake", "copilot"], "claude-code") == [
        "claude-code",
        "copilot",
    ]
    assert product_names(["fake"], "cli") == ["cli"]
    assert product_names(["fake", "pydantic-ai"], "fake") == []


def test_entries_carry_the_executable_and_the_probed_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / "claude"
    claude.write_text("#!/bin/sh\n")
    claude.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setitem(preflight._versions, "claude-code", "2.1.332 (Claude Code)")
    monkeypatch.delitem(preflight._versions, "cli", raising=False)
    settings = Settings.model_validate(
        {
            "default_runner": ["claude-code", "cli"],
            "judge": "claude-code",
            "runners": {"cli": {"command": ["my-agent", "{prompt}"], "pass_env": []}},
        }
    )
    decision = ProductSandbox("auto", "none", True, detail="bwrap not found on PATH")
    assert product_entries(settings, None) == []
    claude_entry, cli_entry = product_entries(settings, decision)
    assert claude_entry == ProductEntry(
        "claude-code", str(claude), "2.1.332 (Claude Code)", HOME_ONLY, decision
    )
    assert (cli_entry.name, cli_entry.executable, cli_entry.version) == ("cli", "my-agent", None)


def entry(name: str = "claude-code", version: str | None = "2.1.332") -> ProductEntry:
    decision = ProductSandbox("auto", "none", True, detail="bwrap not found on PATH")
    return ProductEntry(name, "/opt/bin/claude", version, decision.trust, decision)


def test_the_product_line_names_product_version_executable_and_trust() -> None:
    assert product_line(entry()) == f"product claude-code 2.1.332 (/opt/bin/claude): {HOME_ONLY}"
    assert product_line(entry("cli", None)) == f"product cli (/opt/bin/claude): {HOME_ONLY}"


def test_every_report_carries_the_product_line() -> None:
    record = RunRecord(products=[entry()])
    gate = GateResult(True, 0)
    line = product_line(entry())
    terminal = summary_lines(record, gate)
    assert terminal[0] == line  # first, as the original console prints it
    (product,) = report_dict(record, gate)["products"]
    assert product == {
        "name": "claude-code",
        "executable": "/opt/bin/claude",
        "version": "2.1.332",
        "trust": HOME_ONLY,
        "sandbox": {
            "mode": "auto",
            "backend": "none",
            "home_isolated": True,
            "detail": "bwrap not found on PATH",
        },
        "cache_note": None,
    }
    markdown = render_markdown(record, gate)
    assert "<sub>product claude-code 2.1.332 (/opt/bin/claude): runs with" in markdown
    assert product_properties(record) == [(PRODUCTS_PROPERTY, line)]
    xml = '<testsuites><testsuite name="s"><testcase name="c"/></testsuite></testsuites>'
    amended = add_suite_properties(xml, product_properties(record))
    assert amended is not None and f'name="skill-lens.products" value="{line}"' in amended
    assert product_properties(RunRecord()) == []
    assert report_dict(RunRecord(), gate)["products"] == []


def test_idle_scripts_say_a_product_can_still_run_them() -> None:
    note = {"skill_name": "deploy", "script_count": 2, "product_note": SCRIPTS_REACHABLE}
    record = RunRecord(products=[entry()], script_notes=[note])
    lines = summary_lines(record, GateResult(True, 0))
    assert lines[1] == (
        "skill deploy bundles 2 scripts; skill-lens's run_script is off (allow_scripts = true "
        "in skill-lens.toml or --skill-lens-allow-scripts); product runners can still run "
        "them through their own tools"
    )


def test_a_hostile_version_line_cannot_break_a_report() -> None:
    hostile = entry(version="1.0\x1b[31m red\r\n<script>")
    record = RunRecord(products=[hostile])
    gate = GateResult(True, 0)
    (line, *_) = summary_lines(record, gate)
    assert "\x1b" not in line and "\n" not in line and "\r" not in line
    assert "<script>" not in render_markdown(record, gate)


def test_a_replay_only_decision_probes_nothing_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_probe(*args: object, **kwargs: object) -> None:
        raise AssertionError("a replay-only run must not probe a backend")

    monkeypatch.setattr(product_sandbox, "_probe", no_probe)
    for mode, isolated in (("required", True), ("auto", True), ("off", False)):
        decision = product_sandbox.replay_only(mode)  # type: ignore[arg-type]
        assert decision.data() == {
            "mode": mode,
            "backend": "none",
            "home_isolated": isolated,
            "detail": product_sandbox.REPLAY_ONLY_DETAIL,
        }
