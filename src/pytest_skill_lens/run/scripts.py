"""The process layer of ``run_script``: start one program, bound it, kill what it left.

Nothing here knows about skills, bundles or sandboxes; :mod:`.script_tool` decides
*what* runs and :mod:`.sandbox` what wraps it. This module guarantees, for every
start:

* ``shell=False``: the argv is handed to the OS as a list, never joined into a line;
* standard input is ``/dev/null``;
* the environment is exactly the one given (build it with :func:`script_env`);
* the program leads a process group of its own, and the whole group is killed
  after every exit, a normal one as much as a timeout. Where ``os.waitid`` exists
  the exit is observed *without reaping* (``WNOWAIT``), the group is killed and only
  then is the leader reaped, so its pid (the group id) cannot have been recycled
  by the time the kill is sent;
* stdout and stderr go to files the caller names (in the scratch directory), opened
  before the start and read back through those same descriptors, capped, with the
  exact number of bytes omitted.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# What a script inherits from the harness's environment; nothing else reaches it.
ENV_ALLOWLIST = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
# Python does not start on Windows without these.
WINDOWS_ENV_ALLOWLIST = ("SystemRoot", "COMSPEC", "PATHEXT", "USERPROFILE")

_POLL_FIRST = 0.002  # seconds between exit checks where there is no pidfd; doubles up to:
_POLL_MAX = 0.05


class StartFailed(Exception):
    """The program could not be started; the message is the OS's (or Python's) reason."""


@dataclass(frozen=True)
class Captured:
    """One stream as read back: at most the cap, and how many bytes were left out."""

    data: bytes
    omitted: int

    def text(self) -> str:
        """The stream for the model: ``(empty)``, or its text with any cut stated."""
        if not self.data and not self.omitted:
            return "(empty)"
        body = self.data.decode("utf-8", errors="replace")
        if self.omitted:
            return f"{body}\n... [truncated, {self.omitted} bytes omitted]"
        return body.removesuffix("\n")


@dataclass(frozen=True)
class Finished:
    """How a program ended. ``exit_code`` is ``None`` when the timeout stopped it."""

    exit_code: int | None
    stdout: Captured
    stderr: Captured

    @property
    def timed_out(self) -> bool:
        return self.exit_code is None


def script_env(scratch: Path, source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a script gets: the allowlist copied from ``source``, plus fixed keys.

    Built up from nothing, so a provider key (``OPENAI_API_KEY``, ...) is absent by
    construction rather than by remembering to delete it.
    """
    source = os.environ if source is None else source
    names = ENV_ALLOWLIST + (WINDOWS_ENV_ALLOWLIST if sys.platform == "win32" else ())
    env = {name: source[name] for name in names if name in source}
    for name in ("TMPDIR", "TMP", "TEMP"):
        env[name] = str(scratch)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdout_path: Path,
    stderr_path: Path,
    timeout: float,
    max_output_bytes: int,
) -> Finished:
    """Run ``argv`` to its end (or the timeout) and return what it printed.

    Raises :class:`StartFailed` when the program cannot be started (a missing
    executable, a NUL byte in an argument, an output file that already exists).
    Once started, it always returns.
    """
    out_fd = err_fd = -1
    try:
        out_fd = _create(stdout_path)
        err_fd = _create(stderr_path)
        process = _start(argv, cwd, env, out_fd, err_fd)
        exit_code = _wait_then_kill_group(process, timeout)
        return Finished(
            exit_code,
            _read_capped(out_fd, max_output_bytes),
            _read_capped(err_fd, max_output_bytes),
        )
    finally:
        for fd in (out_fd, err_fd):
            if fd >= 0:
                os.close(fd)


def _create(path: Path) -> int:
    """A fresh file for one stream; O_EXCL and O_NOFOLLOW refuse anything planted there."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    try:
        return os.open(path, flags, 0o600)
    except OSError as exc:
        raise StartFailed(f"cannot create {path.name}: {exc.strerror or exc}") from None


def _start(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], out_fd: int, err_fd: int
) -> subprocess.Popen[bytes]:
    windows = sys.platform == "win32"
    try:
        return subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out_fd,
            stderr=err_fd,
            shell=False,  # argv as a list, never a shell line
            close_fds=True,
            # A session of its own makes the script lead a fresh process group (pgid =
            # pid) with no controlling terminal, so the group kill reaches what it started.
            start_new_session=not windows,
            creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0) if windows else 0,
        )
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StartFailed(reason) from None


def _wait_then_kill_group(process: subprocess.Popen[bytes], timeout: float) -> int | None:
    """The exit code (``None`` on timeout), with the group killed before the leader is reaped."""
    if sys.platform == "win32":  # pragma: no cover - not exercised by the test suite
        return _wait_windows(process, timeout)
    deadline = time.monotonic() + timeout
    if hasattr(os, "waitid") and hasattr(os, "WNOWAIT"):
        exited = _exited_unreaped(process.pid, deadline)
        _kill_group(process.pid)  # the leader is alive or a zombie: the group id is still ours
        code = process.wait()
        return code if exited else None
    # No waitid (macOS before Python 3.13): reap first, then kill. POSIX never hands
    # out a pid while a process group with that id exists, so the kill is still safe.
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        process.wait()
        return None
    _kill_group(process.pid)
    return code


def _exited_unreaped(pid: int, deadline: float) -> bool:
    """Whether ``pid`` exited before ``deadline``; it is left unreaped either way."""
    pidfd = _pidfd(pid)
    if pidfd is not None:
        try:
            poller = select.poll()
            poller.register(pidfd, select.POLLIN)
            remaining = max(0.0, deadline - time.monotonic())
            # A pidfd turns readable when the process exits; nothing is reaped.
            return bool(poller.poll(remaining * 1000))
        finally:
            os.close(pidfd)
    pause = _POLL_FIRST
    while True:
        if _has_exited(pid):
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(pause, remaining))
        pause = min(pause * 2, _POLL_MAX)


def _has_exited(pid: int) -> bool:
    try:
        found = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return found is not None


def _pidfd(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return int(opener(pid))
    except OSError:  # an older kernel: fall back to polling waitid
        return None


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _wait_windows(
    process: subprocess.Popen[bytes], timeout: float
) -> int | None:  # pragma: no cover - not exercised by the test suite
    """taskkill /T walks the tree from the parent: it covers the timeout, not orphans."""
    try:
        code: int | None = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["taskkill", "/T", "/F", "/PID", str(process.pid)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    process.wait()
    return code


def _read_capped(fd: int, cap: int) -> Captured:
    """At most ``cap`` bytes from the start of ``fd``, and the exact count left out.

    Read through the descriptor opened before the start, never by path, so a link
    or a FIFO the script put at that path changes nothing here.
    """
    try:
        size = os.fstat(fd).st_size
        os.lseek(fd, 0, os.SEEK_SET)
        chunks: list[bytes] = []
        wanted = min(size, cap)
        while wanted > 0:
            chunk = os.read(fd, wanted)
            if not chunk:
                break
            chunks.append(chunk)
            wanted -= len(chunk)
    except OSError:
        return Captured(b"", 0)
    data = b"".join(chunks)
    return Captured(data, max(0, size - len(data)))
