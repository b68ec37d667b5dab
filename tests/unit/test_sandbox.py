"""The OS sandbox: the probe, the bwrap mount layout, and attacks run for real under bwrap.

Each attack is a bundled script doing what a hostile or careless skill would: open a
network connection, write a fixed path in the system temporary directory, read a
sibling workspace, look for the provider key, leave a process behind, flood its
output, run forever. Each asserts the exact evidence the model reads. Where it
proves the test can fail, the same script runs with ``script_sandbox = "off"`` and
succeeds.
"""

from __future__ import annotations

import ast
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proc_watch import alive_with
from pytest_skill_lens.run.process.temp_parent import parent_of
from pytest_skill_lens.run.sandbox import script_sandbox as sandbox
from pytest_skill_lens.run.sandbox.script_sandbox import (
    HARDENING,
    CannotWrap,
    SandboxDecision,
    bwrap_argv,
    decide,
    sandbox_exec_profile,
    system_temp_dir,
    visible_executable,
    wrap,
)
from pytest_skill_lens.run.tools.script_tool import run_script
from pytest_skill_lens.run.workspace.bundle import Bundle
from pytest_skill_lens.run.workspace.workspace import Workspace
from pytest_skill_lens.settings import Settings

PY = sys.executable
TEMP = system_temp_dir()
BWRAP = decide("auto")
needs_bwrap = pytest.mark.skipif(
    BWRAP.backend != "bwrap",
    reason=f"no working bwrap on this machine ({BWRAP.label}); .ci/run installs bubblewrap",
)

# slow: attacks run for real under bwrap (-m "not slow" skips it)
pytestmark = pytest.mark.slow


def settings(mode: str = "auto", **more: Any) -> Settings:
    base: dict[str, Any] = {
        "allow_scripts": True,
        "script_sandbox": mode,
        "script_interpreters": {"py": [PY], "sh": ["bash"]},
    }
    return Settings(**{**base, **more})


def make_bundle(root: Path, scripts: dict[str, str]) -> Bundle:
    skill = root / "skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nRun it.\n")
    for rel, text in scripts.items():
        target = skill / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    return Bundle.of(skill)


@pytest.fixture
def workspace() -> Iterator[Workspace]:
    made = Workspace.create("sandbox-test", {"in.txt": "seeded"})
    yield made
    made.cleanup()


def stdout_of(said: str) -> list[str]:
    """The stdout lines of a run_script answer."""
    body = said.split("\nstdout:\n", 1)[1]
    return body.split("\nstderr:\n", 1)[0].splitlines()


# --- the probe --------------------------------------------------------------------------------


