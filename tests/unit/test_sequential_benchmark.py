"""benchmarks/sequential.py still runs, and at the bar it shows what the docs say it shows."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "sequential.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sequential_benchmark", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_at_the_bar_the_rule_keeps_alpha_and_peeking_wilson_does_not() -> None:
    bench = load()
    point = bench.simulate(
        "rate", 0.8, bench.case_rates(0.8), None, 0.8, runs=400, max_rounds=10, seed=1, alpha=0.05
    )
    assert point.runs == 400
    assert point.wrong / point.runs <= 0.05
    assert point.peeking_wrong / point.runs > 0.10  # about 18% at 2000 runs
    assert point.decided_fail == point.wrong  # at the bar, deciding fail is the error


def test_the_tables_print(capsys: object) -> None:
    bench = load()
    assert bench.main(["--runs", "20", "--max-rounds", "3"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "| 0.80 |" in out and "| +0.00 |" in out
    assert "largest wrong-decision rate" in out
