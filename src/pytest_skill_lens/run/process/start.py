"""The process layer of ``run_script`` and of every product start: start one program,
bound it, kill what it left.

Nothing here knows about skills, bundles or sandboxes; :mod:`..tools.script_tool` decides
*what* runs and :mod:`..sandbox.script_sandbox` what wraps it. This module guarantees, for every
start:

* ``shell=False``: the argv is handed to the OS as a list, never joined into a line;
* standard input is ``/dev/null``;
* the environment is exactly the one given (build it with :func:`script_env`);
* the program leads a process group of its own, and the whole group is killed
  after every exit, a normal one as much as a timeout. Where ``os.waitid`` exists
  the exit is observed *without reaping* (``WNOWAIT``), the group is killed and only
  then is the leader reaped, so its pid (the group id) cannot have been recycled
  by the time the kill is sent;
* stdout and stderr are pipes the harness reads as they fill (:mod:`.output_pipes`),
  keeping at most ``max_output_bytes`` of each: the moment either passes it, the
  group is killed (:attr:`Finished.over_cap`), so a flood is stopped at the cap, not
  at the timeout, and never reaches the disk;
* on Linux the program is killed when the harness dies (``PR_SET_PDEATHSIG``, set
  between fork and exec): the signal follows the *thread* that started it, and that
  thread waits here until the program has ended, so it never fires early. A caller
  whose program arms that signal itself (bwrap's ``--die-with-parent``) says so
  (``arm_death_signal=False``): a function run between fork and exec makes Python copy
  the whole harness with ``fork`` instead of ``vfork`` (6-7 ms a start with 150 MB
  resident, against 0.2 ms).
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .output_pipes import Captured, Stream, Streams

__all__ = ["Captured", "Finished", "StartFailed", "run_process", "script_env"]

# What a script inherits from the harness's environment; nothing else reaches it.
ENV_ALLOWLIST = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
# Python does not start on Windows without these.
WINDOWS_ENV_ALLOWLIST = ("SystemRoot", "COMSPEC", "PATHEXT", "USERPROFILE")

_POLL_FIRST = 0.002  # seconds between exit checks where there is no pidfd; doubles up to:
_POLL_MAX = 0.05
_PR_SET_PDEATHSIG = 1


class StartFailed(Exception):
    """The program could not be started; the message is the OS's (or Python's) reason."""


@dataclass(frozen=True)
class Finished:
    """How a program ended. ``exit_code`` is ``None`` when the timeout stopped it."""

    exit_code: int | None
    stdout: Captured
    stderr: Captured
    over_cap: Stream | None = None
    """The stream that passed ``max_output_bytes``: the program was stopped there."""

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
    timeout: float,
    max_output_bytes: int,
    arm_death_signal: bool = True,
) -> Finished:
    """Run ``argv`` to its end, its timeout or its output's cap, and return what it printed.

    Raises :class:`StartFailed` when the program cannot be started (a missing
    executable, a NUL byte in an argument). Once started, it always returns.
    """
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        try:
            process = _start(argv, cwd, env, out_write, err_write, arm_death_signal)
        finally:
            # The child has its own copies: the read ends see their end when it is gone.
            os.close(out_write)
            os.close(err_write)
        streams = Streams(out_read, err_read, max_output_bytes)
        exit_code = _wait_then_kill_group(process, timeout, streams)
        return Finished(
            exit_code, streams.captured(out_read), streams.captured(err_read), streams.over
        )
    finally:
        os.close(out_read)
        os.close(err_read)


def _start(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    out_fd: int,
    err_fd: int,
    arm_death_signal: bool,
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
            preexec_fn=_die_with_harness() if arm_death_signal else None,
            creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0) if windows else 0,
        )
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StartFailed(reason) from None


def _die_with_harness() -> Callable[[], None] | None:
    """What the child runs between fork and exec on Linux: SIGKILL when its parent dies.

    A harness killed by SIGKILL cannot stop what it started; without this an
    unsandboxed product would run on to its own end. If the harness died before the
    request took hold (the child then has another parent already), the child ends itself.
    Only a prepared C call runs in the child, nothing that could wait on a lock.
    """
    prctl = _prctl()
    if prctl is None:
        return None
    parent, kill = os.getpid(), int(signal.SIGKILL)

    def arm() -> None:
        prctl(_PR_SET_PDEATHSIG, kill, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), kill)

    return arm


@functools.cache
def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        function = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - every Linux libc has prctl
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    function.argtypes += [ctypes.c_ulong]
    function.restype = ctypes.c_int
    return function


def _wait_then_kill_group(
    process: subprocess.Popen[bytes], timeout: float, streams: Streams
) -> int | None:
    """The exit code (``None`` on timeout), with the group killed before the leader is reaped.

    The output is read all along; a stream past the cap ends the wait as an exit does.
    """
    if sys.platform == "win32":  # pragma: no cover - not exercised by the test suite
        return _wait_windows(process, timeout, streams)
    deadline = time.monotonic() + timeout
    unreaped = hasattr(os, "waitid") and hasattr(os, "WNOWAIT")
    try:
        ended = _watch(process, deadline, streams, unreaped)
    finally:
        # Also when the wait is interrupted (Ctrl-C): the program never outlives it.
        # The leader is alive or a zombie (unreaped), so the group id is still ours;
        # without waitid it may be reaped already, and POSIX never hands out a pid while
        # a process group with that id exists, so the kill is still safe.
        _kill_group(process.pid)
    code = process.wait()
    streams.drain()
    return code if ended or streams.over is not None else None


def _watch(
    process: subprocess.Popen[bytes], deadline: float, streams: Streams, unreaped: bool
) -> bool:
    """Read the output until the program exits (``True``), its output passes the cap or the
    deadline comes (``False``); the program is left unreaped where ``unreaped`` allows."""
    pidfd = open_pidfd(process.pid)
    poller = select.poll()
    for fd in streams.open:
        poller.register(fd, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)  # readable when the process exits
    pause = _POLL_FIRST
    try:
        while streams.over is None:
            if pidfd is None and _exited(process, unreaped):
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            wait = remaining if pidfd is not None else min(pause, remaining)
            events = poller.poll(math.ceil(wait * 1000))
            pause = min(pause * 2, _POLL_MAX) if not events else _POLL_FIRST
            for fd, _event in events:
                if fd == pidfd:
                    return True
                if not streams.pump(fd):
                    poller.unregister(fd)
        return False
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _exited(process: subprocess.Popen[bytes], unreaped: bool) -> bool:
    # No waitid (macOS before Python 3.13): poll() reaps, see _wait_then_kill_group.
    return _has_exited(process.pid) if unreaped else process.poll() is not None


def _has_exited(pid: int) -> bool:
    try:
        found = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return found is not None


def open_pidfd(pid: int) -> int | None:
    """A descriptor pinning process ``pid`` (readable once it exits), or ``None`` where the
    platform or the kernel has none or the process is gone. The caller closes it."""
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
    process: subprocess.Popen[bytes], timeout: float, streams: Streams
) -> int | None:  # pragma: no cover - not exercised by the test suite
    """No poll() on Windows pipes: a thread reads each; taskkill /T walks the tree from the
    parent, which covers the timeout and the cap, not orphans."""
    import threading

    def read(fd: int) -> None:
        os.set_blocking(fd, True)
        while streams.over is None and streams.pump(fd):
            pass

    readers = [threading.Thread(target=read, args=(fd,), daemon=True) for fd in streams.open]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + timeout
    code: int | None = None
    while streams.over is None and time.monotonic() < deadline:
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = process.wait(timeout=_POLL_MAX)
            break
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["taskkill", "/T", "/F", "/PID", str(process.pid)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    final = process.wait()
    for reader in readers:
        reader.join(1)
    return final if code is not None or streams.over is not None else None
