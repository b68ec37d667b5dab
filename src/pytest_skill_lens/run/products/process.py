"""One start of a product: its own temporary directories, the shared process layer, cleanup.

Every call gets a fresh directory (``skill-lens-<product>-...``, marked with this
process so a later run sweeps it if this one dies, see :mod:`..process.leftovers`) holding
the trace and stderr files, the temporary home under home isolation, and the
working directory when the case has no workspace. It is deleted when the call
ends, ``--skill-lens-keep-workspace`` or not: the home may hold what the product
wrote about its own login. The deletion is handed to one thread of the process
(:class:`_Remover`), off the case's path: a product's fresh home can take 30-250 ms to
delete (Codex's SQLite files and the skills it installs), and the session's end waits
for every pending one (:func:`wait_removed`).

Under the run's product sandbox, which every :class:`RunDir` carries, the start is
wrapped (:func:`wrap_argv`). The process itself is started by
:func:`..process.start.run_process`, the one implementation the bundled scripts use too:
its own process group, stdin from ``/dev/null``, a timed wait, the whole group killed
after every exit, each stream read from a pipe and the product stopped the moment one
passes ``max_output_bytes``, and (on Linux) the product killed if the harness dies.

The product's environment names its run directory (:data:`..process.leftovers.RUN_DIR_VARIABLE`),
so what it left running is found and killed before the directory is removed: by the
remover when the call ends (a sandbox the group kill missed, see :mod:`..process.leftovers`),
by the next run's sweep when the harness was killed.
"""

from __future__ import annotations

import atexit
import dataclasses
import queue
import shutil
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..process.leftovers import PREFIX, RUN_DIR_VARIABLE, owner_mark, remove_marked
from ..process.start import Captured, Finished, StartFailed, run_process
from ..process.temp_parent import make_dir, parent_of
from ..sandbox.bwrap import dies_with_parent
from ..sandbox.product_sandbox import ProductSandbox, wrap
from ..workspace.containment import why
from ..workspace.workspace import workspace_label

__all__ = [
    "Finished",
    "RunDir",
    "StartFailed",
    "run_dir",
    "start",
    "wait_removed",
    "wrap_argv",
    "wraps",
]


@dataclass(frozen=True)
class RunDir:
    """The directories of one run call (all under one temporary directory), and the run's
    product sandbox decision every start in them is wrapped by (``None``: no sandbox)."""

    root: Path
    home: Path
    work: Path  # the working directory used when the case has no workspace
    sandbox: ProductSandbox | None


class RunDirFailed(Exception):
    """The temporary directories could not be made; the message says why."""


@contextmanager
def run_dir(product: str, *, sandbox: ProductSandbox | None) -> Iterator[RunDir]:
    """A fresh :class:`RunDir` whose starts run under ``sandbox``, removed (never through a
    link) when the block ends."""
    base = parent_of()
    try:
        root = make_dir(f"{PREFIX}{workspace_label(product)}-", owner_mark())
    except (OSError, RuntimeError) as exc:
        raise RunDirFailed(f"cannot create a directory under {base}: {why(exc)}") from None
    try:
        home, work = root / "home", root / "work"
        try:
            for directory in (home, work):
                directory.mkdir(mode=0o700)
        except OSError as exc:
            raise RunDirFailed(f"cannot prepare {root}: {why(exc)}") from None
        yield RunDir(root, home, work, sandbox)
    finally:
        _REMOVER.remove(root)


class _Remover:
    """Deletes the calls' directories in order, on one daemon thread started on first use.

    Whatever the product left running that its process group's kill missed is killed
    first (:func:`..process.leftovers.remove_marked`), so nothing writes there any more;
    the directory stays hidden from other products (it is in the skill-lens parent) until
    it is gone, and a process killed before then leaves it to the next run's sweep (its
    owner mark).
    """

    def __init__(self) -> None:
        self._queue: queue.Queue[Path] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def remove(self, path: Path) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._work, name="skill-lens-remover", daemon=True
                )
                self._thread.start()
        self._queue.put(path)

    def _work(self) -> None:
        while True:
            path = self._queue.get()
            try:
                remove_marked(path)  # never raises
            finally:
                self._queue.task_done()

    def wait(self) -> None:
        self._queue.join()


