"""What reading the process's CPU clock costs inside an xdist worker, and what a regex check
costs there (round 6 of issue 17, docs/performance.md).

The regex package stops a search at its ``timeout`` by reading the process's CPU clock
(C's ``clock()``, what ``time.process_time`` reads). In a process with a second thread,
as every xdist worker has (execnet's, waiting on its pipe), that read can stall. This
generates N skills x M fake cases (the bench_items.py tree: contains, not_contains and a
regex without choices per case), runs them under ``-n 2`` with a probe in every worker,
and prints per worker, in microseconds:

* in one run, the first ``time.process_time()`` of each case's setup, and a second one
  right after;
* in another (no clock read of the probe's own, which would pay the stall first), each
  regex check of the plugin (the whole check: search and evidence);

each as the median, the 90th percentile, how many took over 1 ms, and the sum; then, in
this process with a busy second thread, one search the regex package's default way (the
GIL released) and the plugin's (``concurrent=False``), the minimum of 3 rounds. With
``--against SRC`` the same run is made with another version's ``src`` first on
``PYTHONPATH`` (``git archive <commit> src | tar -x -C DIR``), after this one.

Usage: python benchmarks/clock_stalls.py [--skills 20] [--cases 50] [--against DIR/src]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import regex

sys.path.insert(0, str(Path(__file__).parent))
# A sibling script, not a package.
from bench_collection import generate

PROBE = """
import json, os, time

_seen = {"first clock read": [], "second clock read": [], "regex check": []}


def pytest_configure(config):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    from pytest_skill_lens.score import assertions

    checked = assertions._TEXT_CHECKS["regex"]

    def timed(*args):
        start = time.perf_counter()
        try:
            return checked(*args)
        finally:
            _seen["regex check"].append(time.perf_counter() - start)

    assertions._TEXT_CHECKS["regex"] = timed


def pytest_runtest_setup(item):
    if not os.environ.get("CLOCK_READS"):  # the first read pays the stall a check would
        return
    for name in ("first clock read", "second clock read"):
        start = time.perf_counter()
        time.process_time()
        _seen[name].append(time.perf_counter() - start)


def pytest_unconfigure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        with open(os.environ["CLOCK_OUT"], "a", encoding="utf-8") as out:
            out.write(json.dumps({"worker": worker, "seen": _seen}) + "\\n")
"""


def run(root: Path, src: str | None, *, clock_reads: bool) -> list[dict[str, object]]:
    out = root / "seen.jsonl"
    out.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["CLOCK_OUT"] = str(out)
    if clock_reads:
        env["CLOCK_READS"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root / "probe"), src]))
    args = ["-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "-p", "clock_probe"]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", *args, "--skill-lens", "skills"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        sys.exit(f"pytest exited {proc.returncode}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def show(label: str, workers: list[dict[str, object]]) -> None:
    print(label)
    for worker in sorted(workers, key=lambda w: str(w["worker"])):
        seen = worker["seen"]
        assert isinstance(seen, dict)
        for name, times in seen.items():
            ordered = sorted(times)
            if not ordered:
                continue
            median = ordered[len(ordered) // 2] * 1e6
            p90 = ordered[int(0.9 * (len(ordered) - 1))] * 1e6
            slow = sum(t > 1e-3 for t in ordered)
            print(
                f"  {worker['worker']} {name:<18} median {median:7.1f}  p90 {p90:8.1f}  "
                f"over 1 ms {slow:5}/{len(ordered)}  sum {sum(ordered):6.3f} s"
            )


def search_beside_a_busy_thread() -> None:
    pattern = regex.compile(r"request number 7\b")
    text = "[fake] skill-001 handled: Please handle request number 7 for the 1 skill"
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            sum(range(100))

    thread = threading.Thread(target=busy, daemon=True)
    thread.start()
    try:
        for label, options in (("GIL released", {}), ("GIL kept", {"concurrent": False})):
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                for _ in range(200):
                    pattern.search(text, timeout=1.0, **options)
                best = min(best, (time.perf_counter() - start) / 200)
            print(f"  one search, busy thread beside, {label:<12} {best * 1e6:8.1f}")
    finally:
        stop.set()
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=20)
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--against", help="another version's src directory")
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, ns.skills, ns.cases)
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "probe").mkdir()
        (root / "probe" / "clock_probe.py").write_text(PROBE)
        print(f"{ns.skills} skills x {ns.cases} cases under -n 2, microseconds")
        show("clock reads (this version)", run(root, None, clock_reads=True))
        show("regex checks, this version", run(root, None, clock_reads=False))
        if ns.against:
            other = str(Path(ns.against).resolve())
            show(f"regex checks, --against {ns.against}", run(root, other, clock_reads=False))
    search_beside_a_busy_thread()


if __name__ == "__main__":
    main()
