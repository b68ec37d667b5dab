"""Temporary directories a run owns, and the sweep that removes those a dead run left.

A workspace or a script's scratch directory is named ``skill-lens-...<mark>``, where
the mark names the process that made it: its pid namespace, its pid and its start
time (``.pid-<namespace>-<pid>-<start>``). A run stopped by SIGKILL cannot clean up,
so each run starts by removing, from the user's skill-lens parent in the system temp
directory (:mod:`.temp_parent`; and from the temp directory itself, where earlier
versions made them), the directories of owners that are gone. The start time tells a
dead owner from a new process that got its pid again; a directory whose owner cannot
be judged (another pid namespace, as in a container sharing ``/tmp``, or a process
whose start time cannot be read) is left alone, and so is one that is not a real
directory or not the current user's.

A product's environment names its run directory, and a script's its scratch directory
(:data:`RUN_DIR_VARIABLE`). Killing a start's process group does not reach everything it
started: a process in a session of its own escapes it, and so does a whole bubblewrap
sandbox (``--new-session``), which ``--die-with-parent`` fails to take down when the outer
bwrap is killed in the first milliseconds of its start (bubblewrap issue #633: the inner
init arms its parent-death signal after its parent is gone; 1-3 ms here, and most of 300
starts killed 0-10 ms in were left running). So no such directory is removed before every
process of this user whose environment names it is killed (:func:`remove_marked`, and the
sweep for a dead owner's; Linux ``/proc``; each is pinned by a pidfd before its
environment is read, so a pid reused meanwhile is never signalled). Killing a sandbox's
inner init ends its whole PID namespace.

Deleting never follows a link: :func:`shutil.rmtree` is used only where it resists
symlink attacks (it deletes by descriptor and checks the top is the directory it
examined), so a link inside a leftover to a directory outside removes the link only.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import stat
from functools import cache
from pathlib import Path

from .start import open_pidfd
from .temp_parent import check_parent, parent_of, system_temp

PREFIX = "skill-lens-"
RUN_DIR_VARIABLE = "SKILL_LENS_RUN_DIR"
"""Set in a started program's environment to the directory it belongs to: what it, and
whatever it left running, is killed by before that directory is removed."""
_MARK = re.compile(r"skill-lens-.*\.pid-(\d+)-(\d+)-(\d+)")


def _start_time(pid: int, proc: Path = Path("/proc")) -> int:
    """Start time of ``pid`` in clock ticks since boot (Linux ``/proc``); 0 when unknown.

    It never changes while the process lives and is immune to wall-clock changes.
    """
    try:
        with open(proc / str(pid) / "stat", "rb") as handle:
            data = handle.read()
        # Field 22, counted after the command name, which may hold spaces and ")".
        return int(data.rpartition(b")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return 0


@cache
def _own_start_time(pid: int) -> int:
    return _start_time(pid)


@cache
def _namespace() -> int:
    """The inode of this process's pid namespace (Linux); 0 when unknown."""
    try:
        found = re.fullmatch(r"pid:\[(\d+)\]", os.readlink("/proc/self/ns/pid"))
    except OSError:
        return 0
    return int(found.group(1)) if found else 0


def owner_mark() -> str:
    """The suffix naming the current process as a directory's owner."""
    pid = os.getpid()  # asked each time: a forked child is another owner
    return f".pid-{_namespace()}-{pid}-{_own_start_time(pid)}"


def owner_alive(namespace: int, pid: int, start: int) -> bool:
    """Whether the marked owner may still be running: ``False`` only when it is surely gone."""
    if namespace != _namespace() or pid <= 0:
        return True  # its pids are not ours to judge
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # it exists, as another user's process
    if not start:
        return True
    now = _start_time(pid)
    return now in (0, start)  # 0: it exited just now or cannot be read; keep it


def sweep_temp(base: Path | None = None) -> list[Path]:
    """:func:`sweep` the user's skill-lens parent in ``base`` (default: the system temp
    directory; see :mod:`.temp_parent`), and ``base`` itself, where an earlier version
    made its directories. A parent that is not the user's own is never entered."""
    base = base if base is not None else system_temp()
    removed = sweep(base)
    try:
        check_parent(parent_of(base))
    except OSError:
        return removed  # none yet, or not one to trust
    return removed + sweep(parent_of(base))