_REMOVER = _Remover()
atexit.register(_REMOVER.wait)  # a daemon thread is not waited for at exit


def wait_removed() -> None:
    """Return once every call's directory handed over so far is deleted."""
    _REMOVER.wait()


def wrap_argv(
    argv: Sequence[str], run: RunDir, cwd: Path, env: Mapping[str, str] | None = None
) -> list[str]:
    """``argv`` inside ``run``'s product sandbox (:mod:`..sandbox.product_sandbox`), if one applies.

    Writable: ``cwd`` and ``run``'s directory (the temporary home, the MCP bridge's
    files). Home isolation is the sandbox's precondition, so a start whose ``env``
    keeps the real home (``product_sandbox = "off"``) is never wrapped. The executable
    is looked up first, so a missing one is :class:`StartFailed` as it is unwrapped,
    not an exit of bwrap's that would read as a product that ran.
    """
    if not argv or not wraps(run, env):
        return list(argv)
    decision = run.sandbox
    assert decision is not None
    found = shutil.which(argv[0], path=env.get("PATH") if env is not None else None)
    if found is None:
        raise StartFailed(f"{argv[0]}: not found on PATH")
    return wrap(decision, [found, *argv[1:]], cwd=cwd, writable=[run.root])


def wraps(run: RunDir, env: Mapping[str, str] | None = None) -> bool:
    """Whether a start in ``run`` with ``env`` runs inside ``run``'s product sandbox."""
    decision = run.sandbox
    if decision is None or decision.backend == "none":
        return False
    return env is None or env.get("HOME") == str(run.home)


def _dies_with_parent(run: RunDir, env: Mapping[str, str]) -> bool:
    """Whether the start runs under a bwrap that arms the parent-death signal itself
    (``--die-with-parent``), so the harness need not (see :mod:`..process.start`)."""
    decision = run.sandbox
    return wraps(run, env) and decision is not None and dies_with_parent(decision.isolation)


@dataclass(frozen=True)
class Ran:
    """A started product's end, and how long it took from start to end."""

    finished: Finished
    latency_ms: float


def start(
    argv: Sequence[str],
    *,
    run: RunDir,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    max_output_bytes: int,
) -> Ran:
    """Run the product to its end or its timeout. Raises :class:`StartFailed` when it
    cannot be started (a missing executable, say); once started it always returns."""
    began = time.perf_counter()
    finished = run_process(
        wrap_argv(argv, run, cwd, env),
        cwd=cwd,
        env={**env, RUN_DIR_VARIABLE: str(run.root)},
        timeout=timeout,
        max_output_bytes=max_output_bytes,
        arm_death_signal=not _dies_with_parent(run, env),
    )
    return Ran(_said_why(finished, max_output_bytes), (time.perf_counter() - began) * 1000)


def _said_why(finished: Finished, cap: int) -> Finished:
    """``finished``, with a stop for stderr over the cap said at the end of stderr, where
    every reader quotes it (stdout over the cap is a cut trace, which they name)."""
    if finished.over_cap != "stderr":
        return finished
    note = f"\n[skill-lens stopped the product: its stderr passed max_output_bytes ({cap:,} bytes)]"
    stderr = finished.stderr
    return dataclasses.replace(
        finished, stderr=Captured(stderr.data + note.encode(), stderr.omitted, stderr.stopped)
    )


def start_version(
    executable: str, run: RunDir, env: Mapping[str, str], *, timeout: float, max_output_bytes: int
) -> Ran:
    """``executable --version`` in ``run``'s working directory (the preflight's probe, the
    package cache's fill); raises :class:`StartFailed` as :func:`start` does."""
    argv = [executable, "--version"]
    return start(
        argv, run=run, cwd=run.work, env=env, timeout=timeout, max_output_bytes=max_output_bytes
    )
