"""Time pytest-skill-lens against the floor every pytest plugin pays.

Generates N skills x M cases, then times, each in a fresh pytest process:

* ``--collect-only`` and a full run with the ``fake`` runner, and
* the same two commands with a bare plugin that yields the same number of
  trivial items from the same SKILL.md files (the floor: pytest's own cost of
  collecting, running and reporting that many items).

Usage: python benchmarks/bench_collection.py [--skills 100] [--cases 50] [--rounds 3]

"cold" runs reparse every eval file (no pytest cache provider, as on a fresh CI
checkout); "warm" runs reuse the parse cache the warm-up round left.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASE = """  - name: case {j}
    task: Please handle request number {j} for the {i} skill
    tags: [smoke, group{g}]
    assertions:
      - kind: contains
        value: handled
      - kind: not_contains
        value: "error {j}"
      - kind: regex
        value: "request number {j}\\\\b"
"""

# The trivial item both floors yield: it runs nothing and reports where it was found.
TRIVIAL_ITEM = """
import pytest

class Trivial(pytest.Item):
    def runtest(self):
        pass

    def reportinfo(self):
        return self.path, 0, self.name
"""

# Both floors are plugins (loaded with -p from FLOOR_PLUGINS, with the plugin off) that
# collect the very tree pytest-skill-lens collects: the same rootdir, directories and
# file paths, so node ids, locations and keywords differ only by what the plugin adds.
FLOOR_PLUGINS = "floor-plugins"

# pytest's own cost alone: the same number of trivial items from each SKILL.md, no
# other file read.
FLOOR_PLUGIN = (
    TRIVIAL_ITEM
    + """
class Skill(pytest.File):
    def collect(self):
        for j in range({cases}):
            yield Trivial.from_parent(self, name=f"case {{j}}[fake]")

def pytest_collect_file(file_path, parent):
    if file_path.name == "SKILL.md":
        return Skill.from_parent(parent, path=file_path)
"""
)


# The floor as issue 17 words it: a plugin that collects the same eval files into trivial
# items, each read with libyaml (the fastest way PyYAML has), one item per case.
FILES_FLOOR_PLUGIN = (
    TRIVIAL_ITEM
    + """
import yaml

class EvalFile(pytest.File):
    def collect(self):
        data = yaml.load(self.path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        for case in data["cases"]:
            yield Trivial.from_parent(self, name=f"{case['name']}[fake]")

def pytest_collect_file(file_path, parent):
    if file_path.name == "cases.yaml":
        return EvalFile.from_parent(parent, path=file_path)
"""
)

# The pytest arguments of each floor, run in the tree's root with FLOOR_PLUGINS on
# PYTHONPATH (``skills`` is where pytest-skill-lens is pointed too).
BARE_FLOOR_ARGS = ["-p", "no:skill_lens", "-p", "bench_floor", "skills"]
FILES_FLOOR_ARGS = ["-p", "no:skill_lens", "-p", "bench_files_floor", "skills"]


def generate(root: Path, skills: int, cases: int) -> None:
    """N skills x M cases under ``root/skills``, and both floor plugins in
    ``root/FLOOR_PLUGINS``."""
    for i in range(skills):
        skill_dir = root / "skills" / f"skill-{i:03d}"
        (skill_dir / "evals").mkdir(parents=True)
        (skill_dir / "SKILL.md").write_text(
            f"---\nname: skill-{i:03d}\ndescription: Benchmark skill {i}\n---\nHandle requests.\n"
        )
        body = "".join(CASE.format(i=i, j=j, g=j % 5) for j in range(cases))
        (skill_dir / "evals" / "cases.yaml").write_text("cases:\n" + body)
    plugins = root / FLOOR_PLUGINS
    plugins.mkdir()
    (plugins / "bench_floor.py").write_text(FLOOR_PLUGIN.format(cases=cases))
    (plugins / "bench_files_floor.py").write_text(FILES_FLOOR_PLUGIN)


def timed(args: list[str], cwd: Path, expect: int) -> float:
    # Measure what a user's repeated runs cost: with bytecode cached, as Python does by default.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    plugins = str(cwd / FLOOR_PLUGINS)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [plugins, env.get("PYTHONPATH")]))
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != expect:
        command = " ".join(args)
        tail = f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        sys.exit(f"pytest {command} exited {proc.returncode}:\n{tail}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skills", type=int, default=100)
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, ns.skills, ns.cases)
        (root / "pytest.ini").write_text("[pytest]\n")
        # "cold" reparses every eval file (no cache provider, as on a fresh CI checkout);
        # "warm" reuses the parse cache a previous run left (an IDE re-collecting).
        cold = ["-p", "no:cacheprovider"]
        # Each is compared with the floor under the same cache-provider setting.
        floor = BARE_FLOOR_ARGS
        # Another installed plugin's start-up cost would be paid by both sides and hide
        # ours: langsmith (a langchain dependency) takes seconds to import.
        others = ["-p", "no:langsmith_plugin"]
        rows = {
            "floor cold collect": (["--collect-only", *floor, *cold], root, 0),
            "cold collect": (["--skill-lens", "skills", "--collect-only", *cold], root, 0),
            "floor warm collect": (["--collect-only", *floor], root, 0),
            "warm collect": (["--skill-lens", "skills", "--collect-only"], root, 0),
            "floor cold run": ([*floor, *cold], root, 0),
            "cold run": (["--skill-lens", "skills", *cold], root, 0),
            "floor warm run": (floor, root, 0),
            "warm run": (["--skill-lens", "skills"], root, 0),
        }
        results = {}
        rows = {
            label: ([*args, *others], cwd, expect) for label, (args, cwd, expect) in rows.items()
        }
        for args, cwd, expect in rows.values():  # warm-up: compile and cache bytecode once
            timed(args, cwd, expect)
        for label, (args, cwd, expect) in rows.items():
            times = [timed(args, cwd, expect) for _ in range(ns.rounds)]
            results[label] = statistics.median(times)
        n = ns.skills * ns.cases
        print(f"{ns.skills} skills x {ns.cases} cases = {n} items, median of {ns.rounds} rounds")
        for label, seconds in results.items():
            print(f"  {label:<20} {seconds:6.2f} s")
        for temperature in ("cold", "warm"):
            for phase in ("collect", "run"):
                ratio = results[f"{temperature} {phase}"] / results[f"floor {temperature} {phase}"]
                print(f"  {temperature} {phase}: {ratio:.2f}x the floor")


if __name__ == "__main__":
    main()
