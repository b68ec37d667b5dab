"""The OS sandbox around a bundled script: which backend works here, and how it wraps argv.

The decision is made once per process (the probe is cached), before any case
runs: ``auto`` uses a backend when the probe finds one that works, ``required``
turns "none works" into exit 2 (see :mod:`...plugin.preflight`), ``off`` never
probes. A backend is *executed* to be believed, not merely found on ``PATH``:
bubblewrap may be installed on a kernel that refuses unprivileged user
namespaces, and the first line of that refusal is what the report shows.

Backends:

* Linux, ``bwrap``: the host read-only, a fresh ``/dev`` and ``/proc``, an empty
  read-only tmpfs over the system temporary directory (sibling workspaces vanish)
  with the workspace and the scratch directory bound writable and the bundle
  read-only; no capability at all (a root caller keeps every one unless told), in a
  user namespace of its own as uid and gid 65534, which may not make another; its
  own IPC, network and PID namespaces; killed with its parent. The command line is
  :mod:`.bwrap`'s, from this module's layout (:func:`script_layout`); the probe runs
  that very command line around ``/bin/true``.
* macOS, ``sandbox-exec``: a profile that allows everything, then denies network
  and writes, re-allows writes to the workspace and scratch, denies reads under the
  temporary directory and re-allows the three areas. Not exercised by this
  project's tests (they run on Linux); see docs/scripts.md.
* anything else: none; the portable guards of :mod:`..process.start` still apply.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..process.temp_parent import system_temp
from .bwrap import Layout, bwrap_command, isolation, probe, run_probe

Backend = Literal["bwrap", "sandbox-exec", "none"]
SANDBOX_EXEC = "/usr/bin/sandbox-exec"
HARDENING = "harness environment hidden from same-user processes (PR_SET_DUMPABLE)"
_PR_SET_DUMPABLE = 4
# A script's confinement: no network (bwrap.isolation says what each flag is for).
ISOLATION = isolation(network=False)


@dataclass(frozen=True)
class SandboxDecision:
    """The run's one sandbox decision: the backend (with its executable) or why there is none.

    ``isolation`` is the set of bwrap flags the probe showed to work, so a call uses
    exactly what was probed. ``detail`` says why the backend is none, or what a bwrap
    could not do (it cannot forbid nested user namespaces).
    """

    backend: Backend
    executable: str | None = None
    detail: str | None = None
    isolation: tuple[str, ...] = ISOLATION

    @property
    def label(self) -> str:
        """``bwrap``, or ``none (<why>)``: what the report's ``sandbox:`` says."""
        if self.backend == "none" and self.detail:
            return f"none ({self.detail})"
        return self.backend


def system_temp_dir() -> Path:
    """The system temporary directory, resolved (macOS's /var is a link to /private/var)."""
    return system_temp()


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
    found = probe(path, Path(temp_dir), False, _probe_layout(Path(temp_dir)))
    if found.isolation is None or found.executable is None:
        return SandboxDecision("none", detail=found.detail)
    return SandboxDecision(
        "bwrap", executable=found.executable, detail=found.detail, isolation=found.isolation
    )


def _probe_layout(temp: Path) -> Callable[[Path], Layout]:
    """A script call's layout in the probe's own directory (its three areas made there)."""

    def layout_in(base: Path) -> Layout:
        workspace, scratch, bundle = (base / name for name in ("workspace", "scratch", "bundle"))
        for area in (workspace, scratch, bundle):
            area.mkdir()
        return script_layout(workspace=workspace, scratch=scratch, bundle=bundle, temp=temp)

    return layout_in


def _probe_sandbox_exec(temp_dir: str) -> SandboxDecision:  # pragma: no cover - macOS only
    if '"' in temp_dir:
        # A profile string cannot hold it safely; fail closed rather than guess an escape.
        return SandboxDecision(
            "none", detail=f"the temporary directory {temp_dir} contains a double quote"
        )
    if not os.path.exists(SANDBOX_EXEC):
        return SandboxDecision("none", detail="sandbox-exec not found")
    argv = [SANDBOX_EXEC, "-p", "(version 1)(allow default)(deny network*)", "/usr/bin/true"]
    problem = run_probe("sandbox-exec", argv)
    if problem is not None:
        return SandboxDecision("none", detail=problem)
    return SandboxDecision("sandbox-exec", executable=SANDBOX_EXEC)


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
    hidden = runtime_dirs() if decision.backend == "bwrap" else ()
    if decision.backend != "none" and argv:
        argv = [visible_executable(argv[0], temp, *map(Path, hidden)), *argv[1:]]
    if decision.backend == "bwrap" and decision.executable:
        return bwrap_argv(
            decision.executable,
            argv,
            workspace=workspace,
            scratch=scratch,
            bundle=bundle,
            temp=temp,
            isolation=decision.isolation,
            hidden=hidden,
        )
    if decision.backend == "sandbox-exec" and decision.executable:
        profile = sandbox_exec_profile(
            workspace=workspace, scratch=scratch, bundle=bundle, temp=temp
        )
        return [decision.executable, "-p", profile, *argv]
    return list(argv)


def visible_executable(path: str, temp: Path, *also_hidden: Path) -> str:
    """``path``, or the file its links lead to when only that is visible in the sandbox.

    Both backends hide the temporary directory, so an interpreter found there (a
    virtual environment created under /tmp, as a CI job's checkout often is) could
    not start. A venv's ``python3`` is a link to the base interpreter outside it;
    that file runs the script instead, without the venv's packages, which the
    sandbox would hide anyway. An interpreter that really lives under the
    temporary directory stays hidden, and the call says it cannot start.
    ``also_hidden`` are more such directories (bwrap's ``/run``, where NixOS keeps
    links into its store on ``PATH``).
    """
    hidden = [temp, *(directory.resolve() for directory in also_hidden)]
    link = Path(path)
    if not any(_is_under(link.parent.resolve(), directory) for directory in hidden):
        return path
    real = link.resolve()
    return path if any(_is_under(real, directory) for directory in hidden) else str(real)


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
    isolation: tuple[str, ...] = ISOLATION,
    hidden: tuple[str, ...] | None = None,
) -> list[str]:
    """The bwrap command line for one script call (the layout of docs/scripts.md), with
    the flags the decision's probe ran with."""
    layout = script_layout(
        workspace=workspace, scratch=scratch, bundle=bundle, temp=temp, hidden=hidden
    )
    return bwrap_command(executable, layout, argv, isolation)


def script_layout(
    *,
    workspace: Path,
    scratch: Path,
    bundle: Path,
    temp: Path,
    hidden: tuple[str, ...] | None = None,
) -> Layout:
    """What a script sees: the temporary directory hidden (sibling workspaces vanish) but
    for its workspace and scratch directory, writable, and the bundle, read-only; no
    network; and ``hidden`` (default :func:`runtime_dirs`) each hidden as well."""
    return Layout(
        cwd=workspace,
        hidden=temp,
        writable=(workspace, scratch),
        read_only=(bundle,),
        also_hidden=runtime_dirs() if hidden is None else hidden,
    )


def runtime_dirs() -> tuple[str, ...]:
    """``/run`` and a ``/var/run`` that is not a link to it, where they exist.

    Daemons keep their sockets there (D-Bus, systemd, docker, containerd), and a
    socket on a read-only mount still accepts connections: one that trusts uid 0 would
    do a root harness's script's bidding. A missing directory is left out, since bwrap
    cannot create a mount point on the read-only root.
    """
    return tuple(
        path for path in ("/run", "/var/run") if os.path.isdir(path) and not os.path.islink(path)
    )


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