def fake_bwrap(directory: Path, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "bwrap"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return script


def test_off_never_probes() -> None:
    assert decide("off") == SandboxDecision("none", detail='script_sandbox = "off"')
    assert decide("off").label == 'none (script_sandbox = "off")'


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bwrap probe is Linux's")
def test_no_bwrap_on_path_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    decision = decide("auto")
    assert decision == SandboxDecision("none", detail="bwrap not found on PATH")
    assert decision.label == "none (bwrap not found on PATH)"


# What every script call and the probe share: no capability, a user namespace of its own
# with uid and gid 65534 inside, no nested user namespace, its own IPC, network and PID
# namespaces, killed with its parent, a session of its own (pinned here on purpose: the
# test fails when a flag is dropped from either argv).
ISOLATION_FLAGS = [
    *("--unshare-user", "--disable-userns", "--uid", "65534", "--gid", "65534"),
    *("--cap-drop", "ALL", "--unshare-ipc", "--unshare-net", "--unshare-pid"),
    *("--die-with-parent", "--new-session"),
]


def recorded_calls(calls: Path) -> list[list[str]]:
    """The argv of each fake bwrap call, one argument a line, each call closed by ``== end``."""
    found: list[list[str]] = [[]]
    for line in calls.read_text().splitlines():
        if line == "== end":
            found.append([])
        else:
            found[-1].append(line)
    return found[:-1]


RECORD = 'printf "%s\\n" "$@" >> {calls}\necho "== end" >> {calls}\n'


def probe_areas(argv: list[str]) -> tuple[Path, Path, Path]:
    """The workspace, scratch and bundle directories a probe bound (from its argv)."""
    binds = [argv[i + 1] for i, flag in enumerate(argv) if flag in ("--bind", "--ro-bind")]
    _, workspace, scratch, bundle = binds
    return Path(workspace), Path(scratch), Path(bundle)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bwrap probe is Linux's")
def test_the_probe_executes_the_very_argv_of_a_script_call_once_and_reports_its_first_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "calls"
    fake = fake_bwrap(
        tmp_path / "bin",
        RECORD.format(calls=calls)
        + 'echo "bwrap: setting up uid map: Permission denied" >&2\necho second line >&2\nexit 1\n',
    )
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}/usr/bin:/bin")
    first = decide("auto")
    again = decide("required")
    assert (
        first
        == again
        == SandboxDecision("none", detail="bwrap: setting up uid map: Permission denied")
    )
    (probe,) = recorded_calls(calls)
    workspace, scratch, bundle = probe_areas(probe)
    # bwrap_argv itself, around /bin/true in directories of its own: every flag a call has.
    assert [str(fake), *probe] == bwrap_argv(
        str(fake), ["/bin/true"], workspace=workspace, scratch=scratch, bundle=bundle, temp=TEMP
    )
    assert probe[-len(ISOLATION_FLAGS) - 4 :] == [
        *ISOLATION_FLAGS,
        *("--chdir", str(workspace), "--", "/bin/true"),
    ]
    assert all(path.parent.parent == parent_of(TEMP) for path in (workspace, scratch, bundle))
    assert not workspace.parent.exists()  # the probe cleans up after itself


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bwrap probe is Linux's")
def test_a_bwrap_that_cannot_forbid_nested_user_namespaces_is_probed_without_it_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "calls"
    found = fake_bwrap(
        tmp_path / "bin",
        RECORD.format(calls=calls) + 'for a in "$@"; do [ "$a" = --disable-userns ] && '
        '{ echo "bwrap: Unknown option --disable-userns" >&2; exit 1; }; done\nexit 0\n',
    )
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    decision = decide("auto")
    without = tuple(flag for flag in ISOLATION_FLAGS if flag != "--disable-userns")
    assert decision == SandboxDecision(
        "bwrap",
        executable=str(found),
        detail="nested user namespaces allowed: bwrap: Unknown option --disable-userns",
        isolation=without,
    )
    assert decision.label == "bwrap"
    strict, relaxed = recorded_calls(calls)
    assert "--disable-userns" in strict
    workspace, scratch, bundle = probe_areas(relaxed)
    assert [str(found), *relaxed] == bwrap_argv(
        str(found),
        ["/bin/true"],
        workspace=workspace,
        scratch=scratch,
        bundle=bundle,
        temp=TEMP,
        isolation=without,
    )
    # Each call then runs with the flags the probe showed to work, and only those.
    call = wrap(
        decision,
        ["/usr/bin/python3", "x.py"],
        workspace=Path("/tmp/ws"),
        scratch=Path("/tmp/sc"),
        bundle=Path("/skills/s"),
        temp_dir=Path("/tmp"),
    )
    assert "--disable-userns" not in call
    assert call[-len(without) - 5 : -5] == list(without)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bwrap probe is Linux's")
