"""The OS sandbox around a bundled script: which backend works here, and how it wraps argv.

The decision is made once per process (the probe is cached), before any case
runs: ``auto`` uses a backend when the probe finds one that works, ``required``
turns "none works" into exit 2 (see :mod:`..plugin.configure`), ``off`` never
probes. A backend is *executed* to be believed, not merely found on ``PATH``:
bubblewrap may be installed on a kernel that refuses unprivileged user
namespaces, and the first line of that refusal is what the report shows.

Backends:

* Linux, ``bwrap``: the host read-only, a fresh ``/dev`` and ``/proc``, an empty
  read-only tmpfs over the system temporary directory (sibling workspaces vanish)
  with the workspace and the scratch directory bound writable and the bundle
  read-only, no network, a PID namespace of its own, killed with its parent.
* macOS, ``sandbox-exec``: a profile that allows everything, then denies network
  and writes, re-allows writes to the workspace and scratch, denies reads under the
  temporary directory and re-allows the three areas. Not exercised by this
  project's tests (they run on Linux); see docs/scripts.md.
* anything else: none; the portable guards of :mod:`.scripts` still apply.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Backend = Literal["bwrap", "sandbox-exec", "none"]
PROBE_TIMEOUT = 10.0  # seconds; a probe that hangs is a backend that does not work
SANDBOX_EXEC = "/usr/bin/sandbox-exec"
HARDENING = "harness environment hidden from same-user processes (PR_SET_DUMPABLE)"
_PR_SET_DUMPABLE = 4


@dataclass(frozen=True)
class SandboxDecision:
    """The run's one sandbox decision: the backend (with its executable) or why there is none."""

    backend: Backend
    executable: str | None = None
    detail: str | None = None  # why the backend is none

    @property
    def label(self) -> str:
        """``bwrap``, or ``none (<why>)``: what the report's ``sandbox:`` says."""
        if self.backend == "none" and self.detail:
            return f"none ({self.detail})"
        return self.backend


def system_temp_dir() -> Path:
    """The system temporary directory, resolved (macOS's /var is a link to /private/var)."""
    return Path(tempfile.gettempdir()).resolve()


def decide(mode: str) -> SandboxDecision:
    """The sandbox for ``script_sandbox = mode``, probed at most once per process."""
    if mode == "off":
        return SandboxDecision("none", detail='script_sandbox = "off"')
    return _probe(sys.platform, os.environ.get("PATH", os.defpath), str(system_temp_dir()))


@functools.lru_cache(maxsize=8)
def _probe(platform: str, path: str, temp_dir: str) -> SandboxDecision:
    """Execute the platform's backend once; cached on what could change its answer."""
    if platform == "darwin":
        return _probe_sandbox_exec(temp_dir)
    if platform.startswith("linux"):
        return _probe_bwrap(path, temp_dir)
    if platform == "win32":
        return SandboxDecision("none", detail="no sandbox backend on Windows")
    return SandboxDecision("none", detail=f"no sandbox backend on {platform}")


def _probe_bwrap(path: str, temp_dir: str) -> SandboxDecision:
    executable = shutil.which("bwrap", path=path)
    if executable is None:
        return SandboxDecision("none", detail="bwrap not found on PATH")
    # The tmpfs and its read-only remount are in the probe because every script call
    # needs both: a bwrap too old for either fails here, not on every script.
    argv = [
        executable,
        *("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"),
        *("--tmpfs", temp_dir, "--remount-ro", temp_dir),
        *("--unshare-net", "--unshare-pid", "--die-with-parent", "--", "/bin/true"),
    ]
    problem = _run_probe("bwrap", argv)
    if problem is not None:
        return SandboxDecision("none", detail=problem)
    return SandboxDecision("bwrap", executable=executable)


def _probe_sandbox_exec(temp_dir: str) -> SandboxDecision:  # pragma: no cover - macOS only
    if '"' in temp_dir:
        # A profile string cannot hold it safely; fail closed rather than guess an escape.
        return SandboxDecision(
            "none", detail=f"the temporary directory {temp_dir} contains a double quote"
        )
    if not os.path.exists(SANDBOX_EXEC):
        return SandboxDecision("none", detail="sandbox-exec not found")
    argv = [SANDBOX_EXEC, "-p", "(version 1)(allow default)(deny network*)", "/usr/bin/true"]
    problem = _run_probe("sandbox-exec", argv)
    if problem is not None:
        return SandboxDecision("none", detail=problem)
    return SandboxDecision("sandbox-exec", executable=SANDBOX_EXEC)


