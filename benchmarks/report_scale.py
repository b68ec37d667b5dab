"""What the reports cost at scale: writing the JSON report, and merging shards.

Generates N skills x M ``fake`` cases (500 x 100 = 50,000 by default; ``--skills 50
--cases 40`` for a quick run), runs the suite once as 10 shards with
``--skill-lens-json`` to have shard reports to merge, then measures in one interleaved run
(round after round, each command in a fresh process, median of the rounds):

* the whole run without report files, and the same run with ``--skill-lens-json``;
* ``merge`` of the 10 shard reports: no outputs, ``--json``, and ``--json --junitxml
  --html``;
* the floor of a merge: a plain ``json.load`` of the same 10 files and a plain
  ``json.dump`` of what was loaded into one file (the defaults: Python's C encoder).

For each: wall seconds, CPU seconds (user + system) and the peak RSS of the process tree
(``os.wait4``'s ``ru_maxrss``: the largest of the process and the descendants it waited
for). Ratios are printed against the run without the report, and against the plain
load + dump. ``--against DIR/src`` adds another version's ``src`` as a second side of every
row, so "before" and "now" are measured in the same interleaved run (``git archive
<commit> src | tar -x -C DIR``); both merge the same shard reports, written once by the
version under test (a report is read by any version of the same number: the reader
parses the JSON, whatever its layout).

To measure one version alone, put its ``src`` first on ``PYTHONPATH``.

Usage: python benchmarks/report_scale.py [--skills 500] [--cases 100] [--rounds 3]
                                         [--shards 10] [--against DIR/src] [--only run|merge]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
# A sibling script, not a package.
from bench_collection import generate

# The floor of a merge: what any tool pays to read these files and write that much JSON.
LOAD_DUMP = """
import json, sys
out, *paths = sys.argv[1:]
loaded = []
for path in paths:
    with open(path, encoding="utf-8") as handle:
        loaded.append(json.load(handle))
with open(out, "w", encoding="utf-8") as handle:
    json.dump(loaded, handle)
