"""``run_script`` and its process layer, for real: every refusal text, the output format,
the caps, the environment, the group kill and the timeout.

These run with ``script_sandbox = "off"`` so they test the portable guards alone (the
same guards apply under a sandbox; tests/unit/test_sandbox.py attacks the sandbox).
The interpreter is this test run's own Python, so a call costs no pyenv shim start.
"""

from __future__ import annotations

import os
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proc_watch import alive_with
from pytest_skill_lens.run.process import start as scripts
from pytest_skill_lens.run.process.start import (
    Captured,
    run_process,
    script_env,
)
from pytest_skill_lens.run.tools.script_tool import (
    DESCRIPTION,
    SCHEMA,
    missing_interpreters,
    run_script,
    run_script_tool,
    with_run_script,
)
from pytest_skill_lens.run.tools.workspace_tools import workspace_tools
from pytest_skill_lens.run.workspace.bundle import Bundle
from pytest_skill_lens.run.workspace.workspace import Limits, Workspace
from pytest_skill_lens.settings import Settings

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")

PY = sys.executable
NOT_A_LIST = 'refused: args is a list of strings, e.g. ["app.log"]'


def settings(**more: Any) -> Settings:
    base: dict[str, Any] = {
        "allow_scripts": True,
        "script_sandbox": "off",
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
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    made = Workspace.create("scripts-test", {"app.log": "ERROR a\nINFO b\nERROR c\n"})
    yield made
    made.cleanup()


# --- the process layer ----------------------------------------------------------------------


def test_the_environment_is_rebuilt_from_the_allowlist(tmp_path: Path) -> None:
    source = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "OPENAI_API_KEY": "sk-secret",
        "ANTHROPIC_API_KEY": "sk-ant",
        "TMPDIR": "/elsewhere",
        "PYTHONPATH": "/evil",
    }
    env = script_env(tmp_path, source)
    assert env == {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "TMPDIR": str(tmp_path),
        "TMP": str(tmp_path),
        "TEMP": str(tmp_path),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }


def test_output_under_the_cap_is_kept_whole_with_nothing_omitted(tmp_path: Path) -> None:
    finished = run_process(
        [PY, "-c", "import sys; sys.stdout.write('x' * 20_000); sys.stderr.write('e' * 7)"],
        cwd=tmp_path,
        env=script_env(tmp_path),
        timeout=30,
        max_output_bytes=20_000,
    )
    assert (finished.exit_code, finished.over_cap) == (0, None)
    assert finished.stdout == Captured(b"x" * 20_000, 0)
    assert finished.stderr == Captured(b"eeeeeee", 0)
    assert finished.stderr.text() == "eeeeeee"


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_stream_past_the_cap_stops_the_program_there(tmp_path: Path, stream: str) -> None:
    # It would write for 100 s; the cap stops it at once, and nothing went to a file.
    flood = f"import sys, time\nwhile True: sys.{stream}.write('x' * 4096); sys.{stream}.flush()"
    began = time.monotonic()
    finished = run_process(
        [PY, "-c", flood],
        cwd=tmp_path,
        env=script_env(tmp_path),
        timeout=100,
        max_output_bytes=20_000,
    )
    assert time.monotonic() - began < 10
    assert finished.over_cap == stream
    assert finished.exit_code is not None and not finished.timed_out
    captured = getattr(finished, stream)
    assert captured.data == b"x" * 20_000 and captured.omitted > 0 and captured.stopped
    assert captured.text().endswith("x\n... [truncated at 20,000 bytes: the script was stopped]")
    assert list(tmp_path.iterdir()) == []


def test_output_left_in_the_pipe_by_a_quick_exit_is_read(tmp_path: Path) -> None:
    # Written just before the exit: still buffered in the pipe when the exit is seen.
    finished = run_process(
        [PY, "-c", "import os; os.write(1, b'y' * 30_000); os._exit(3)"],
        cwd=tmp_path,
        env=script_env(tmp_path),
        timeout=30,
        max_output_bytes=100_000,
    )
    assert (finished.exit_code, finished.stdout) == (3, Captured(b"y" * 30_000, 0))


def test_a_background_writer_holding_the_pipe_does_not_hold_the_harness(tmp_path: Path) -> None:
    # A child in a session of its own escapes the group kill and keeps stdout open.
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    escape = (
        "import os, subprocess\n"
        f"subprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n"
        "print('left')\n"
    )
    began = time.monotonic()
    finished = run_process(
        [PY, "-c", escape], cwd=tmp_path, env=script_env(tmp_path), timeout=30, max_output_bytes=100
    )
    try:
        assert time.monotonic() - began < 10
        assert (finished.exit_code, finished.stdout.text()) == (0, "left")
    finally:
        for pid in alive_with(f"sleep\0{marker}", within=0):
            os.kill(pid, 9)