def _run_probe(name: str, argv: list[str]) -> str | None:
    """``None`` when the probe ran and exited 0, else the first line of why not."""
    try:
        done = subprocess.run(  # a fixed argv, no shell
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"{name} probe did not finish in {PROBE_TIMEOUT:g} s"
    except OSError as exc:
        return f"{name} cannot start: {exc.strerror or exc}"
    if done.returncode == 0:
        return None
    for line in done.stderr.decode("utf-8", errors="replace").splitlines():
        if line.strip():
            return line.strip()
    return f"{name} probe exited with {done.returncode}"


# -- wrapping one call ---------------------------------------------------------------------


class CannotWrap(Exception):
    """The call cannot be put inside the backend safely; the message says why."""


def wrap(
    decision: SandboxDecision,
    argv: list[str],
    *,
    workspace: Path,
    scratch: Path,
    bundle: Path,
    temp_dir: Path | None = None,
) -> list[str]:
    """``argv`` inside the decided backend (unchanged for none)."""
    temp = temp_dir if temp_dir is not None else system_temp_dir()
    if decision.backend != "none" and argv:
        argv = [visible_executable(argv[0], temp), *argv[1:]]
    if decision.backend == "bwrap" and decision.executable:
        return bwrap_argv(
            decision.executable,
            argv,
            workspace=workspace,
            scratch=scratch,
            bundle=bundle,
            temp=temp,
        )
    if decision.backend == "sandbox-exec" and decision.executable:
        profile = sandbox_exec_profile(
            workspace=workspace, scratch=scratch, bundle=bundle, temp=temp
        )
        return [decision.executable, "-p", profile, *argv]
    return list(argv)


def visible_executable(path: str, temp: Path) -> str:
    """``path``, or the file its links lead to when only that is visible in the sandbox.

    Both backends hide the temporary directory, so an interpreter found there (a
    virtual environment created under /tmp, as a CI job's checkout often is) could
    not start. A venv's ``python3`` is a link to the base interpreter outside it;
    that file runs the script instead, without the venv's packages, which the
    sandbox would hide anyway. An interpreter that really lives under the
    temporary directory stays hidden, and the call says it cannot start.
    """
    link = Path(path)
    if not _is_under(link.parent.resolve(), temp):
        return path
    real = link.resolve()
    return str(real) if not _is_under(real, temp) else path


def _is_under(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def bwrap_argv(
    executable: str,
    argv: list[str],
    *,
    workspace: Path,
    scratch: Path,
    bundle: Path,
    temp: Path,
) -> list[str]:
    """The bwrap command line for one script call (the mount layout of docs/scripts.md).

    The order matters: the tmpfs hides everything under the temporary directory, the
    binds put the three areas back, and the remount makes the tmpfs itself read-only
    (it is not recursive, so the binds keep their own modes).
    """
    ws, sc, bd, tmp = (str(p) for p in (workspace, scratch, bundle, temp))
    return [
        executable,
        *("--ro-bind", "/", "/"),
        *("--dev", "/dev"),
        *("--proc", "/proc"),
        *("--tmpfs", tmp),
        *("--bind", ws, ws),
        *("--bind", sc, sc),
        *("--ro-bind", bd, bd),
        *("--remount-ro", tmp),
        *("--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"),
        *("--chdir", ws),
        "--",
        *argv,
    ]


def sandbox_exec_profile(*, workspace: Path, scratch: Path, bundle: Path, temp: Path) -> str:
    """The macOS profile for one call; later rules win. Untested here (Linux CI).

    The directories between the temporary directory and each area keep their
    metadata readable (a ``mkdir -p`` stats every parent), never their listing.
    """
    areas = [workspace, scratch, bundle]
    for path in [temp, *areas]:
        if '"' in str(path) or "\\" in str(path):
            raise CannotWrap(f"the path {path} cannot be written into a sandbox-exec profile")
    parents: set[str] = set()
    for area in areas:
        if area.is_relative_to(temp):
            step = area.parent
            while step != temp and step.is_relative_to(temp):
                parents.add(str(step))
                step = step.parent
            parents.add(str(temp))
    metadata = "".join(f' (literal "{p}")' for p in sorted(parents))
    lines = [
        "(version 1)",
        "(allow default)",
        "(deny network*)",
        "(deny file-write*)",
        f'(allow file-write* (subpath "{workspace}") (subpath "{scratch}"))',
        '(allow file-write-data (literal "/dev/null"))',
        f'(deny file-read* (subpath "{temp}"))',
        f'(allow file-read* (subpath "{workspace}") (subpath "{scratch}") (subpath "{bundle}"))',
    ]
    if metadata:
        lines.append(f"(allow file-read-metadata{metadata})")
    return "\n".join(lines)


# -- the harness itself ---------------------------------------------------------------------


def hide_harness_environment() -> str | None:
    """Mark this process non-dumpable on Linux; the report's hardening note, or ``None``.

    A script runs as the same user as the harness, and a same-user process can read
    another's environment block through /proc/<pid>/environ, which holds the provider
    key for the whole run. Non-dumpable makes /proc/<pid>/* root-owned, so that read is
    refused. Root ignores it, so under root no note is given. Best effort: never raises.
    """
    if not sys.platform.startswith("linux"):
        return None
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 and os.geteuid() != 0:
            return HARDENING
    return None