def test_a_bwrap_that_cannot_make_the_user_namespace_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "calls"
    fake_bwrap(
        tmp_path / "bin",
        RECORD.format(calls=calls) + 'for a in "$@"; do [ "$a" = --unshare-user ] && '
        '{ echo "bwrap: Creating new namespace failed: Operation not permitted" >&2; exit 1; }; '
        "done\nexit 0\n",
    )
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    decision = decide("auto")
    assert decision.label == "none (bwrap: Creating new namespace failed: Operation not permitted)"
    assert len(recorded_calls(calls)) == 1  # no second try without the user namespace


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bwrap probe is Linux's")
def test_a_probe_that_exits_silently_is_reported_by_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_bwrap(tmp_path / "bin", "exit 7\n")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert decide("auto").detail == "bwrap probe exited with 7"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bwrap probe is Linux's")
def test_a_working_probe_chooses_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = fake_bwrap(tmp_path / "bin", "exit 0\n")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert decide("auto") == SandboxDecision("bwrap", executable=str(found))
    assert decide("auto").label == "bwrap"


def test_other_platforms_have_no_backend() -> None:
    probe = sandbox._probe.__wrapped__
    assert probe("win32", "", "/tmp").label == "none (no sandbox backend on Windows)"
    assert probe("freebsd14", "", "/tmp").label == "none (no sandbox backend on freebsd14)"


# --- the wrapping ----------------------------------------------------------------------------


def test_the_bwrap_argv_has_the_documented_mount_layout() -> None:
    argv = bwrap_argv(
        "/usr/bin/bwrap",
        ["/usr/bin/python3", "/skills/s/scripts/x.py", "a b"],
        workspace=Path("/tmp/ws"),
        scratch=Path("/tmp/sc"),
        bundle=Path("/skills/s"),
        temp=Path("/tmp"),
        hidden=("/run", "/var/run"),
    )
    assert argv == [
        "/usr/bin/bwrap",
        *("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"),
        *("--tmpfs", "/run", "--tmpfs", "/var/run", "--tmpfs", "/tmp"),
        *("--bind", "/tmp/ws", "/tmp/ws", "--bind", "/tmp/sc", "/tmp/sc"),
        *("--ro-bind", "/skills/s", "/skills/s"),
        # /proc read-only: uid 0 without capabilities still writes host sysctls otherwise.
        *("--remount-ro", "/tmp", "--remount-ro", "/proc"),
        *("--remount-ro", "/run", "--remount-ro", "/var/run"),
        *ISOLATION_FLAGS,
        *("--chdir", "/tmp/ws", "--"),
        *("/usr/bin/python3", "/skills/s/scripts/x.py", "a b"),
    ]
    decision = SandboxDecision("bwrap", executable="/usr/bin/bwrap")
    wrapped = wrap(
        decision,
        ["/usr/bin/python3", "/skills/s/scripts/x.py", "a b"],
        workspace=Path("/tmp/ws"),
        scratch=Path("/tmp/sc"),
        bundle=Path("/skills/s"),
        temp_dir=Path("/tmp"),
    )
    assert wrapped == bwrap_argv(
        "/usr/bin/bwrap",
        ["/usr/bin/python3", "/skills/s/scripts/x.py", "a b"],
        workspace=Path("/tmp/ws"),
        scratch=Path("/tmp/sc"),
        bundle=Path("/skills/s"),
        temp=Path("/tmp"),
        hidden=sandbox.runtime_dirs(),
    )


def test_an_interpreter_linked_from_a_hidden_runtime_directory_runs_through_its_target(
    tmp_path: Path,
) -> None:
    # NixOS puts /run/current-system/sw/bin on PATH: links into /nix/store, which bwrap
    # shows while /run is an empty tmpfs.
    run_dir, store = tmp_path / "run", tmp_path / "store"
    store.mkdir()
    real = store / "python3"
    real.write_text("")
    (run_dir / "bin").mkdir(parents=True)
    (run_dir / "bin" / "python3").symlink_to(real)
    (run_dir / "bin" / "inside").write_text("")
    temp = Path("/nonexistent-temp")  # tmp_path itself is under the real one
    assert visible_executable(str(run_dir / "bin" / "python3"), temp, run_dir) == str(real)
    inside = str(run_dir / "bin" / "inside")
    assert visible_executable(inside, temp, run_dir) == inside  # stays hidden: cannot start
    assert visible_executable(str(real), temp, run_dir) == str(real)


