"""What a product run costs beyond the product: the plugin against the bare product command.

For each product (claude-code, copilot, codex, gemini-cli, opencode: the real binaries
pinned in products/node_modules/.bin) one scripted server on 127.0.0.1 answers every
request about "greet the team" with the same text, and these variants run interleaved,
round after round, each round starting one step further on (bare_products.py holds the
products' command lines):

- ``bare``: the product's own command line (the preset's flags, the same prompt, the
  same endpoint variables) in a fresh temporary directory holding only the skill where
  the product finds it, with a home of its own that persists between runs as a user's
  does (warmed by one untimed run, holding the few files the product needs offline:
  Gemini CLI's settings, OpenCode's seeded plugin directory, Codex's CODEX_HOME);
- ``bare-fresh``: the same in a new home every run, as home isolation starts it (the
  product's own first-run setup, paid by any hermetic harness);
- ``bare-mcp``: ``bare`` with one stdio MCP server of a few lines of Python configured
  the way the product takes one (the baseline of ``tools``);
- ``auto``: ``pytest --skill-lens`` with N ``mode: offered`` cases (the prompt is the
  bare task) under the default product sandbox: home isolation, and bwrap where it
  works (the first line printed says whether the probe adopted it);
- ``off``: the same under ``product_sandbox = "off"`` (the product in the bare runs'
  home; Codex then keeps its own sandbox, ``--sandbox workspace-write``);
- ``tools``: ``auto`` with one mock tool declared per case, so every call starts the
  MCP bridge; the scripted reply is the same text (the tool is listed, never called).

Both sides get the same few variables (PATH, LANG, TMPDIR, the endpoint's), not this
machine's environment. A plugin variant's time per case is JUnit's (setup + call +
teardown of each case: pytest's start-up, collection and preflight excluded); the
session's wall over N is printed beside it, and the start-up (session wall minus the
cases) apart. CPU is the user + system time of the whole process tree (a cpuacct
cgroup where one can be made, which also counts what runs inside bwrap), per case:
the bare run's own, a session's divided by N (start-up included). Each case's
``latency_ms`` (the product's start to its end) is read from the JUnit file, so the
case's wall splits into the product's run and ours (setup, delivery, trace, scoring).
``--against SRC`` runs the ``--against-variants`` again with another tree's ``src``
first on PYTHONPATH, in the same rounds (before/after a change).

    python benchmarks/product_overhead.py                       # 5 products, N=4, 3 rounds
    python benchmarks/product_overhead.py --products codex --cases 6 --rounds 5
    git archive 3d02add src | tar -x -C /tmp/old
    python benchmarks/product_overhead.py --against /tmp/old/src --cases 3
    python benchmarks/product_overhead.py --products codex --variants auto --workers 2 \
        --against /tmp/old/src --against-variants auto      # the session under xdist

The scripted servers are the test suite's (tests/plugin/*_server.py), imported from there.
Offline and free: placeholder keys, nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bare_products import BIN, FLOOR_MCP, PRODUCTS, SKILL, TASK, TOOL, Product

QUIET = ("-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:cacheprovider")


class Clock:
    """CPU seconds of a command's whole process tree.

    A cgroup (v1 ``cpuacct``, when this user may make one) counts every descendant, those
    inside bwrap's PID namespace too, which ``RUSAGE_CHILDREN`` loses when the namespace's
    init goes; without one, the rusage of the waited-for descendants is all there is.
    """

    def __init__(self) -> None:
        self.group: Path | None = None
        self.source = "RUSAGE_CHILDREN (what runs inside bwrap is lost)"

    def open(self) -> None:
        group = Path(f"/sys/fs/cgroup/cpuacct/product-overhead-{os.getpid()}")
        try:
            group.mkdir()
        except OSError:
            return
        self.group, self.source = group, "a cpuacct cgroup"

    def join(self) -> None:  # in the child, before exec
        if self.group is not None:
            (self.group / "cgroup.procs").write_text(str(os.getpid()))

    def read(self) -> float:
        if self.group is not None:
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def close(self) -> None:
        if self.group is None:
            return
        try:
            self.group.rmdir()
        except OSError as exc:  # a process left in it: say so rather than hide it
            print(f"could not remove the cgroup {self.group}: {exc}", file=sys.stderr)


CLOCK = Clock()


def timed(argv: list[str], cwd: Path, env: Mapping[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of one command, and its output; a failure stops the benchmark."""
    cpu, began = CLOCK.read(), time.perf_counter()
    done = subprocess.run(
        argv, cwd=cwd, env=dict(env), capture_output=True, text=True, preexec_fn=CLOCK.join
    )
    wall = time.perf_counter() - began
    if done.returncode != 0:
        said = f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        raise SystemExit(f"failed ({done.returncode}): {argv[:6]}...\n{said}")
    return wall, CLOCK.read() - cpu, done.stdout


