"""Copilot's package cache: unpacked once per process, then shared read-only by every call.

The ``copilot`` executable carries its JavaScript package inside one binary and unpacks
it (about 235 MB) into ``$COPILOT_PKG_CACHE_HOME/pkg`` on a start that finds no complete
copy there; without that variable the copy goes under ``XDG_CACHE_HOME``. Home isolation
gives every call a fresh, empty home, so every call (and the preflight's ``--version``)
would unpack it again: about 1.5 s per start on a fast disk. Instead the first isolated
start of an executable in this process fills one directory, by running that executable's
``--version`` with the variable pointing there (under the run's product sandbox, the
directory writable), and every later isolated call of it names that directory.

Once filled, the directory is shared with the product sandbox as read-only
(:func:`..sandbox.product_sandbox.share_read_only`): under bwrap no case's product can change the
package the next case runs. Without bwrap the product could write there, as it can write
anything the user can (the home-isolation trust sentence says so).

One cache per process and per executable (resolved through its links); the in-process
runs of one process (``pytester``) share it. Under pytest-xdist the controller's preflight
fills it, and the controller lends its fills to the workers it started on this machine
(:meth:`PackageCaches.lend`, :meth:`PackageCaches.adopt`): a worker uses the controller's
directory read-only and never removes it, so a run unpacks the package once, not once per
worker. A worker given none fills its own, and no lock crosses processes. A cache lives
in the skill-lens parent of the system temp directory (:mod:`..process.temp_parent`), marked
with the process that filled it, removed at its exit (or swept by the next run if that
process was killed, :mod:`..process.leftovers`). A fill that fails leaves nothing behind and
is not retried: the calls then unpack into their own homes, as they would without this
cache, and fail there honestly if the package is broken.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..sandbox.product_sandbox import ProductSandbox, share_read_only, unshare
from ..workspace.containment import why
from .copilot import PACKAGE_VARIABLE
from .env import ENV_ALLOWLIST, home_env, make_home
from .process import RunDir, RunDirFailed, StartFailed, run_dir, start_version, wait_removed

VARIABLE = PACKAGE_VARIABLE
CACHE = "cache"  # the directory inside the fill's run directory that the variable names
FILL_TIMEOUT = 120.0  # seconds; unpacking takes about 1.5 s on a fast disk
_OUTPUT_BYTES = 4_000


@dataclass(frozen=True)
class Fill:
    """What filling the cache for one executable came to: the directory, or why not."""

    directory: Path | None
    problem: str | None = None


class PackageCaches:
    """Copilot package caches of this process, one per executable, each filled once.

    Thread-safe: cases run on threads, and the first ones to start wait for the one fill
    (bounded by ``timeout``) instead of unpacking beside it.
    """

    def __init__(self, *, timeout: float = FILL_TIMEOUT) -> None:
        self._timeout = timeout
        self._reset()

    def _own(self) -> None:
        """Start afresh in a forked child, which must not share the parent's state."""
        if os.getpid() != self._owner:
            self._reset()

    def _reset(self) -> None:
        # A forked child gets fresh state: the parent's lock may be held by a thread that
        # does not exist in the child, and the parent's directories are not the child's.
        self._owner = os.getpid()
        self._lock = threading.Lock()
        self._fills: dict[str, Fill] = {}
        self._open: list[contextlib.ExitStack] = []

    def directory(
        self, executable: str, env: Mapping[str, str], sandbox: ProductSandbox | None
    ) -> Path | None:
        """The filled cache for ``executable`` (a path found on ``PATH``), filled on first
        use with ``env``'s search path and locale under ``sandbox`` (the run's product
        sandbox decision); ``None`` when the fill failed."""
        return self.fill(executable, env, sandbox).directory

    def fill(self, executable: str, env: Mapping[str, str], sandbox: ProductSandbox | None) -> Fill:
        """The fill for ``executable``, made now if this process has none yet; never raises."""
        self._own()
        key = os.path.realpath(executable)
        with self._lock:
            found = self._fills.get(key)
            if found is None:
                try:
                    found = self._fill(executable, env, sandbox)
                except Exception as exc:  # a cache is an optimisation: never a failed call
                    found = Fill(None, f"{type(exc).__name__}: {exc}")
                self._fills[key] = found
            return found

    def lend(self) -> dict[str, str]:
        """This process's filled directories by resolved executable, for its xdist workers."""
        with self._lock:
            return {key: str(f.directory) for key, f in self._fills.items() if f.directory}

    def adopt(self, lent: Mapping[str, str]) -> None:
        """Use the directories another process of this run filled (:meth:`lend`), read-only.

        They stay that process's: this one never removes them. A directory that holds no
        package (the lender's fill was cleaned up) is left out, and this process fills its
        own on first use.
        """
        self._own()
        with self._lock:
            for key, directory in lent.items():
                path = Path(directory)
                if key in self._fills or not path.is_absolute() or not _holds_package(path):
                    continue
                self._fills[key] = Fill(path)
                share_read_only(path)

    def filled(self) -> dict[str, Fill]:
        """Every fill of this process so far, by resolved executable."""
        with self._lock:
            return dict(self._fills)

    def close(self) -> None:
        """Remove every cache this process filled (a forked child removes none of them);
        an adopted one is only let go."""
        if os.getpid() != self._owner:
            return
        with self._lock:
            for fill in self._fills.values():
                if fill.directory is not None:
                    unshare(fill.directory)
            self._fills.clear()
            opened, self._open = self._open, []
        for stack in opened:
            stack.close()
        if opened:
            wait_removed()  # at the session's end: gone when close returns, as it promises

    def _fill(
        self, executable: str, env: Mapping[str, str], sandbox: ProductSandbox | None
    ) -> Fill:
        stack = contextlib.ExitStack()
        try:
            run = stack.enter_context(run_dir("copilot-package", sandbox=sandbox))
        except RunDirFailed as exc:
            return Fill(None, f"cannot make the package cache: {exc}")
        cache = run.root / CACHE
        problem = _unpack(executable, env, run, cache, self._timeout)
        if problem is not None:
            stack.close()  # a partial copy is 235 MB of nothing: free it now
            return Fill(None, problem)
        self._open.append(stack)
        share_read_only(cache)
        return Fill(cache)