def test_the_sandbox_exec_profile_denies_then_re_allows_later() -> None:
    # Written for macOS and not exercised there by this suite: the text is what is tested.
    profile = sandbox_exec_profile(
        workspace=Path("/private/tmp/x/ws"),
        scratch=Path("/private/tmp/sc"),
        bundle=Path("/Users/u/skills/s"),
        temp=Path("/private/tmp"),
    )
    assert profile.splitlines() == [
        "(version 1)",
        "(allow default)",
        "(deny network*)",
        "(deny file-write*)",
        '(allow file-write* (subpath "/private/tmp/x/ws") (subpath "/private/tmp/sc"))',
        '(allow file-write-data (literal "/dev/null"))',
        '(deny file-read* (subpath "/private/tmp"))',
        '(allow file-read* (subpath "/private/tmp/x/ws") (subpath "/private/tmp/sc") '
        '(subpath "/Users/u/skills/s"))',
        '(allow file-read-metadata (literal "/private/tmp") (literal "/private/tmp/x"))',
    ]


def test_a_double_quote_never_reaches_a_profile() -> None:
    with pytest.raises(CannotWrap, match="cannot be written into a sandbox-exec profile"):
        sandbox_exec_profile(
            workspace=Path('/tmp/a"b'), scratch=Path("/tmp/s"), bundle=Path("/b"), temp=Path("/tmp")
        )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_the_harness_marks_itself_non_dumpable() -> None:
    # In a child process, so this test run's own dumpable flag is left alone.
    code = (
        "import ctypes\n"
        "from pytest_skill_lens.run.sandbox.script_sandbox import hide_harness_environment as h\n"
        "note = h(); print(note); print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))\n"
    )
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True)
    note, dumpable = done.stdout.splitlines()
    assert dumpable == "0"  # PR_GET_DUMPABLE
    # Root ignores the flag, so the report claims nothing under root.
    assert note == ("None" if os.geteuid() == 0 else HARDENING)


# --- attacks, for real under bwrap ------------------------------------------------------------


@needs_bwrap
def test_a_script_has_no_capability_whoever_runs_the_harness(
    tmp_path: Path, workspace: Workspace
) -> None:
    # As root (CI) a bwrap that keeps capabilities lets a script remount / read-write,
    # unmount /proc or the temporary directory's tmpfs; uid 0 with none still writes the
    # host's sysctls (core_pattern runs a program as root) and reaches root daemons'
    # sockets under /run. Here each is refused or hidden.
    script = """\
        import ctypes, errno, os
        libc = ctypes.CDLL(None, use_errno=True)
        def said(code):
            return "ok" if code == 0 else errno.errorcode[ctypes.get_errno()]
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        print(os.getuid(), os.getgid())
        print(*(status[k].strip() for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb", "NoNewPrivs")))
        print("remount /", said(libc.mount(None, b"/", None, 32 | 4096, None)))
        print("umount /proc", said(libc.umount2(b"/proc", 2)))
        print("umount temp", said(libc.umount2(os.path.dirname(os.getcwd()).encode(), 2)))
        print("new user namespace", said(libc.unshare(0x10000000)))
        # Rewrites its current value: harmless on the host if it ever succeeded.
        pattern = open("/proc/sys/kernel/core_pattern").read()
        try:
            open("/proc/sys/kernel/core_pattern", "w").write(pattern)
            print("core_pattern ok")
        except OSError as exc:
            print("core_pattern", errno.errorcode[exc.errno])
        print("/run holds", os.listdir("/run") if os.path.isdir("/run") else None)
    """
    bundle = make_bundle(tmp_path, {"scripts/caps.py": script})
    said = run_script(bundle, workspace, settings(), "scripts/caps.py", None)
    none = "0" * 16
    assert stdout_of(said) == [
        "65534 65534",
        f"{none} {none} {none} {none} 1",
        "remount / EPERM",
        "umount /proc EPERM",
        "umount temp EPERM",
        "new user namespace " + ("ENOSPC" if BWRAP.detail is None else "ok"),
        "core_pattern EROFS",
        "/run holds " + ("[]" if os.path.isdir("/run") else "None"),
    ]