def write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


class Bench:
    """One product's plugin projects and its bare commands, against one scripted server."""

    def __init__(
        self, product: Product, url: str, base: Path, cases: int, temp: str, workers: int = 0
    ) -> None:
        self.product, self.url, self.base, self.cases = product, url, base, cases
        self.workers = workers  # pytest-xdist workers of each plugin run (0: none)
        (base / "floor_mcp.py").write_text(FLOOR_MCP, encoding="utf-8")
        self.floor = [sys.executable, str(base / "floor_mcp.py")]
        # The bare runs' homes (one with the MCP server configured), persistent as a user's;
        # the first is the user's home under "off" too.
        self.home, self.mcp_home = base / "home", base / "home-mcp"
        path = f"{BIN}{os.pathsep}{os.environ['PATH']}"
        # Both sides get the same few variables, not this machine's own (its NODE_EXTRA_CA_CERTS
        # alone costs every Node start a CA bundle's parse).
        self.environ = {"PATH": path, "LANG": "C.UTF-8", "TMPDIR": temp, **product.env(url)}
        self.projects = {name: self._project(name) for name in ("auto", "off", "tools")}

    def _project(self, variant: str) -> Path:
        root = self.base / f"project-{variant}"
        case: dict[str, Any] = {"mode": "offered", "task": TASK}
        case["assertions"] = [{"kind": "contains", "value": "warmly"}]
        if variant == "tools":
            case["tools"] = [TOOL]
        cases = [{"name": f"case {i}", **case} for i in range(self.cases)]
        sandbox = 'product_sandbox = "off"\n' if variant == "off" else ""
        files = {"skills/greet/SKILL.md": SKILL, "skill-lens.toml": sandbox + self.product.toml}
        write(root, files | {"skills/greet/evals/cases.yaml": json.dumps({"cases": cases})})
        return root

    def bare(self, variant: str) -> tuple[float, float]:
        """``bare``, ``bare-mcp`` (with the minimal MCP server) or ``bare-fresh`` (in a new
        home, as home isolation starts the product: its first-run setup every time)."""
        mcp = variant == "bare-mcp"
        fresh = variant == "bare-fresh"
        home = Path(tempfile.mkdtemp(dir=self.base)) if fresh else self.home
        home = self.mcp_home if mcp else home
        start = self.product.bare(self.url, home, self.floor if mcp else None)
        write(home, start.home_files)
        work = Path(tempfile.mkdtemp(dir=self.base, prefix="bare-"))
        write(work, {f"{self.product.skills_dir}/greet/SKILL.md": SKILL})
        env = {**self.environ, "HOME": str(home), **start.env}
        wall, cpu, out = timed([*start.argv, *self.product.prompt(TASK)], work, env)
        if "warmly" not in out:
            raise SystemExit(f"bare {self.product.runner} did not answer:\n{out[-2000:]}")
        shutil.rmtree(work)
        if fresh:
            shutil.rmtree(home)
        return wall, cpu

    def plugin(
        self, variant: str, src: str | None
    ) -> tuple[list[float], list[float], float, float]:
        """Each case's wall time (JUnit's), each case's product latency (the product's start
        to its end, the case's ``latency_ms`` property), the session's wall and its CPU."""
        project = self.projects[variant]
        junit = project / "junit.xml"
        env = {**self.environ, "HOME": str(self.home)}
        if src is not None:
            env["PYTHONPATH"] = src
        argv = [sys.executable, "-m", "pytest", "--skill-lens", "skills", "-q", "-p"]
        argv += ["no:randomly", *QUIET, "--skill-lens-runner", self.product.runner]
        argv += ["-n", str(self.workers)] if self.workers else []
        wall, cpu, _ = timed([*argv, f"--junitxml={junit}"], project, env)
        cases = list(ET.parse(junit).iter("testcase"))
        bad = [c for c in cases if any(c.find(t) is not None for t in ("failure", "error"))]
        if len(cases) != self.cases or bad:
            said = ET.tostring(bad[0])[:3000] if bad else len(cases)
            raise SystemExit(f"{self.product.runner} {variant}: {said!r}")
        latency = [_property(c, "latency_ms") / 1000 for c in cases]
        return [float(c.get("time", "nan")) for c in cases], latency, wall, cpu


