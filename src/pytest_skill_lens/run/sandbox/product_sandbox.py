"""The product sandbox: the run's one decision about how a product is contained, and its wrap.

``product_sandbox`` is decided once per run, before any case, and only when a product
runner or a product judge is named (kept on the plugin's ``RunConfig``); every product
start (runner, judge, ``--version`` probe, template, package cache) is handed it, on the
call's ``RunDir`` (:mod:`..products.process`):

* ``off``: the whole environment and the real home; nothing is wrapped.
* ``auto``: home isolation (:mod:`..products.env`) and, where the once-per-run
  probe finds a bubblewrap that works, the product inside it; otherwise home
  isolation alone, and the report says why.
* ``required``: as ``auto``, but no working backend is exit 2 (plugin/preflight.py).

Under bwrap the product sees the host read-only, a fresh ``/dev`` and ``/proc``, and the
system temporary directory as it is, read-only, except the user's skill-lens parent
(:mod:`..process.temp_parent`: every case's workspace, run directory and bridge files, of every
session, those made after the start included), which is an empty tmpfs holding only its
working directory and its own run directory (the temporary home, the MCP bridge's files),
bound writable, and the directories shared by every call (:func:`share_read_only`:
Copilot's unpacked package) bound back read-only, so no case's product can change what
the next one runs. It runs as uid 65534 in a user namespace of its own with no
capability, in its own PID and IPC namespaces, killed with its parent. Unlike a script
it keeps the network (it must reach its provider) and ``/run`` (DNS and the system
services the trust sentence names).
macOS's sandbox-exec is used for scripts only: a product there gets home isolation, and
the report says so.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..process.temp_parent import own_parent, parent_of
from .bwrap import Layout, bwrap_command, isolation, probe
from .script_sandbox import system_temp_dir

Mode = Literal["auto", "required", "off"]
Backend = Literal["bwrap", "none"]
# A script's confinement, but the network stays: a product must reach its provider.
PRODUCT_ISOLATION = isolation(network=True)
OFF_DETAIL = 'product_sandbox = "off"'
MACOS_DETAIL = "no product sandbox backend on macOS yet (sandbox-exec confines scripts only)"

_PROMPTS = "runs with permission prompts disabled"
_ISOLATED = "a temporary home directory and only an allowlisted environment"
_SCRIPTS = "bundled scripts are reachable through the product's own tools"
# What a product line says for each decision (the seed's three sentences).
OFF_TRUST = f"{_PROMPTS} and the full environment; no skill-lens sandbox applies; {_SCRIPTS}"


def home_only_trust(why: str) -> str:
    return (
        f"{_PROMPTS}, {_ISOLATED}; that is not a sandbox: no skill-lens sandbox applies "
        f"({why}), and the product can read and write anything you can; {_SCRIPTS}"
    )


def backend_trust(backend: str) -> str:
    return (
        f"{_PROMPTS}, {_ISOLATED}, under {backend}: it cannot itself change files outside "
        "its working directory and its own temporary directories, or read other skill-lens "
        "temporary directories; it can read anything else you can, reach the network, and "
        f"ask system services to act for it; {_SCRIPTS}"
    )


@dataclass(frozen=True)
class ProductSandbox:
    """The run's decision: the mode asked for, the backend that applies (or why none).

    ``executable`` and ``isolation`` are what a wrapped start uses (the bwrap found and
    the flags its probe ran with); the report shows the other four fields.
    """

    mode: Mode
    backend: Backend
    home_isolated: bool
    detail: str | None = None
    executable: str | None = None
    isolation: tuple[str, ...] = PRODUCT_ISOLATION

    @property
    def trust(self) -> str:
        """The fixed sentence every report prints on the product line."""
        if not self.home_isolated:
            return OFF_TRUST
        if self.backend == "none":
            return home_only_trust(self.detail or "no sandbox backend works here")
        return backend_trust(self.backend)

    def data(self) -> dict[str, object]:
        """The JSON report's ``sandbox`` block."""
        return {
            "mode": self.mode,
            "backend": self.backend,
            "home_isolated": self.home_isolated,
            "detail": self.detail,
        }


REPLAY_ONLY_TRUST = (
    "replayed from cassettes only (--skill-lens-record none): this run started no product"
)


@dataclass(frozen=True)
class ProductEntry:
    """One product of the run, once however many seats (runner, judge) it fills."""

    name: str
    executable: str
    version: str | None
    trust: str
    sandbox: ProductSandbox
    # Why a shared cache the product relies on could not be made (Copilot's package):
    # each call is then slower, never wrong; None when there is nothing to say.
    cache_note: str | None = None


REPLAY_ONLY_DETAIL = "replayed from cassettes only: no product starts, so no backend was probed"


def replay_only(mode: Mode) -> ProductSandbox:
    """The decision of a run that only replays (``--skill-lens-record none``): it starts no
    product, so nothing is probed and ``required`` needs no working backend."""
    return ProductSandbox(mode, "none", home_isolated=mode != "off", detail=REPLAY_ONLY_DETAIL)


