"""The console script run to its end, with its own peak resident memory.

``ru_maxrss`` (from ``wait4`` or ``getrusage``) is no good here: Linux carries a process's
high-water mark across ``exec``, so a command started from a large pytest worker reports
at least the worker's size. ``VmHWM`` in ``/proc/self/status`` belongs to the memory map
``exec`` made, so the command writes its own on the way out (``atexit``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

_MEASURED = """\
import atexit, sys
from pathlib import Path

def _peak():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            Path(sys.argv[1]).write_text(line.split()[1])

atexit.register(_peak)
from pytest_skill_lens.cli import console
sys.exit(console(sys.argv[2:]))
"""


@dataclass(frozen=True)
class Measured:
    code: int
    out: str
    err: str
    seconds: float
    peak_mib: int  # the command's own high-water mark, never its parent's


def run_console(tmp_path: Path, *args: str, stdout: bool = True) -> Measured:
    """``pytest-skill-lens ARGS`` in a fresh interpreter, waited for to its end."""
    out, err, peak = tmp_path / "out.txt", tmp_path / "err.txt", tmp_path / "peak-kib.txt"
    started = time.monotonic()
    with out.open("wb") as out_file, err.open("wb") as err_file:
        code = subprocess.call(
            [sys.executable, "-c", _MEASURED, str(peak), *args],
            stdout=out_file if stdout else subprocess.DEVNULL,
            stderr=err_file,
        )
    seconds = time.monotonic() - started
    return Measured(
        code,
        out.read_text(encoding="utf-8"),
        err.read_text(encoding="utf-8"),
        seconds,
        int(peak.read_text()) // 1024,
    )