def _property(case: ET.Element, name: str) -> float:
    found = case.find(f"properties/property[@name='{name}']")
    return float(found.get("value", "nan")) if found is not None else float("nan")


def sandbox_backend() -> str:
    """The backend ``auto`` adopts on this machine (bwrap, or none and why)."""
    from pytest_skill_lens.run.sandbox.product_sandbox import decide

    found = decide("auto")
    return found.backend if found.backend != "none" else f"none ({found.detail})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--products", default=",".join(PRODUCTS))
    parser.add_argument("--variants", default="auto,off,tools")
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", help="another tree's src, run as a second plugin side")
    parser.add_argument("--against-variants", default="auto,tools", help="those run --against")
    parser.add_argument("--tmpdir", help="TMPDIR for both sides (default: the system's)")
    parser.add_argument("--json", help="write every sample here")
    parser.add_argument("--workers", type=int, default=0, help="run the plugin with -n N")
    args = parser.parse_args()
    temp = str(Path(args.tmpdir or tempfile.gettempdir()).resolve())
    sides: list[tuple[str, str | None]] = [("", None)]
    if args.against:
        sides.append(("@against", str(Path(args.against).resolve())))
    entries = len(os.listdir(temp))
    CLOCK.open()
    print(f"product sandbox under auto: {sandbox_backend()}; CPU from {CLOCK.source}")
    print(f"TMPDIR {temp}: {entries} entries")
    base = Path(tempfile.mkdtemp(prefix="product-overhead-", dir="/var/tmp"))
    samples: Samples = defaultdict(lambda: defaultdict(list))
    try:
        for name in args.products.split(","):
            bench_args = (args.cases, temp, args.workers)
            steps = plan(args.variants.split(","), sides, args.against_variants.split(","))
            run_product(PRODUCTS[name], base / name, bench_args, args.rounds, steps, samples)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        CLOCK.close()
    report(samples, args.cases)
    if args.json:
        data = {f"{p}|{v}": s for (p, v), s in samples.items()}
        Path(args.json).write_text(json.dumps(data, indent=1))


Samples = dict[tuple[str, str], dict[str, list[float]]]
Step = tuple[str, str | None, str]  # label, src, variant


def plan(
    variants: list[str], sides: list[tuple[str, str | None]], against: list[str]
) -> list[Step]:
    """The bare runs, then each variant (and its ``--against`` side where asked)."""
    steps: list[Step] = [("bare", None, "bare"), ("bare-fresh", None, "bare-fresh")]
    if "tools" in variants:
        steps.append(("bare-mcp", None, "bare-mcp"))
    for variant in variants:
        steps += [
            (variant + label, src, variant)
            for label, src in sides
            if not label or variant in against
        ]
    return steps


