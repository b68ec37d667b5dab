"""Copies of a home template made ahead, so a call's home is one rename away.

Copying Codex's template (about 90 files) takes 25-80 ms, on the case's path when done
as the call starts. A :class:`Spares` keeps one copy ready, made on a thread of its own
while the previous call runs, and :meth:`Spares.take` moves it into place as the call's
home: each copy is made from the template and given to exactly one call, never reused.
A call that finds none ready copies for itself, as before. The copies live in the
template's own run directory (hidden from every product under bwrap, removed with it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

from ..process.leftovers import remove_tree

AHEAD = 1  # copies kept ready: cases of one process run one after another, mostly


class Spares:
    """Ready copies of ``template``, made in ``where`` (a directory this makes)."""

    def __init__(self, template: Path, where: Path) -> None:
        self._template = template
        self._where = where
        self._lock = threading.Lock()
        self._ready: list[Path] = []
        self._making: list[threading.Thread] = []
        self._closed = False
        where.mkdir(mode=0o700)

    def take(self, home: Path) -> None:
        """Make ``home`` (an empty directory) a fresh copy of the template, and start the next.

        A ready copy replaces it by a rename (same file system); otherwise, or when
        ``home`` is not empty, the template is copied into it now.
        """
        with self._lock:
            spare = self._ready.pop() if self._ready else None
        moved = False
        if spare is not None:
            if not any(home.iterdir()):
                try:
                    os.rename(spare, home)
                    moved = True
                except OSError:
                    pass
            if not moved:
                remove_tree(spare)  # never handed to another call
        if not moved:
            shutil.copytree(self._template, home, symlinks=True, dirs_exist_ok=True)
        self.prepare()

    def prepare(self) -> None:
        """Start making the next copy, unless enough are ready or being made."""
        with self._lock:
            self._making = [thread for thread in self._making if thread.is_alive()]
            if self._closed or len(self._ready) + len(self._making) >= AHEAD:
                return
            thread = threading.Thread(target=self._make, name="skill-lens-spare", daemon=True)
            self._making.append(thread)
            thread.start()

    def _make(self) -> None:
        try:
            copy = Path(tempfile.mkdtemp(dir=self._where))
            shutil.copytree(self._template, copy, symlinks=True, dirs_exist_ok=True)
        except OSError:
            return  # a call then copies for itself; the directory goes with ``where``
        with self._lock:
            if not self._closed:
                self._ready.append(copy)

    def wait(self) -> None:
        """Return once no copy is being made (the session's end, a test)."""
        with self._lock:
            making = list(self._making)
        for thread in making:
            thread.join()

    def close(self) -> None:
        """Make no more copies, and wait for the one being made: ``where`` can then go."""
        with self._lock:
            self._closed = True
        self.wait()