def sweep(base: Path) -> list[Path]:
    """Remove the directories under ``base`` whose marked owner is gone; what was removed.

    Never raises: a directory that cannot be examined or removed stays.
    """
    if not shutil.rmtree.avoids_symlink_attacks:
        return []  # pragma: no cover - rmtree deletes by descriptor on Linux and macOS
    uid = os.getuid() if hasattr(os, "getuid") else None
    removed: list[Path] = []
    dead: list[Path] = []
    starts: list[int] = []  # the dead owners' start times, read from the marks here
    try:
        found = list(os.scandir(base))
    except OSError:
        return removed
    for entry in found:
        marked = _MARK.fullmatch(entry.name)
        if marked is None:
            continue
        namespace, pid, start = (int(group) for group in marked.groups())
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or (uid is not None and info.st_uid != uid):
            continue  # a link, a file, or someone else's: never ours to delete
        if owner_alive(namespace, pid, start):
            continue
        dead.append(Path(entry.path))
        starts.append(start)
    kill_marked({path.name for path in dead}, since=_earliest(starts))
    for path in dead:
        remove_tree(path)
        if not os.path.lexists(path):
            removed.append(path)
    return removed


_MARKED_ENVIRON_BYTES = 1 << 20


def _earliest(starts: list[int]) -> int:
    """The earliest of the dead owners' ``starts`` (0: none, or one is unknown)."""
    return min(starts) if starts and all(starts) else 0


def kill_marked(names: set[str], proc: Path = Path("/proc"), *, since: int = 0) -> list[int]:
    """SIGKILL every process of this user whose environment names a run directory called
    one of ``names`` (:data:`RUN_DIR_VARIABLE`); the pids signalled. Never raises.

    ``since`` (clock ticks since boot, as ``/proc`` counts a start): a process known to have
    started before it is not looked at, as it cannot descend from the process that made
    those directories; so the user's other processes' environments are never read, and
    one of them stuck in the kernel cannot hold the read up.
    """
    if not names or not hasattr(os, "getuid"):
        return []
    try:
        entries = [entry for entry in os.scandir(proc) if entry.name.isdigit()]
    except OSError:
        return []
    killed = []
    for entry in entries:
        pid = int(entry.name)
        if pid == os.getpid() or (since and 0 < _start_time(pid, proc) < since):
            continue
        if _kill_if_marked(proc, pid, names):
            killed.append(pid)
    return killed


def _kill_if_marked(proc: Path, pid: int, names: set[str]) -> bool:
    pidfd = open_pidfd(pid)  # pinned first: the environment read below is this process's
    try:
        if os.stat(proc / str(pid)).st_uid != os.getuid():
            return False  # another user's process is never ours to kill
        with open(proc / str(pid) / "environ", "rb") as handle:
            environ = handle.read(_MARKED_ENVIRON_BYTES)
        if not _names_one(environ, names):
            return False
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        else:  # pragma: no cover - every kernel this runs on has pidfd_open
            os.kill(pid, signal.SIGKILL)
        return True
    except OSError:
        return False
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _names_one(environ: bytes, names: set[str]) -> bool:
    key = f"{RUN_DIR_VARIABLE}=".encode()
    for item in environ.split(b"\0"):
        if item.startswith(key):
            value = item[len(key) :].decode("utf-8", errors="replace")
            return os.path.basename(value) in names
    return False


def remove_marked(path: Path) -> None:
    """Kill every process of this user whose environment names the directory ``path``
    (:func:`kill_marked`), then delete it (:func:`remove_tree`); never raises."""
    kill_marked({path.name}, since=_own_start_time(os.getpid()))
    remove_tree(path)


def remove_tree(path: Path) -> None:
    """Delete the directory ``path`` and all under it, never following a link; never raises.

    A directory the run made read-only is made writable and the removal tried once
    more. As root that is never needed, so root never changes a mode (a link swapped
    in at the last moment could otherwise point the change outside).
    """
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            return  # a link (or a file) is never a tree to delete
        shutil.rmtree(path)
        return
    except Exception:
        if not os.path.isdir(path) or os.path.islink(path):
            return
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return
    with contextlib.suppress(Exception):
        _make_writable(path)
        shutil.rmtree(path, ignore_errors=True)


def _make_writable(top: Path) -> None:
    """Give the owner rwx on ``top`` and every directory under it (links are not followed)."""

    def own(path: str) -> None:
        with contextlib.suppress(OSError):
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode) and mode & 0o700 != 0o700:
                os.chmod(path, stat.S_IMODE(mode) | 0o700)

    own(str(top))
    for directory, dirnames, _files in os.walk(top, followlinks=False):
        for name in dirnames:
            own(os.path.join(directory, name))