@needs_bwrap
def test_a_script_cannot_open_a_network_connection(tmp_path: Path, workspace: Workspace) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    script = f"""\
        import socket
        for host in ("127.0.0.1", "1.1.1.1"):
            try:
                socket.create_connection((host, {port} if host == "127.0.0.1" else 80), timeout=3)
                print(host, "connected")
            except OSError as exc:
                print(host, type(exc).__name__, exc.strerror)
    """
    bundle = make_bundle(tmp_path, {"scripts/net.py": script})
    try:
        said = run_script(bundle, workspace, settings(), "scripts/net.py", None)
        assert stdout_of(said) == [
            "127.0.0.1 ConnectionRefusedError Connection refused",
            "1.1.1.1 OSError Network is unreachable",
        ]
        with pytest.raises(TimeoutError):
            listener.accept()  # nothing reached the host's loopback
        # Without the sandbox the same script does reach it: the test can fail.
        unsandboxed = run_script(bundle, workspace, settings("off"), "scripts/net.py", None)
        assert stdout_of(unsandboxed)[0] == "127.0.0.1 connected"
    finally:
        listener.close()


@needs_bwrap
def test_a_fixed_path_in_the_temp_dir_is_read_only(tmp_path: Path, workspace: Workspace) -> None:
    target = TEMP / "state.json"
    existed = target.exists()
    script = f"""\
        import os, sys
        try:
            open({str(target)!r}, "w").write("{{}}")
            print("wrote")
        except OSError as exc:
            print(exc)
        open(os.path.join(os.environ["TMPDIR"], "state.json"), "w").write("{{}}")
        print("scratch ok")
    """
    bundle = make_bundle(tmp_path, {"scripts/state.py": script})
    said = run_script(bundle, workspace, settings(), "scripts/state.py", None)
    assert stdout_of(said) == [
        f"[Errno 30] Read-only file system: {str(target)!r}",
        "scratch ok",
    ]
    assert target.exists() == existed


@needs_bwrap
def test_writes_land_only_in_the_workspace_and_scratch(
    tmp_path: Path, workspace: Workspace
) -> None:
    script = """\
        import os, sys
        bundle_file = os.path.join(sys.argv[1], "x")
        for path in ("out.txt", bundle_file, os.path.expanduser("~/x"), "/etc/x"):
            try:
                open(path, "w").write("x")
                print("ok")
            except OSError as exc:
                print(exc.strerror)
    """
    bundle = make_bundle(tmp_path, {"scripts/w.py": script})
    assert bundle.root is not None
    said = run_script(bundle, workspace, settings(), "scripts/w.py", [str(bundle.root)])
    assert stdout_of(said) == ["ok", "Read-only file system"] + ["Read-only file system"] * 2
    assert (workspace.root / "out.txt").read_text() == "x"
    assert not (bundle.root / "x").exists()


@needs_bwrap
def test_a_sibling_workspace_is_invisible(tmp_path: Path, workspace: Workspace) -> None:
    sibling = Workspace.create("sibling", {"answer.txt": "the baseline's secret"})
    try:
        script = f"""\
            import os
            try:
                print(open({str(sibling.root / "answer.txt")!r}).read())
            except OSError as exc:
                print(type(exc).__name__)
            print(sorted(os.listdir({str(parent_of(TEMP))!r})))
        """
        bundle = make_bundle(tmp_path, {"scripts/peek.py": script})
        said = run_script(bundle, workspace, settings(), "scripts/peek.py", None)
        first, listing = stdout_of(said)
        assert first == "FileNotFoundError"
        shown = ast.literal_eval(listing)
        assert sibling.root.name not in shown
        assert workspace.root.name in shown
        assert all(
            name == workspace.root.name
            or name.startswith("skill-lens-scratch-")
            or (parent_of(TEMP) / name) in bundle.root.parents  # type: ignore[union-attr]
            for name in shown
        )
        unsandboxed = run_script(bundle, workspace, settings("off"), "scripts/peek.py", None)
        assert stdout_of(unsandboxed)[0] == "the baseline's secret"
    finally:
        sibling.cleanup()


@needs_bwrap
def test_the_provider_key_is_neither_inherited_nor_readable_from_proc(
    tmp_path: Path, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = f"sk-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    script = f"""\
        import os
        print(os.environ.get("OPENAI_API_KEY"))
        hits = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    if {secret!r}.encode() in open(f"/proc/{{pid}}/environ", "rb").read():
                        hits.append(pid)
                except OSError:
                    pass
        print("found in", hits)
    """
    bundle = make_bundle(tmp_path, {"scripts/key.py": script})
    # os.environ changes the C environment too: a child started now inherits the key
    # unless the allowlist drops it, and /proc/<harness pid>/environ of a process
    # started now (the sandbox's parent, bwrap) would hold it.
    said = run_script(bundle, workspace, settings(), "scripts/key.py", None)
    assert stdout_of(said) == ["None", "found in []"]
    assert secret not in said


@needs_bwrap
def test_a_background_process_is_gone_after_the_script_exits(
    tmp_path: Path, workspace: Workspace
) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    escape = f"""\
        import os, subprocess
        if os.fork() == 0:
            os.setsid()  # leaves the process group: only the PID namespace catches this one
            subprocess.Popen(["sleep", "{marker}1"])
            os._exit(0)
        subprocess.Popen(["sleep", "{marker}"])
        print("started")
    """
    bundle = make_bundle(
        tmp_path, {"scripts/bg.sh": f"sleep {marker} &\necho started\n", "scripts/esc.py": escape}
    )
    for script in ("scripts/bg.sh", "scripts/esc.py"):
        said = run_script(bundle, workspace, settings(), script, None)
        assert said == "exit code: 0\nstdout:\nstarted\nstderr:\n(empty)"
    assert alive_with(marker) == []


@needs_bwrap
def test_ten_megabytes_and_a_timeout_under_bwrap(tmp_path: Path, workspace: Workspace) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    bundle = make_bundle(
        tmp_path,
        {
            "scripts/loud.py": "import sys; sys.stdout.write('y' * 10_000_000)\n",
            "scripts/slow.sh": f"sleep {marker} &\necho before\nsleep 100\n",
        },
    )
    loud = run_script(bundle, workspace, settings(), "scripts/loud.py", None)
    assert loud.startswith("stopped: the output passed max_script_output_bytes (20,000 bytes)\n")
    assert loud.endswith(
        "\n... [truncated at 20,000 bytes: the script was stopped]\nstderr:\n(empty)"
    )
    slow = run_script(
        bundle, workspace, settings(script_timeout_seconds=0.5), "scripts/slow.sh", None
    )
    assert slow == "stopped after 0.5 s (script_timeout_seconds)\nstdout:\nbefore\nstderr:\n(empty)"
    assert alive_with(marker) == []


@needs_bwrap
def test_an_interpreter_hidden_by_the_sandbox_is_a_refusal(
    tmp_path: Path, workspace: Workspace
) -> None:
    # An interpreter living under the temporary directory vanishes under the tmpfs (a
    # link to one outside is followed instead: see test_sandbox_interpreters.py).
    hidden = Path(tempfile.mkdtemp(prefix="hidden-interp-", dir=TEMP))
    try:
        interpreter = hidden / "py"
        shutil.copy(Path(PY).resolve(), interpreter)
        bundle = make_bundle(tmp_path, {"scripts/x.py": "print(1)\n"})
        configured = settings(script_interpreters={"py": [str(interpreter)]})
        said = run_script(bundle, workspace, configured, "scripts/x.py", None)
        assert said == f"refused: cannot start {interpreter}: No such file or directory"
    finally:
        interpreter.unlink()
        hidden.rmdir()
