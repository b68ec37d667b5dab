"""Does --skill-lens-repeat auto keep its error rate, and how many runs does it save?

Simulates skills of five cases whose true rates differ from case to case, run in rounds
(one repetition of every case per round), and decides each with the real rule
(``pytest_skill_lens.gate.sequential``) read after every round up to the maximum:

* **pass rate** against a bar of 0.8 (``per_skill_min``), true mean rates 0.5 to 1.0;
* **paired delta** against ``min_delta = 0``, baseline rates around 0.5, true effects
  -0.3 to +0.3 (the arms independent given the case).

For every point of the grid it prints how often the rule decided pass, fail or nothing by
the maximum, how often it decided **wrongly** (pass below the bar, fail at or above it)
with a 95% Wilson interval of that Monte Carlo rate, the mean rounds it ran, the rounds a
**fixed count** needs for the same power (the chance of the right decision) with the
usual fixed-sample test at the same alpha (one-sided Wilson bounds on the pooled runs;
for a delta, on the share of discordant pairs the candidate won, McNemar's question),
shown where that power is at least 50%, and what the same fixed test does when it is
**read after every round** instead (the peeking it was not made for).

    python benchmarks/sequential.py                      # 2000 runs a point, 16 points
    python benchmarks/sequential.py --runs 500 --max-rounds 20
    python benchmarks/sequential.py --shock 0.15     # rounds that swing together

Deterministic: every point draws from its own ``random.Random`` seeded from ``--seed``.
Pure Python, one core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from pytest_skill_lens.gate.intervals import wilson_interval
from pytest_skill_lens.gate.sequential import (
    DEFAULT_ALPHA,
    decide_delta,
    decide_rate,
)
from pytest_skill_lens.labels import Status

SPREAD = (-1.0, -0.5, 0.0, 0.5, 1.0)  # five cases around the mean, which stays exact
RATE_BAR = 0.8
RATE_GRID = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
DELTA_BAR = 0.0
DELTA_GRID = (-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3)
BASELINE = tuple(0.5 + 0.2 * s for s in SPREAD)
FIXED_HORIZON = 60  # rounds simulated for the fixed-count comparison

# One simulated run: per round, per case, (candidate passed, baseline passed).
Stream = list[list[tuple[bool, bool]]]


@dataclass(frozen=True)
class Point:
    label: str
    truth: float  # the true mean rate, or the true effect
    bar: float
    runs: int
    decided_pass: int
    decided_fail: int
    wrong: int
    mean_rounds: float
    power: float
    fixed_rounds: int | None  # None: no count up to FIXED_HORIZON reaches the power
    peeking_wrong: int


def case_rates(mean: float) -> list[float]:
    spread = min(0.1, mean, 1.0 - mean)
    return [mean + spread * s for s in SPREAD]


def draw(
    rng: random.Random, candidate: Sequence[float], baseline: Sequence[float], shock: float = 0.0
) -> Stream:
    """Rounds of outcomes; with ``shock``, every rate of a round moves by +shock or -shock."""
    stream: Stream = []
    for _ in range(FIXED_HORIZON):
        move = 0.0 if not shock else (shock if rng.random() < 0.5 else -shock)
        pairs = zip(candidate, baseline, strict=True)
        stream.append([(rng.random() < c + move, rng.random() < b + move) for c, b in pairs])
    return stream


def status(passed: bool) -> Status:
    return "passed" if passed else "failed"


def wilson_test(n: int, total: float, bar: float, alpha: float) -> str | None:
    """The fixed-sample test: one-sided Wilson bounds at 1 - alpha on the pooled values."""
    low, high = _wilson(total, n, 1.0 - 2.0 * alpha)
    if low >= bar:
        return "pass"
    return "fail" if high < bar else None


_WILSON: dict[tuple[float, int, float], tuple[float, float]] = {}


def _wilson(successes: float, trials: int, level: float) -> tuple[float, float]:
    key = (successes, trials, level)
    if key not in _WILSON:
        interval = wilson_interval(successes, trials, level)
        _WILSON[key] = (interval.low, interval.high)
    return _WILSON[key]


def fixed_verdicts(stream: Stream, paired: bool, bar: float, alpha: float) -> list[str | None]:
    """The fixed-sample test's verdict after 1, 2, ... rounds (index 0 unused).

    A rate pools the candidate runs. A delta against 0 is McNemar's question: among the
    discordant pairs, is the share the candidate won at least one half?
    """
    if paired and bar != 0.0:
        raise ValueError("the fixed-sample comparison for a delta is McNemar's, against 0")
    verdicts: list[str | None] = [None]
    n, total = 0, 0
    for outcomes in stream:
        for c, b in outcomes:
            if not paired or c != b:
                n, total = n + 1, total + c
        verdicts.append(wilson_test(n, total, 0.5 if paired else bar, alpha) if n else None)
    return verdicts


def simulate(
    label: str,
    truth: float,
    candidate: Sequence[float],
    baseline: Sequence[float] | None,
    bar: float,
    *,
    runs: int,
    max_rounds: int,
    seed: int,
    alpha: float,
    shock: float = 0.0,
) -> Point:
    rng = random.Random(f"{seed}:{label}:{truth}")
    right = "pass" if truth >= bar - 1e-12 else "fail"
    counts = {"pass": 0, "fail": 0}
    wrong = peeking_wrong = 0
    rounds_used: list[int] = []
    fixed_right = [0] * (FIXED_HORIZON + 1)
    for _ in range(runs):
        stream = draw(rng, candidate, baseline or [0.0] * len(candidate), shock)
        head = stream[:max_rounds]
        if baseline is None:
            decision = decide_rate(
                [[status(c) for c, _ in r] for r in head], bar, max_rounds=max_rounds, alpha=alpha
            )
        else:
            decision = decide_delta(
                [[(status(c), status(b)) for c, b in r] for r in head],
                bar,
                max_rounds=max_rounds,
                alpha=alpha,
            )
        rounds_used.append(decision.decided_at or max_rounds)
        if decision.verdict in counts:
            counts[decision.verdict] += 1
            wrong += decision.verdict != right
        verdicts = fixed_verdicts(stream, baseline is not None, bar, alpha)
        peeked = next((v for v in verdicts[1 : max_rounds + 1] if v), None)
        peeking_wrong += peeked is not None and peeked != right
        for n in range(1, FIXED_HORIZON + 1):
            fixed_right[n] += verdicts[n] == right
    power = counts[right] / runs
    fixed_rounds = next(
        (n for n in range(1, FIXED_HORIZON + 1) if fixed_right[n] >= power * runs), None
    )
    return Point(
        label,
        truth,
        bar,
        runs,
        counts["pass"],
        counts["fail"],
        wrong,
        statistics.fmean(rounds_used),
        power,
        fixed_rounds,
        peeking_wrong,
    )


def interval_text(count: int, runs: int) -> str:
    interval = wilson_interval(count, runs)
    return f"{count / runs:.2%} [{interval.low:.2%}, {interval.high:.2%}]"


def table(points: Sequence[Point], what: str, max_rounds: int) -> list[str]:
    lines = [
        f"| {what} | pass | fail | undecided | wrong (95% MC interval) | mean rounds | "
        f"saved vs {max_rounds} | fixed rounds, same power | Wilson read every round: wrong |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for p in points:
        undecided = p.runs - p.decided_pass - p.decided_fail
        fixed = (
            "-"
            if p.power < 0.5
            else (f"{p.fixed_rounds}" if p.fixed_rounds else f"> {FIXED_HORIZON}")
        )
        truth = f"{p.truth:+.2f}" if p.label == "delta" else f"{p.truth:.2f}"
        lines.append(
            f"| {truth} | {p.decided_pass / p.runs:.1%} | {p.decided_fail / p.runs:.1%} | "
            f"{undecided / p.runs:.1%} | {interval_text(p.wrong, p.runs)} | {p.mean_rounds:.2f} | "
            f"{1.0 - p.mean_rounds / max_rounds:.0%} | {fixed} (power {p.power:.0%}) | "
            f"{interval_text(p.peeking_wrong, p.runs)} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated runs per grid point")
    parser.add_argument("--max-rounds", type=int, default=10, help="the N of auto:N")
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA)
    parser.add_argument(
        "--shock",
        type=float,
        default=0.0,
        help="break the rule's assumption: five cases of one rate, all moved together by "
        "+S or -S each round (pass rates only)",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.shock:
        return shocked(args)
    common = {
        "runs": args.runs,
        "max_rounds": args.max_rounds,
        "seed": args.seed,
        "alpha": args.alpha,
    }
    rates = [
        simulate("rate", mean, case_rates(mean), None, RATE_BAR, **common) for mean in RATE_GRID
    ]
    deltas = [
        simulate("delta", effect, [b + effect for b in BASELINE], BASELINE, DELTA_BAR, **common)
        for effect in DELTA_GRID
    ]
    total = sum(p.runs for p in (*rates, *deltas))
    print(
        f"{total} simulated runs, 5 cases, alpha {args.alpha}, at most {args.max_rounds} rounds, "
        f"seed {args.seed}, {time.perf_counter() - started:.0f} s\n"
    )
    print(f"Pass rate against a bar of {RATE_BAR} (first column: the true mean rate)\n")
    print("\n".join(table(rates, "true rate", args.max_rounds)))
    print(f"\nPaired delta against min_delta = {DELTA_BAR:+.1f} (first column: the true effect)\n")
    print("\n".join(table(deltas, "true effect", args.max_rounds)))
    worst = max((*rates, *deltas), key=lambda p: p.wrong / p.runs)
    worst_rate = interval_text(worst.wrong, worst.runs)
    print(f"\nlargest wrong-decision rate: {worst_rate} ({worst.label} {worst.truth:+.2f})")
    return 0


def shocked(args: argparse.Namespace) -> int:
    """The pass-rate grid with round-level swings, the mean kept (S cut to stay in [0, 1])."""
    started = time.perf_counter()
    points = [
        simulate(
            "rate",
            mean,
            [mean] * 5,
            None,
            RATE_BAR,
            runs=args.runs,
            max_rounds=args.max_rounds,
            seed=args.seed,
            alpha=args.alpha,
            shock=min(args.shock, mean, 1.0 - mean),
        )
        for mean in RATE_GRID
    ]
    print(
        f"{sum(p.runs for p in points)} simulated runs, 5 cases of one rate moved together by "
        f"+/-{args.shock} each round, alpha {args.alpha}, at most {args.max_rounds} rounds, "
        f"seed {args.seed}, {time.perf_counter() - started:.0f} s\n"
    )
    print("\n".join(table(points, "true rate", args.max_rounds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