"""

# The console script, so another version's src on PYTHONPATH is the one that runs.
MERGE = "import sys; from pytest_skill_lens.cli import console; sys.exit(console())"


@dataclass(frozen=True)
class Cost:
    wall: float  # seconds
    cpu: float  # user + system seconds of the process and its waited-for descendants
    rss_kib: int  # the largest peak RSS among them


def measure(command: list[str], cwd: Path, src: str | None, expect: tuple[int, ...]) -> Cost:
    """Run ``command`` in a fresh process (``src`` first on PYTHONPATH) and what it cost."""
    # Bytecode cached, as a user's repeated runs have it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=err)
        # wait4: this child's own usage, not every child's so far (RUSAGE_CHILDREN's peak
        # RSS is the largest of all, ever).
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in expect:
            out.seek(0)
            err.seek(0)
            tail = out.read()[-3000:].decode(errors="replace")
            tail += err.read()[-3000:].decode(errors="replace")
            sys.exit(f"{' '.join(command)} exited {proc.returncode}:\n{tail}")
    return Cost(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


Row = tuple[list[str], tuple[int, ...]]  # the command, the exit codes it may end with


def rows(root: Path, shards: list[Path], side: str) -> dict[str, Row]:
    """Every measured command of one side, by label; its files go under ``root/side``."""
    out = root / "out" / side
    out.mkdir(parents=True, exist_ok=True)
    pytest = [sys.executable, "-m", "pytest", "-q", "--skill-lens", "skills"]
    pytest += ["-p", "no:cacheprovider", "-p", "no:langsmith_plugin"]
    merge = [sys.executable, "-c", MERGE, "merge", *map(str, shards)]
    gate = (0, 1)  # a merge exits with the gate's code; every fake case passes, but be fair
    return {
        "run": (pytest, (0,)),
        "run --skill-lens-json": ([*pytest, "--skill-lens-json", str(out / "run.json")], (0,)),
        "load+dump": (
            [sys.executable, "-c", LOAD_DUMP, str(out / "dump.json"), *map(str, shards)],
            (0,),
        ),
        "merge": (merge, gate),
        "merge --json": ([*merge, "--json", str(out / "merged.json")], gate),
        "merge --json --junitxml --html": (
            [
                *merge,
                "--json",
                str(out / "m.json"),
                "--junitxml",
                str(out / "m.xml"),
                "--html",
                str(out / "m.html"),
            ],
            gate,
        ),
    }


def write_shards(root: Path, count: int, src: str | None, side: str) -> list[Path]:
    """The suite run as ``count`` shards, each writing its JSON report."""
    paths = []
    for k in range(1, count + 1):
        path = root / "shards" / side / f"shard-{k:02d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pytest", "-q", "--skill-lens", "skills"]
        command += ["-p", "no:cacheprovider", "-p", "no:langsmith_plugin"]
        command += ["--skill-lens-shard", f"{k}/{count}", "--skill-lens-json", str(path)]
        measure(command, root, src, (0, 5))  # 5: a shard can be left without a case
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=500)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shards", type=int, default=10)
    parser.add_argument("--against", help="another version's src directory, a second side")
    parser.add_argument("--only", choices=("run", "merge"), help="measure one group of rows")
    parser.add_argument("--keep", help="generate into this directory and leave it")
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(ns.keep or tmp)
        generate(root, ns.skills, ns.cases)
        (root / "pytest.ini").write_text("[pytest]\n")
        sides: dict[str, str | None] = {"now": None}
        if ns.against:
            sides["against"] = str(Path(ns.against).resolve())
        written = write_shards(root, ns.shards, None, "now") if ns.only != "run" else []
        shards = dict.fromkeys(sides, written)
        plan = {
            side: {
                label: row
                for label, row in rows(root, shards[side], side).items()
                if ns.only is None or label.startswith(ns.only) or (
                    ns.only == "merge" and label == "load+dump")
            }
            for side in sides
        }  # fmt: skip
        for side, src in sides.items():  # warm-up: bytecode, the page's assets
            for command, expect in plan[side].values():
                measure(command, root, src, expect)
        costs: dict[str, list[Cost]] = {}
        for _ in range(ns.rounds):
            for label in plan["now"]:
                for side, src in sides.items():
                    command, expect = plan[side][label]
                    costs.setdefault(f"{side} | {label}", []).append(
                        measure(command, root, src, expect)
                    )
        show(costs, list(sides), ns.skills * ns.cases, ns.rounds)
        for side in sides:
            files = [root / "out" / side / name for name in ("run.json", "merged.json", "m.xml")]
            files += [root / "out" / side / "m.html", *shards[side]]
            total = sum(path.stat().st_size for path in shards[side])
            sized = ", ".join(
                f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in files[:4] if p.exists()
            )
            print(f"  {side} files: {sized}; {len(shards[side])} shards {total / 1e6:.1f} MB")


def show(costs: dict[str, list[Cost]], sides: list[str], n: int, rounds: int) -> None:
    """Each row's medians, and its ratios to its floor (the run without report files; the
    plain load + dump), and between the sides."""

    def med(key: str, attr: str) -> float:
        return statistics.median(getattr(cost, attr) for cost in costs[key])

    def ratios(key: str, base: str) -> str:
        return (
            f"{med(key, 'wall') / med(base, 'wall'):5.2f}x wall"
            f" {med(key, 'cpu') / med(base, 'cpu'):5.2f}x CPU"
            f" {med(key, 'rss_kib') / med(base, 'rss_kib'):5.2f}x RSS"
        )

    print(f"{n} outcomes, median of {rounds} round(s); wall, CPU, peak RSS of the process tree")
    labels = [key.split(" | ", 1)[1] for key in costs if key.startswith(f"{sides[0]} | ")]
    for label in labels:
        for side in sides:
            key = f"{side} | {label}"
            floor = f"{side} | " + ("run" if label.startswith("run") else "load+dump")
            against = f" | vs floor {ratios(key, floor)}" if key != floor else ""
            print(
                f"  {side:<8} {label:<31} {med(key, 'wall'):7.2f} s  CPU {med(key, 'cpu'):7.2f} s"
                f"  peak {med(key, 'rss_kib') / 1024:6.0f} MB{against}"
            )
        if len(sides) > 1:
            print(
                f"  {'':<8} {'now / against':<31} {ratios(f'now | {label}', f'against | {label}')}"
            )


if __name__ == "__main__":
    main()
