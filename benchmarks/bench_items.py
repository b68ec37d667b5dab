"""What one case item costs against a bare pytest item: time, memory and wire bytes.

One interleaved run (floor, then pytest-skill-lens, round after round, each in a fresh
pytest process, cold: ``-p no:cacheprovider`` unless ``--warm``) of N skills x M ``fake``
cases, printing the median ratio of each:

* ``--collect-only`` and a full run: wall time, and the CPU seconds (user + system) of
  the pytest process and its children, which another process on the machine disturbs
  less; and the "paired" CPU ratio, the median of each round's own ratio, steadier still
  when the machine's speed drifts during the run;
* memory per item: the growth of the pytest process's peak RSS (``ru_maxrss``) from a
  small tree of 100 items to the full one, divided by the items added, so the fixed
  cost of imports cancels out;
* ``-n 2`` (pytest-xdist) wall time of a full run;
* bytes per report on the wire under ``-n 2``: each worker sums the bytes execnet's
  serialiser makes of every test report's data as xdist sends it (the outermost
  ``pytest_report_to_serializable`` wrapper; ``execnet.gateway_base.dumps_internal``,
  what goes down the pipe but for a message's 9-byte header), and, as before round 7,
  ``len(json.dumps(data))``, in one extra run per side (the count is deterministic, so
  one run is enough).

Two floors, each a side of every round (``bench_collection.py`` writes both):

* ``floor``: a bare plugin yielding the same number of trivial items from SKILL.md files,
  no YAML read: pytest's own cost alone;
* ``files``: the floor as issue 17 words it, a plugin that collects the same eval files
  into trivial items, each file read with libyaml (``yaml.CSafeLoader``), one item per case.

Both are plugins loaded with ``-p`` in the very tree pytest-skill-lens collects (same
rootdir, directories and file paths), so node ids, locations and keywords differ only by
what the plugin itself adds (round 5 on; before, each floor had a copy of the files in a
directory of its own, one level shallower). Every ratio is printed against both.

``--against SRC`` adds a third side to every round: the same runs with another version's
``src`` directory first on ``PYTHONPATH`` (``git archive <commit> src | tar -x -C DIR``),
so two versions are compared in one interleaved run, each against the same floor.

Usage: python benchmarks/bench_items.py [--skills 100] [--cases 50] [--rounds 3]
                                        [--against DIR/src] [--warm]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
# Sibling scripts, not a package.
from bench_collection import BARE_FLOOR_ARGS, FILES_FLOOR_ARGS, FLOOR_PLUGINS, generate

# Loaded with -p into every measured process (and each xdist worker).
PROBE = """
import json, os, resource

import pytest

_out = os.environ.get("BENCH_OUT")
_wire = [0, 0, 0]


def _write(line):
    if _out:
        with open(_out, "a", encoding="utf-8") as handle:
            handle.write(line + "\\n")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_report_to_serializable(report):
    # The outermost wrapper: it sees the data exactly as xdist sends it.
    data = yield
    wanted = os.environ.get("BENCH_WIRE") and os.environ.get("PYTEST_XDIST_WORKER")
    if wanted and isinstance(data, dict) and data.get("$report_type") == "TestReport":
        from execnet.gateway_base import dumps_internal

        _wire[0] += len(dumps_internal(data))
        _wire[1] += 1
        _wire[2] += len(json.dumps(data))
    return data


def pytest_unconfigure(config):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        if os.environ.get("BENCH_WIRE"):
            _write(f"wire {_wire[0]} {_wire[1]} {_wire[2]}")
        return
    _write(f"rss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(
    args: list[str], cwd: Path, probe_dir: Path, *, wire: bool = False, src: str | None = None
) -> tuple[float, float, list[str]]:
    """Wall and CPU seconds of one pytest process (its xdist workers included), and the
    lines the probe wrote; ``src``: another version's source tree, imported first."""
    out = probe_dir / "probe.out"
    out.unlink(missing_ok=True)
    # Bytecode cached, as a user's repeated runs have it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    path = [str(probe_dir), str(cwd / FLOOR_PLUGINS), src, env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, path))
    env["BENCH_OUT"] = str(out)
    env.pop("BENCH_WIRE", None)
    if wire:
        env["BENCH_WIRE"] = "1"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "bench_probe", *args]
    start, cpu_start = time.perf_counter(), _children_cpu()
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu_start
    if proc.returncode != 0:
        tail = f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        sys.exit(f"pytest {' '.join(args)} exited {proc.returncode}:\n{tail}")
    lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    return elapsed, cpu, lines


def rss_kib(lines: list[str]) -> int:
    return next(int(line.split()[1]) for line in lines if line.startswith("rss "))


def wire_per_report(lines: list[str]) -> tuple[float, float]:
    """Bytes per report: as execnet sends it, and as the JSON text of its data."""
    sizes = [line.split()[1:] for line in lines if line.startswith("wire ")]
    sent, reports, as_json = (sum(int(row[i]) for row in sizes) for i in (0, 1, 2))
    if not reports:
        return float("nan"), float("nan")
    return sent / reports, as_json / reports


Side = tuple[list[str], Path, str | None]  # pytest's arguments, its directory, a src first


