"""Which processes are still alive: for the tests that check a script's processes are killed.

Importable from any test module (``pythonpath = ["tests"]`` in pyproject.toml).
"""

from __future__ import annotations

import time
from pathlib import Path


def alive_with(marker: str, within: float = 5.0) -> list[int]:
    """Pids of live processes whose command line holds ``marker``, once ``within`` seconds
    have passed or none is left. A SIGKILL is delivered asynchronously: a killed process
    may still be on its way out for some milliseconds when the call returns, while one
    that was never killed would be there for the whole wait (and for 1000 s)."""
    deadline = time.monotonic() + within
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    # A zombie's cmdline is empty, so only live processes match.
                    if marker.encode() in (entry / "cmdline").read_bytes():
                        found.append(int(entry.name))
                except OSError:
                    continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.01)