def decide(mode: Mode) -> ProductSandbox:
    """The decision for ``product_sandbox = mode``; the probe runs at most once per process."""
    if mode == "off":
        return ProductSandbox("off", "none", home_isolated=False, detail=OFF_DETAIL)
    found = _probe(sys.platform, os.environ.get("PATH", os.defpath), str(system_temp_dir()))
    return ProductSandbox(
        mode,
        found.backend,
        home_isolated=True,
        detail=found.detail,
        executable=found.executable,
        isolation=found.isolation,
    )


# -- directories every product start sees read-only -----------------------------------------

_shared: list[tuple[Path, ...]] = [()]  # replaced whole, so a reader never sees it half made
_shared_lock = threading.Lock()


def share_read_only(path: Path) -> None:
    """Show ``path`` (a directory in the skill-lens parent, which the tmpfs hides) to every
    later wrapped start, read-only."""
    with _shared_lock:
        if path not in _shared[0]:
            _shared[0] = (*_shared[0], path)


def unshare(path: Path) -> None:
    """Stop showing ``path`` (it is about to be removed)."""
    with _shared_lock:
        _shared[0] = tuple(p for p in _shared[0] if p != path)


def shared_read_only() -> tuple[Path, ...]:
    return _shared[0]


# -- the probe -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _probe(platform: str, path: str, temp_dir: str) -> ProductSandbox:
    """Execute the backend once; cached on what could change its answer."""
    if platform.startswith("linux"):
        return _probe_bwrap(path, Path(temp_dir))
    if platform == "darwin":
        why = MACOS_DETAIL
    elif platform == "win32":
        why = "no sandbox backend on Windows"
    else:
        why = f"no sandbox backend on {platform}"
    return ProductSandbox("auto", "none", home_isolated=True, detail=why)


def _probe_bwrap(path: str, temp: Path) -> ProductSandbox:
    found = probe(path, temp, True, _probe_layout(temp))
    if found.isolation is None or found.executable is None:
        return ProductSandbox("auto", "none", True, detail=found.detail)
    return ProductSandbox(
        "auto",
        "bwrap",
        True,
        detail=found.detail,
        executable=found.executable,
        isolation=found.isolation,
    )


def _probe_layout(temp: Path) -> Callable[[Path], Layout]:
    """A product start's layout in the probe's own directory (its working directory there)."""

    def layout_in(base: Path) -> Layout:
        work = base / "work"
        work.mkdir()
        return product_layout(cwd=work, writable=[base], temp=temp)

    return layout_in


# -- wrapping one start ----------------------------------------------------------------------


def wrap(
    decision: ProductSandbox | None,
    argv: Sequence[str],
    *,
    cwd: Path,
    writable: Sequence[Path],
    temp: Path | None = None,
) -> list[str]:
    """``argv`` inside the decided backend; unchanged when none applies."""
    if decision is None or decision.backend != "bwrap" or decision.executable is None:
        return list(argv)
    temp = temp if temp is not None else system_temp_dir()
    own_parent(temp)  # the tmpfs needs its mount point; an unsafe one is refused here too
    return bwrap_argv(
        decision.executable,
        argv,
        cwd=cwd,
        writable=[cwd, *writable],
        temp=temp,
        isolation=decision.isolation,
        read_only=shared_read_only(),
    )


def bwrap_argv(
    executable: str,
    argv: Sequence[str],
    *,
    cwd: Path,
    writable: Sequence[Path],
    temp: Path,
    isolation: tuple[str, ...] = PRODUCT_ISOLATION,
    read_only: Sequence[Path] = (),
) -> list[str]:
    """The bwrap command line for one product start, with the flags its probe ran with."""
    layout = product_layout(cwd=cwd, writable=writable, temp=temp, read_only=read_only)
    return bwrap_command(executable, layout, argv, isolation)


def product_layout(
    *, cwd: Path, writable: Sequence[Path], temp: Path, read_only: Sequence[Path] = ()
) -> Layout:
    """What a product sees: the network, and the temporary directory as it is, read-only.

    The tmpfs hides the skill-lens parent (:func:`..process.temp_parent.parent_of`); the
    binds put back the product's own areas writable, then ``read_only`` (the shared
    directories; after the writable binds, so one inside them stays read-only; bound only
    if present, so a product that does not use one never fails because it is gone). One
    tmpfs, whatever else the temp directory holds: a mount per entry cost bwrap 145 ms at
    100 entries (docs/performance.md). Nothing of the temp directory's own entries is
    named: one that vanished before the start would stop bwrap (it cannot make a mount
    point on the read-only root), which is also why an earlier version's ``skill-lens-*``
    directories beside the parent are not hidden (docs/security.md says so).
    """
    return Layout(
        cwd=cwd,
        hidden=parent_of(temp),
        writable=_outermost(writable),
        read_only_if_present=tuple(read_only),
        network=True,
    )


def _outermost(paths: Sequence[Path]) -> list[Path]:
    """``paths`` without duplicates and without any inside another (bound already)."""
    unique = sorted({Path(p) for p in paths}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(_is_under(path, outer) for outer in kept):
            kept.append(path)
    return kept


def _is_under(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents
