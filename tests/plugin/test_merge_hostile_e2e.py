"""A partial, inconsistent or impossible set of shard reports never merges green.

Real shards (``--skill-lens-shard K/2``) of one small suite, run the ways a CI job can go
wrong: on a path that holds no skill, with a ``-k`` that selects nothing or other items,
on another version of the suite, with other settings, or handed over edited (a NaN, an
infinity, a negative cost). Each merge is exit 2 naming the shard's file and what is
wrong, or (when every shard agrees that nothing ran) a failed gate; no merged report
says passed. Case ``c1`` fails and lands on shard 1 (shard.assign), so a merge that
quietly leaves shard 1 out would pass.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun, Report, run_merge, run_module
from skillfactory import make_skill, scripted_runner_conftest, write_file

from pytest_skill_lens.plugin.shard import assign

CASES = ["c1", "c2", "c3", "c4"]
REPEATED = LensRun(
    runner="scripted", options=("--skill-lens-repeat", "2", "-p", "no:cacheprovider")
)


def _suite(root: Path, expected: str = "PASS") -> None:
    """``skills/solo``, four cases that look for ``expected``; ``c1`` answers ``nope``."""
    case = {"assertions": [{"kind": "contains", "value": expected}]}
    make_skill(root / "skills", "solo", [{"name": c, "task": "t", **case} for c in CASES])
    script = {c: {"output": "nope" if c == "c1" else "PASS", "cost_usd": 0.25} for c in CASES}
    write_file(root / "conftest.py", scripted_runner_conftest(script))
    (root / "elsewhere").mkdir(exist_ok=True)  # a path that holds no skill


def _shard(pytester: pytest.Pytester, k: int, *more: str, path: str = "skills") -> pytest.RunResult:
    shard = replace(REPEATED, skills=path, json=f"shard-{k}.json")
    return shard(pytester, "--skill-lens-shard", f"{k}/2", *more)


def _merge(pytester: pytest.Pytester, *args: str) -> subprocess.CompletedProcess[str]:
    return run_merge(pytester, *args, "--json", "merged.json")


def _html(pytester: pytest.Pytester, report: str) -> subprocess.CompletedProcess[str]:
    return run_module(pytester, "pytest_skill_lens.cli", "html", report, "-o", "page.html")


def _load(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    data: dict[str, Any] = Report.read(pytester.path / name)
    return data


def _refused(merged: subprocess.CompletedProcess[str], *said: str) -> None:
    """Exit 2, every phrase of ``said`` on stderr, and no merged report at all."""
    assert merged.returncode == 2, merged.stdout + merged.stderr
    for phrase in said:
        assert phrase in merged.stderr, merged.stderr
    assert "fix:" in merged.stderr
    assert "Gate passed" not in merged.stdout


def _no_green_report(pytester: pytest.Pytester) -> None:
    merged = pytester.path / "merged.json"
    assert not merged.exists() or _load(pytester, "merged.json")["gate"]["passed"] is False


def test_the_failing_case_is_on_shard_1() -> None:
    # The premise of every test here: leaving shard 1 out would leave c1 out.
    assert assign([("solo", c) for c in CASES], 2)[("solo", "c1")] == 1


def test_a_whole_pair_of_shards_fails_on_c1(pytester: pytest.Pytester) -> None:
    _suite(pytester.path)
    assert [_shard(pytester, k).ret for k in (1, 2)] == [1, 0]
    merged = _merge(pytester, "shard-1.json", "shard-2.json")
    assert merged.returncode == 1, merged.stderr
    assert "6 passed, 2 failed" in merged.stdout


def test_a_shard_run_on_a_path_without_skills_refuses_the_merge(
    pytester: pytest.Pytester,
) -> None:
    _suite(pytester.path)
    lost = _shard(pytester, 1, path="elsewhere")
    assert lost.ret == 1  # its own gate: no skills were found
    assert _shard(pytester, 2).ret == 0
    merged = _merge(pytester, "shard-1.json", "shard-2.json")
    _refused(merged, "shard-1.json", "found no skill", "shard-2.json found 1")
    _no_green_report(pytester)


def test_a_shard_whose_k_selected_nothing_refuses_the_merge(pytester: pytest.Pytester) -> None:
    _suite(pytester.path)
    assert _shard(pytester, 1, "-k", "nomatch").ret == 1
    assert _shard(pytester, 2).ret == 0
    merged = _merge(pytester, "shard-2.json", "shard-1.json")
    _refused(merged, "shard-1.json", "selected no case", "shard-2.json")
    _no_green_report(pytester)


def test_shards_that_all_selected_nothing_fail_the_gate(pytester: pytest.Pytester) -> None:
    # Consistent with each other, and with one unsharded run of the same command: exit 1.
    _suite(pytester.path)
    assert [_shard(pytester, k, "-k", "nomatch").ret for k in (1, 2)] == [1, 1]
    merged = _merge(pytester, "shard-1.json", "shard-2.json")
    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert "no eval cases ran" in merged.stdout
    _no_green_report(pytester)


def test_a_shard_that_selected_other_items_of_the_same_cases_refuses_the_merge(
    pytester: pytest.Pytester,
) -> None:
    # -k drops each case's second repeat on shard 1 only: the same cases, fewer items.
    _suite(pytester.path)
    _shard(pytester, 1, "-k", "not r2")
    _shard(pytester, 2)
    assert len(_load(pytester, "shard-1.json")["outcomes"]) == 2
    merged = _merge(pytester, "shard-1.json", "shard-2.json")
    _refused(merged, "shard-2.json", "selected other items than shard-1.json", "8 against 4")
    _no_green_report(pytester)


def test_a_shard_of_another_version_of_the_suite_refuses_the_merge(
    pytester: pytest.Pytester,
) -> None:
    _suite(pytester.path, expected="nope")  # on this commit c1's answer passes
    _shard(pytester, 1)
    _suite(pytester.path)  # the next commit: the same case names, other checks
    _shard(pytester, 2)
    merged = _merge(pytester, "shard-1.json", "shard-2.json")
    _refused(merged, "shard-2.json", "skill 'solo'", "differ from shard-1.json's")
    _no_green_report(pytester)


def test_a_shard_run_with_other_settings_refuses_the_merge(pytester: pytest.Pytester) -> None:
    _suite(pytester.path)
    _shard(pytester, 1)
    _shard(pytester, 2, "--skill-lens-case-timeout", "5")
    merged = _merge(pytester, "shard-1.json", "shard-2.json")
    _refused(merged, "shard-2.json", "case_timeout_seconds", "shard-1.json")
    _no_green_report(pytester)


def test_a_plain_report_among_shards_refuses_the_merge(pytester: pytest.Pytester) -> None:
    _suite(pytester.path)
    _shard(pytester, 2)
    replace(REPEATED, json="whole.json")(pytester)
    merged = _merge(pytester, "whole.json", "shard-2.json")
    _refused(merged, "whole.json is not a shard's report")


IMPOSSIBLE = [
    pytest.param('"min_pass_rate": 1.0', '"min_pass_rate": NaN', "min_pass_rate", id="nan-rate"),
    pytest.param('"cost_usd": 0.25', '"cost_usd": NaN', "cost_usd", id="nan-cost"),
    pytest.param('"latency_ms": ', '"latency_ms": Infinity, "x": ', "latency_ms", id="inf"),
    pytest.param('"cost_usd": 0.25', '"cost_usd": -1e308', "cost_usd", id="negative"),
    pytest.param('"latency_ms": ', '"latency_ms": 1e999, "x": ', "latency_ms", id="overflow"),
    pytest.param('"min_pass_rate": 1.0', '"min_pass_rate": 1.5', "min_pass_rate", id="above-1"),
    pytest.param('"repeat": 2', '"repeat": 0', "run.repeat", id="no-repeat"),
    pytest.param('"passed": true', '"passed": 1', "passed", id="number-as-flag"),
]


@pytest.mark.parametrize(("real", "forged", "field"), IMPOSSIBLE)
def test_an_impossible_figure_refuses_the_merge_and_the_page(
    pytester: pytest.Pytester, real: str, forged: str, field: str
) -> None:
    _suite(pytester.path)
    _shard(pytester, 1)
    _shard(pytester, 2)
    path = pytester.path / "shard-2.json"
    text = path.read_text(encoding="utf-8")
    assert real in text
    path.write_text(text.replace(real, forged), encoding="utf-8")
    merged = _merge(pytester, "shard-1.json", "shard-2.json")
    _refused(merged, "shard-2.json", field)
    assert not (pytester.path / "merged.json").exists()
    page = _html(pytester, "shard-2.json")
    assert page.returncode == 2, page.stdout + page.stderr
    assert "shard-2.json" in page.stderr and field in page.stderr
    assert not (pytester.path / "page.html").exists()


def test_costs_that_add_up_past_a_float_refuse_the_merge(pytester: pytest.Pytester) -> None:
    # Each figure is finite; their sum is not, and would print as "$inf".
    _suite(pytester.path)
    _shard(pytester, 1)
    _shard(pytester, 2)
    for k in (1, 2):
        path = pytester.path / f"shard-{k}.json"
        path.write_text(
            path.read_text(encoding="utf-8").replace('"cost_usd": 0.25', '"cost_usd": 1e308'),
            encoding="utf-8",
        )
    merged = _merge(pytester, "shard-1.json", "shard-2.json")
    _refused(merged, "cost_usd", "past what a number holds")
    page = _html(pytester, "shard-1.json")
    assert page.returncode == 2
    assert "cost_usd" in page.stderr