def report_timings(
    ns: argparse.Namespace, rows: dict[str, dict[str, Side]], probe_dir: Path
) -> None:
    """Interleaved rounds of every row's sides; print the median ratios and memory per item."""

    def run(side: Side) -> tuple[float, float, list[str]]:
        args, cwd, src = side
        return measure(args, cwd, probe_dir, src=src)

    for sides in rows.values():  # warm-up: bytecode
        for side in sides.values():
            run(side)
    times: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    rss: dict[str, list[int]] = {}
    for _ in range(ns.rounds):
        for label, sides in rows.items():
            for name, side in sides.items():
                seconds, cpu, lines = run(side)
                times.setdefault(f"{name} {label}", []).append(seconds)
                cpus.setdefault(f"{name} {label}", []).append(cpu)
                if label in ("run", "run small"):
                    rss.setdefault(f"{name} {label}", []).append(rss_kib(lines))
    n, n_small = ns.skills * ns.cases, 100
    print(f"{ns.skills} skills x {ns.cases} cases = {n} items, median of {ns.rounds} rounds")
    median = {label: statistics.median(values) for label, values in times.items()}
    cpu_median = {label: statistics.median(values) for label, values in cpus.items()}
    names = list(rows["run"])
    measured = [name for name in names if name not in FLOORS]
    for label in ("collect", "run", "-n 2 run"):
        if label not in rows:
            continue
        for floor in FLOORS:
            f, fc = median[f"{floor} {label}"], cpu_median[f"{floor} {label}"]
            for name in measured:
                o, oc = median[f"{name} {label}"], cpu_median[f"{name} {label}"]
                paired = _paired(cpus[f"{name} {label}"], cpus[f"{floor} {label}"])
                print(
                    f"  {label:<10} {floor:<5} {f:6.2f} s  {name:<7} {o:6.2f} s"
                    f"  {o / f:.2f}x  (CPU {fc:6.2f} s / {oc:6.2f} s: {oc / fc:.2f}x;"
                    f" paired {paired:.2f}x)"
                )
    per_item = {}
    for name in names:
        grown = statistics.median(rss[f"{name} run"]) - statistics.median(rss[f"{name} run small"])
        per_item[name] = grown * 1024 / (n - n_small)
    for floor in FLOORS:
        for name in measured:
            print(
                f"  memory/item {floor:<5} {per_item[floor] / 1024:5.1f} KiB"
                f"  {name:<7} {per_item[name] / 1024:5.1f} KiB"
                f"  {per_item[name] / per_item[floor]:.2f}x"
            )


FLOORS = ("floor", "files")


def _paired(ours: list[float], floor: list[float]) -> float:
    """The median of each round's ratio: the two sides of one round ran minutes apart at
    most, so a neighbour slowing the machine for a while moves both."""
    return statistics.median(o / f for o, f in zip(ours, floor, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=100)
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-xdist", action="store_true", help="skip the -n 2 rows")
    parser.add_argument("--wire-only", action="store_true", help="only bytes per report")
    parser.add_argument("--against", help="another version's src directory, a third side")
    parser.add_argument(
        "--warm",
        action="store_true",
        help="pytest's cache provider on (the parse cache the warm-up round left), as a "
        "developer's repeated runs are; default: off, as on a fresh CI checkout",
    )
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        probe_dir = root / "probe"
        probe_dir.mkdir()
        (probe_dir / "bench_probe.py").write_text(PROBE, encoding="utf-8")
        big, small = root / "big", root / "small"
        generate(big, ns.skills, ns.cases)
        generate(small, 10, 10)
        for tree in (big, small):
            (tree / "pytest.ini").write_text("[pytest]\n")
        cache = [] if ns.warm else ["-p", "no:cacheprovider"]
        common = [*cache, "-p", "no:langsmith_plugin"]
        ours = ["--skill-lens", "skills", *common]
        xdist = ["-n", "2"]

        def sides(args: list[str], tree: Path) -> dict[str, Side]:
            found: dict[str, Side] = {
                "floor": ([*args, *BARE_FLOOR_ARGS, *common], tree, None),
                "files": ([*args, *FILES_FLOOR_ARGS, *common], tree, None),
                "ours": ([*args, *ours], tree, None),
            }
            if ns.against:
                found["against"] = ([*args, *ours], tree, ns.against)
            return found

        rows = {
            "collect": sides(["--collect-only"], big),
            "run": sides([], big),
            "run small": sides([], small),
        }
        if not ns.no_xdist:
            rows["-n 2 run"] = sides(xdist, big)
        if not ns.wire_only:
            report_timings(ns, rows, probe_dir)
        if not ns.no_xdist:
            wire = {
                name: wire_per_report(measure(args, cwd, probe_dir, wire=True, src=src)[2])
                for name, (args, cwd, src) in sides(xdist, big).items()
            }
            for floor in FLOORS:
                for name in (n for n in wire if n not in FLOORS):
                    (sent, as_json), (floor_sent, floor_json) = wire[name], wire[floor]
                    print(
                        f"  wire/report {floor:<5} {floor_sent:6.0f} B  {name:<7}"
                        f" {sent:6.0f} B  {sent / floor_sent:.2f}x  (as JSON text:"
                        f" {floor_json:.0f} B / {as_json:.0f} B, {as_json / floor_json:.2f}x)"
                    )


if __name__ == "__main__":
    main()