def run_product(
    product: Product,
    base: Path,
    bench_args: tuple[int, str, int],
    rounds: int,
    steps: list[Step],
    samples: Samples,
) -> None:
    """``rounds`` rounds of ``steps``, each round starting one step further on."""
    cases, temp, workers = bench_args
    base.mkdir(parents=True)
    with product.server() as server:
        server.by_content[TASK] = [product.reply()]
        bench = Bench(product, server.url, base, cases, temp, workers)
        for _label, src, variant in steps:  # warm the homes and the caches; untimed
            if variant.startswith("bare"):
                bench.bare(variant)
            else:
                bench.plugin(variant, src)
        for round_ in range(rounds):
            shift = round_ % len(steps)
            for label, src, variant in steps[shift:] + steps[:shift]:
                store = samples[(product.runner, label)]
                if variant.startswith("bare"):
                    for _ in range(cases):
                        wall, cpu = bench.bare(variant)
                        store["case"].append(wall)
                        store["cpu"].append(cpu)
                    continue
                each, latency, wall, cpu = bench.plugin(variant, src)
                store["case"] += each
                store["product"] += latency
                store["ours"] += [
                    case - product for case, product in zip(each, latency, strict=True)
                ]
                store["session"].append(wall)
                store["startup"].append(wall - sum(each))
                store["cpu"].append(cpu / cases)
            print(f"{product.runner}: round {round_ + 1} done", file=sys.stderr, flush=True)


def report(samples: Samples, cases: int) -> None:
    """Medians per product and variant, each against the bare run it compares with: the
    product alone, or (``tools``) the product with a minimal MCP server."""
    print(f"\nmedians; wall/case: JUnit's per case (N={cases} per session); session/N: the")
    print("whole pytest process; CPU/case: the process tree's, a session's / N (start-up in);")
    print("product: the product's own start to end in a case (its latency_ms); ours: the")
    print("case's wall minus that; spread: the lowest and highest per-case wall; later: the")
    print("cases after each session's first (which also pays the runner's first imports)")
    columns = ["wall/case", "ratio", "later", "ratio", "spread", "product", "ours"]
    columns += ["session/N", "ratio"]
    columns += ["start-up", "CPU/case", "ratio"]
    print(f"| product | variant | {' | '.join(columns)} |")
    print(f"|---|---|{'---:|' * len(columns)}")
    for product in dict.fromkeys(p for p, _ in samples):
        for (name, label), got in samples.items():
            if name != product:
                continue
            wall, cpu = statistics.median(got["case"]), statistics.median(got["cpu"])
            spread = f"{min(got['case']):.2f}-{max(got['case']):.2f} s"
            if label.startswith("bare"):
                cells = [f"{wall:.2f} s", "", "", "", spread, *[""] * 5, f"{cpu:.2f} s", ""]
                print(f"| {product} | {label} | {' | '.join(cells)} |")
                continue
            bare = samples[(product, "bare-mcp" if label.startswith("tools") else "bare")]
            wall0, cpu0 = statistics.median(bare["case"]), statistics.median(bare["cpu"])
            per = statistics.median(got["session"]) / cases
            startup = statistics.median(got["startup"])
            own = statistics.median(got["product"]), statistics.median(got["ours"])
            later = statistics.median(_later(got["case"], cases))
            cells = [f"{wall:.2f} s", f"{wall / wall0:.2f}x", f"{later:.2f} s"]
            cells += [f"{later / wall0:.2f}x", spread]
            cells += [f"{own[0]:.2f} s", f"{own[1] * 1000:.0f} ms"]
            cells += [f"{per:.2f} s", f"{per / wall0:.2f}x"]
            cells += [f"{startup:.2f} s", f"{cpu:.2f} s", f"{cpu / cpu0:.2f}x"]
            print(f"| | {label} | {' | '.join(cells)} |")


def _later(walls: list[float], cases: int) -> list[float]:
    """Every case but each session's first (the samples hold N cases a session, in order)."""
    return [wall for index, wall in enumerate(walls) if index % cases] or walls


if __name__ == "__main__":
    main()