def test_an_interrupt_while_waiting_still_kills_the_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C lands in the harness's wait: the program it started must not run on.
    marker = f"1000.{uuid.uuid4().int % 10**9}"

    def interrupted(*args: object) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(scripts, "_watch", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_process(
                ["sleep", marker],
                cwd=tmp_path,
                env=script_env(tmp_path),
                timeout=30,
                max_output_bytes=100,
            )
        assert alive_with(f"sleep\0{marker}") == []
    finally:
        for pid in alive_with(f"sleep\0{marker}", within=0):
            os.kill(pid, 9)


# --- run_script: the output format ------------------------------------------------------------

COUNT_LEVELS = """\
    import collections, sys
    counts = collections.Counter(line.split()[0] for line in open(sys.argv[1]) if line.strip())
    for level, n in sorted(counts.items()):
        print(f"{level}: {n}")
"""


def test_a_script_runs_in_the_workspace_and_the_model_reads_exit_code_and_streams(
    tmp_path: Path, workspace: Workspace
) -> None:
    bundle = make_bundle(tmp_path, {"scripts/count_levels.py": COUNT_LEVELS})
    said = run_script(bundle, workspace, settings(), "scripts/count_levels.py", ["app.log"])
    assert said == "exit code: 0\nstdout:\nERROR: 2\nINFO: 1\nstderr:\n(empty)"


def test_a_non_zero_exit_shows_both_streams(tmp_path: Path, workspace: Workspace) -> None:
    script = "import sys; print('half'); print('broke', file=sys.stderr); sys.exit(3)\n"
    bundle = make_bundle(tmp_path, {"scripts/fail.py": script})
    said = run_script(bundle, workspace, settings(), "scripts/fail.py", None)
    assert said == "exit code: 3\nstdout:\nhalf\nstderr:\nbroke"


def test_args_are_argv_never_a_shell_line_and_stdin_is_dev_null(
    tmp_path: Path, workspace: Workspace
) -> None:
    script = "import sys; print(sys.argv[1:]); print(repr(sys.stdin.read()))\n"
    bundle = make_bundle(tmp_path, {"scripts/echo.py": script})
    args = ["$(touch pwned)", "a b; rm -rf /", "`id`"]
    said = run_script(bundle, workspace, settings(), "scripts/echo.py", args)
    assert said.splitlines()[2:4] == [repr(args), "''"]
    assert not (workspace.root / "pwned").exists()


def test_a_provider_key_never_reaches_the_script(
    tmp_path: Path, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-123")
    script = "import os; print(os.environ.get('OPENAI_API_KEY')); print(os.environ['TMPDIR'])\n"
    bundle = make_bundle(tmp_path, {"scripts/env.py": script})
    said = run_script(bundle, workspace, settings(), "scripts/env.py", None)
    lines = said.splitlines()
    assert lines[2] == "None"
    assert "sk-test-secret-123" not in said
    scratch = Path(lines[3])
    assert scratch.name.startswith("skill-lens-scratch-")
    assert not scratch.is_relative_to(workspace.root)
    assert not scratch.exists()  # deleted after the call


def test_temporary_files_land_in_the_scratch_dir_never_the_workspace(
    tmp_path: Path, workspace: Workspace
) -> None:
    script = "import tempfile; f = tempfile.NamedTemporaryFile(delete=False); print(f.name)\n"
    bundle = make_bundle(tmp_path, {"scripts/tmp.py": script})
    said = run_script(bundle, workspace, settings(), "scripts/tmp.py", None)
    assert said.startswith("exit code: 0\nstdout:\n")
    assert workspace.list_files() == "app.log"
    made = Path(said.split("\n")[2])
    # A scratch directory of its own beside the workspace, gone once the call returned.
    assert made.parent.name.startswith("skill-lens-scratch-")
    assert made.parent.parent == workspace.root.parent
    assert not made.parent.exists()


def test_a_background_process_is_killed_when_the_script_exits(
    tmp_path: Path, workspace: Workspace
) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    bundle = make_bundle(tmp_path, {"scripts/bg.sh": f"sleep {marker} &\necho started\n"})
    said = run_script(bundle, workspace, settings(), "scripts/bg.sh", None)
    assert said == "exit code: 0\nstdout:\nstarted\nstderr:\n(empty)"
    assert alive_with(f"sleep\0{marker}") == []


def test_a_process_the_script_put_in_a_session_of_its_own_dies_with_the_call(
    tmp_path: Path, workspace: Workspace
) -> None:
    # Out of the group the call kills, unsandboxed: found by the scratch directory its
    # environment names, as that directory is removed.
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    escape = f"import subprocess\nsubprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n"
    bundle = make_bundle(tmp_path, {"scripts/escape.py": escape})
    try:
        said = run_script(bundle, workspace, settings(), "scripts/escape.py", None)
        assert said.startswith("exit code: 0\n")
        assert alive_with(f"sleep\0{marker}") == []
    finally:
        for pid in alive_with(f"sleep\0{marker}", within=0):
            os.kill(pid, 9)


def test_a_script_past_the_timeout_is_stopped_with_its_group(
    tmp_path: Path, workspace: Workspace
) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    script = f"sleep {marker} &\necho before\nsleep 100\n"
    bundle = make_bundle(tmp_path, {"scripts/slow.sh": script})
    start = time.monotonic()
    said = run_script(
        bundle, workspace, settings(script_timeout_seconds=0.5), "scripts/slow.sh", None
    )
    assert time.monotonic() - start < 10
    assert said == "stopped after 0.5 s (script_timeout_seconds)\nstdout:\nbefore\nstderr:\n(empty)"
    assert alive_with(f"sleep\0{marker}") == []


def test_ten_megabytes_stop_the_script_at_the_cap(tmp_path: Path, workspace: Workspace) -> None:
    script = "import sys; sys.stdout.write('y' * 10_000_000)\n"
    bundle = make_bundle(tmp_path, {"scripts/loud.py": script})
    said = run_script(bundle, workspace, settings(), "scripts/loud.py", None)
    head, _, rest = said.partition("stdout:\n")
    assert head == "stopped: the output passed max_script_output_bytes (20,000 bytes)\n"
    assert rest == (
        "y" * 20_000 + "\n... [truncated at 20,000 bytes: the script was stopped]\nstderr:\n(empty)"
    )


def test_a_workspace_left_over_a_cap_gets_a_warning_and_refuses_later_writes(
    tmp_path: Path,
) -> None:
    workspace = Workspace.create("caps", {}, Limits(max_total_bytes=1_000))
    try:
        bundle = make_bundle(
            tmp_path, {"scripts/fill.py": "open('big.bin', 'wb').write(b'z' * 5000)\n"}
        )
        tools = with_run_script(workspace_tools(workspace), bundle, workspace, settings())
        by_name = {t.name: t for t in tools}
        said = by_name["run_script"].call({"path": "scripts/fill.py"})
        assert said.endswith(
            "\nwarning: the working directory now holds 5,000 bytes; max_total_bytes is 1,000"
        )
        refused = by_name["write_file"].call({"path": "small.txt", "content": "x"})
        assert refused == (
            "refused: the working directory now holds 5,000 bytes; max_total_bytes is 1,000, "
            "so write_file is refused"
        )
        assert not (workspace.root / "small.txt").exists()
    finally:
        workspace.cleanup()


# --- run_script: every refusal -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "args", "said"),
    [
        (
            "references/x.md",
            None,
            "refused: 'references/x.md' is not under scripts/; only bundled scripts can be run",
        ),
        (
            "scripts/../references/x.md",
            None,
            "refused: 'scripts/../references/x.md' is not under scripts/; "
            "only bundled scripts can be run",
        ),
        (
            "/etc/passwd",
            None,
            "refused: '/etc/passwd' is not under scripts/; only bundled scripts can be run",
        ),
        (
            "scripts/x.py",
            None,
            "refused: no such script 'scripts/x.py'; bundled scripts: scripts/count_levels.py, "
            "scripts/data.json, scripts/x.rb",
        ),
        (
            "scripts/x.rb",
            None,
            "refused: 'scripts/x.rb' has no configured interpreter; script_interpreters allows: "
            "py, sh",
        ),
        (
            "scripts/data.json",
            None,
            "refused: 'scripts/data.json' has no configured interpreter; script_interpreters "
            "allows: py, sh",
        ),
        (
            "scripts/count_levels.py",
            ["a\x00b"],
            "refused: cannot start " + PY + ": embedded null byte",
        ),
        (
            "scripts/count_levels.py",
            "app.log",
            'refused: args is a list of strings, e.g. ["app.log"]',
        ),
        ("scripts/count_levels.py", [1], 'refused: args is a list of strings, e.g. ["app.log"]'),
        (3, None, "refused: path is text, not int"),
    ],
)
def test_every_refusal_is_text_the_model_reads(
    tmp_path: Path, workspace: Workspace, path: Any, args: Any, said: str
) -> None:
    bundle = make_bundle(
        tmp_path,
        {
            "scripts/count_levels.py": COUNT_LEVELS,
            "scripts/x.rb": "puts 1\n",
            "scripts/data.json": "{}\n",
            "references/x.md": "# x\n",
        },
    )
    assert run_script(bundle, workspace, settings(), path, args) == said


def test_an_interpreter_not_on_path_is_refused_naming_it(
    tmp_path: Path, workspace: Workspace
) -> None:
    bundle = make_bundle(tmp_path, {"scripts/x.py": "print(1)\n"})
    configured = settings(script_interpreters={"py": ["no-such-python-3"]})
    said = run_script(bundle, workspace, configured, "scripts/x.py", None)
    assert said == "refused: scripts/x.py needs no-such-python-3, which is not on PATH"
    assert missing_interpreters(bundle.root or tmp_path, configured) == (
        "scripts/x.py",
        "no-such-python-3",
    )
    # An eval path kept out of the bundle (--skill-lens-evals) is no script to preflight.
    root = bundle.root or tmp_path
    assert missing_interpreters(root, configured, also_withheld=[root / "scripts"]) is None


def test_an_interpreter_that_will_not_start_is_refused(
    tmp_path: Path, workspace: Workspace
) -> None:
    broken = tmp_path / "bin" / "brokenpy"
    broken.parent.mkdir()
    broken.write_text("#!/no/such/interpreter\n")
    broken.chmod(0o755)
    bundle = make_bundle(tmp_path, {"scripts/x.py": "print(1)\n"})
    configured = settings(script_interpreters={"py": [str(broken)]})
    said = run_script(bundle, workspace, configured, "scripts/x.py", None)
    assert said == f"refused: cannot start {broken}: No such file or directory"


def test_interpreter_keys_are_normalised(tmp_path: Path, workspace: Workspace) -> None:
    bundle = make_bundle(tmp_path, {"scripts/Hello.PY": "print('hi')\n"})
    configured = settings(script_interpreters={" .Py ": [PY]})
    said = run_script(bundle, workspace, configured, "scripts/Hello.PY", None)
    assert said == "exit code: 0\nstdout:\nhi\nstderr:\n(empty)"


def test_a_withheld_file_under_scripts_is_not_a_script(
    tmp_path: Path, workspace: Workspace
) -> None:
    bundle = make_bundle(tmp_path, {"scripts/ok.py": "print(1)\n", "scripts/.env": "K=1\n"})
    said = run_script(bundle, workspace, settings(), "scripts/.env", None)
    assert said == "refused: no such script 'scripts/.env'; bundled scripts: scripts/ok.py"


def test_a_script_linked_out_of_the_skill_is_not_a_script(
    tmp_path: Path, workspace: Workspace
) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("print('escaped')\n")
    bundle = make_bundle(tmp_path, {"scripts/ok.py": "print(1)\n"})
    assert bundle.root is not None
    (bundle.root / "scripts" / "link.py").symlink_to(outside)
    said = run_script(bundle, workspace, settings(), "scripts/link.py", None)
    assert said == "refused: no such script 'scripts/link.py'; bundled scripts: scripts/ok.py"


# --- the tool as offered ------------------------------------------------------------------------


def test_run_script_is_offered_only_with_allow_scripts_and_a_script(
    tmp_path: Path, workspace: Workspace
) -> None:
    base = workspace_tools(workspace)
    with_script = make_bundle(tmp_path / "a", {"scripts/x.py": "print(1)\n"})
    without = make_bundle(tmp_path / "b", {"references/r.md": "# r\n"})
    names = [t.name for t in with_run_script(base, with_script, workspace, settings())]
    assert names == ["list_files", "read_file", "write_file", "run_script"]
    off = settings(allow_scripts=False)
    assert with_run_script(base, with_script, workspace, off) == base
    assert with_run_script(base, without, workspace, settings()) == base


def test_the_tool_never_raises_and_describes_itself_without_the_skill(
    tmp_path: Path, workspace: Workspace
) -> None:
    bundle = make_bundle(tmp_path, {"scripts/x.py": "print(1)\n"})
    tool = run_script_tool(bundle, workspace, settings())
    assert tool.schema == SCHEMA and tool.description == DESCRIPTION
    assert "skill s" not in DESCRIPTION.lower()
    assert tool.call({}) == "refused: run_script needs path (missing: path)"
    assert tool.call({"path": "scripts/x.py", "args": ["a"]}).startswith("exit code: 0")


def test_process_cwd_is_the_workspace(tmp_path: Path, workspace: Workspace) -> None:
    bundle = make_bundle(tmp_path, {"scripts/cwd.py": "import os; print(os.getcwd())\n"})
    said = run_script(bundle, workspace, settings(), "scripts/cwd.py", None)
    assert said.splitlines()[2] == str(workspace.root)
    assert os.getcwd() != str(workspace.root)
