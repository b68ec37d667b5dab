"""One bubblewrap command line, built from a :class:`Layout`, and the probe that believes it.

A bundled script (:mod:`.script_sandbox`) and a product (:mod:`.product_sandbox`) differ
only in their layout: which directory an empty tmpfs hides, what is bound back writable
or read-only, whether the network stays, which working directory. Everything else is
this module's, once: the host read-only, a fresh ``/dev``, ``/proc`` read-only, and the
confinement of :func:`isolation` (a user namespace of its own as uid and gid 65534 with
no capability, which may not make another; its own IPC and PID namespaces; killed with
its parent, in a session of its own).

A backend is *executed* to be believed, not merely found on ``PATH``: bubblewrap may be
installed on a kernel that refuses unprivileged user namespaces, and the first line of
that refusal is what the report shows. :func:`probe` runs the very command line a start
gets around ``/bin/true``, in directories of its own.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..process.leftovers import owner_mark, remove_tree
from ..process.temp_parent import make_dir

PROBE_TIMEOUT = 10.0  # seconds; a probe that hangs is a backend that does not work
SANDBOX_ID = 65534  # the uid and gid a sandboxed process has, whoever runs the harness
NO_NESTED_USERNS = "--disable-userns"  # bwrap 0.8+, and not in setuid mode
NESTED_USERNS_ALLOWED = "nested user namespaces allowed"
DIE_WITH_PARENT = "--die-with-parent"


def dies_with_parent(flags: Sequence[str]) -> bool:
    """Whether a start with these isolation flags is killed with the process that started it
    (bwrap arms the parent-death signal itself, outer process and sandbox alike)."""
    return DIE_WITH_PARENT in flags


def isolation(*, network: bool) -> tuple[str, ...]:
    """What confines a sandboxed process beyond its mounts; every start and its probe carry it.

    --cap-drop ALL: as root, bwrap keeps every capability by default (mount, umount,
    ptrace...); --unshare-user puts what is left in a namespace that owns nothing on the
    host, so inherited mounts are locked; --disable-userns stops the process from making a
    nested one to regain capabilities there; --unshare-ipc hides the host's SysV IPC.
    ``network`` keeps the host's network (a product must reach its provider).
    """
    return (
        *("--unshare-user", NO_NESTED_USERNS, "--uid", str(SANDBOX_ID), "--gid", str(SANDBOX_ID)),
        *("--cap-drop", "ALL", "--unshare-ipc"),
        *(() if network else ("--unshare-net",)),
        *("--unshare-pid", DIE_WITH_PARENT, "--new-session"),
    )


@dataclass(frozen=True)
class Layout:
    """What one sandboxed start sees beyond the read-only host, and where it starts.

    ``hidden`` gets an empty tmpfs, and so does each of ``also_hidden``; the binds then
    put back ``writable`` (read-write), ``read_only`` and ``read_only_if_present``
    (``--ro-bind-try``: a path that is gone is skipped, never a failed start), in that
    order, so a read-only path inside a writable one stays read-only. Last the tmpfs
    mounts are made read-only themselves (a remount is not recursive, so the binds keep
    their own modes).
    """

    cwd: Path
    hidden: Path
    writable: Sequence[Path] = ()
    read_only: Sequence[Path] = ()
    read_only_if_present: Sequence[Path] = ()
    also_hidden: Sequence[str] = ()
    network: bool = False

    @property
    def isolation(self) -> tuple[str, ...]:
        return isolation(network=self.network)


def bwrap_command(
    executable: str,
    layout: Layout,
    argv: Sequence[str],
    flags: tuple[str, ...] | None = None,
) -> list[str]:
    """``argv`` inside bwrap as ``layout`` says; ``flags`` are the probe's (default: the
    layout's full :func:`isolation`).

    ``/proc`` is remounted read-only because uid 0 needs no capability to write the
    host's sysctls (``kernel.core_pattern`` names a program the kernel runs as root): the
    kernel checks the file mode against uid 0 of the caller, and a root harness's child
    is that uid on the host, whatever the namespace calls it.
    """
    hidden = str(layout.hidden)
    return [
        executable,
        *("--ro-bind", "/", "/"),
        *("--dev", "/dev"),
        *("--proc", "/proc"),
        *(arg for path in layout.also_hidden for arg in ("--tmpfs", path)),
        *("--tmpfs", hidden),
        *_binds("--bind", layout.writable),
        *_binds("--ro-bind", layout.read_only),
        *_binds("--ro-bind-try", layout.read_only_if_present),
        *("--remount-ro", hidden),
        *("--remount-ro", "/proc"),
        *(arg for path in layout.also_hidden for arg in ("--remount-ro", path)),
        *(layout.isolation if flags is None else flags),
        *("--chdir", str(layout.cwd)),
        "--",
        *argv,
    ]


def _binds(flag: str, paths: Sequence[Path]) -> list[str]:
    return [arg for path in paths for arg in (flag, str(path), str(path))]


# -- the probe -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbeFinding:
    """The bwrap that ran and the flags it ran with (``None``: none did), and what the
    report should say."""

    isolation: tuple[str, ...] | None
    detail: str | None = None
    executable: str | None = None


def probe(
    path: str, temp: Path, network: bool, layout_in: Callable[[Path], Layout]
) -> ProbeFinding:
    """Find bwrap on ``path`` and run ``/bin/true`` under the layout ``layout_in`` makes in
    a fresh directory under ``temp`` (removed after), as every start would run."""
    executable = shutil.which("bwrap", path=path)
    if executable is None:
        return ProbeFinding(None, "bwrap not found on PATH")

    def run(flags: tuple[str, ...]) -> str | None:
        try:
            base = make_dir("skill-lens-probe-", owner_mark(), temp)
        except OSError as exc:
            return f"cannot create the bwrap probe's directory under {temp}: {exc.strerror or exc}"
        try:
            command = bwrap_command(executable, layout_in(base), ["/bin/true"], flags)
            return run_probe("bwrap", command)
        finally:
            remove_tree(base)

    found = probe_isolation(run, isolation(network=network))
    if found.isolation is None:
        return found
    return ProbeFinding(found.isolation, found.detail, executable)


def probe_isolation(
    run: Callable[[tuple[str, ...]], str | None], flags: tuple[str, ...]
) -> ProbeFinding:
    """Run a probe with ``flags``; retried once without a nested-namespace refusal.

    ``run`` returns ``None`` when the probe ran, else the first line of why not. An
    older or setuid bwrap refuses only that one flag: the rest still holds, and is
    better than no sandbox at all; the detail says what is missing.
    """
    problem = run(flags)
    if problem is None:
        return ProbeFinding(flags)
    if NO_NESTED_USERNS not in problem:
        return ProbeFinding(None, problem)
    relaxed = tuple(flag for flag in flags if flag != NO_NESTED_USERNS)
    second = run(relaxed)
    if second is not None:
        return ProbeFinding(None, second)
    return ProbeFinding(relaxed, f"{NESTED_USERNS_ALLOWED}: {problem}")


def run_probe(name: str, argv: list[str]) -> str | None:
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