def _unpack(
    executable: str, env: Mapping[str, str], run: RunDir, cache: Path, timeout: float
) -> str | None:
    """Run ``executable --version`` with the cache writable; why it did not fill, or ``None``.

    The start is the preflight's: under ``run``'s product sandbox, where the cache (inside
    the fill's own run directory) is writable, with only the search path and the locale.
    """
    try:
        cache.mkdir(mode=0o700)
        make_home(run.home)
    except OSError as exc:
        return f"cannot prepare {cache}: {why(exc)}"
    fill_env = {name: env[name] for name in ENV_ALLOWLIST if name in env}
    fill_env.update(home_env(run.home))
    fill_env[VARIABLE] = str(cache)
    try:
        ran = start_version(
            executable, run, fill_env, timeout=timeout, max_output_bytes=_OUTPUT_BYTES
        )
    except (StartFailed, RunDirFailed) as exc:
        return f"{executable!r} could not be started: {exc}"
    finished = ran.finished
    if finished.timed_out:
        return f"'{executable} --version' did not finish within {timeout:g} s"
    if finished.exit_code != 0:
        stderr = finished.stderr.data.decode("utf-8", errors="replace").strip()[-300:]
        ends = f"; stderr ends: {stderr}" if stderr else ""
        return f"'{executable} --version' exited with code {finished.exit_code}{ends}"
    if not _holds_package(cache):
        return f"'{executable} --version' unpacked nothing into {VARIABLE}"
    return None


def _holds_package(cache: Path) -> bool:
    """Whether the product put its package where the variable points (``pkg/`` not empty).

    Only that much is checked: Copilot checks its own copy for completeness on every
    start, and a copy it finds incomplete is one it unpacks again (or, read-only under
    bwrap, refuses to run with: an errored call, never a pass).
    """
    try:
        with os.scandir(cache / "pkg") as entries:
            return any(True for _ in entries)
    except OSError:
        return False


CACHES = PackageCaches()
atexit.register(CACHES.close)


def fill_note(executable: str) -> str | None:
    """Why this process's fill for ``executable`` failed, for the run's products line;
    ``None`` when it filled, or was never tried."""
    fill = CACHES.filled().get(os.path.realpath(executable))
    if fill is None or fill.directory is not None:
        return None
    return (
        f"its package cache could not be filled ({fill.problem}), so every call unpacks "
        "the package into its own home (about 1.5 s more a call)"
    )


def package_directory(
    executable: str, env: Mapping[str, str], sandbox: ProductSandbox | None
) -> Path | None:
    """The process's filled cache for ``executable``, for the preset's shared directory."""
    return CACHES.directory(executable, env, sandbox)
