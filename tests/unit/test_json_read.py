"""The JSON report read back: what the gate and the delta read survives; the rest is refused."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens import __version__
from pytest_skill_lens.gate.delta import BaselineNote
from pytest_skill_lens.gate.fingerprint import Selection
from pytest_skill_lens.gate.record import GateResult, GateSettings, RunRecord, RunSettings
from pytest_skill_lens.gate.spend import CEILING_STOPPED, SpendCeiling
from pytest_skill_lens.labels import Arm, Status
from pytest_skill_lens.merge.combine import judge
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_read import ReportError, read_report
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score

GATE = GateResult(True, 0)
SETTINGS = RunSettings(
    gate=GateSettings(
        min_pass_rate=0.5,
        fail_on_error=False,
        per_skill_min={"greet": 0.5, "audit": 0.25},
        min_delta=0.0,
        min_delta_confidence=0.9,
        min_case_pass_rate=0.5,
        max_spend_usd=4.0,
        multiplicity="holm",
        per_skill_min_confidence=0.9,
    ),
    runners=("scripted", "other"),
    repeat=2,
    shard="2/3",
    fingerprint={"model": "0123456789abcdef", "judge": "fedcba9876543210"},
)


def _outcome(case: str, status: Status, arm: Arm, repeat: int, order: int, **more: Any) -> Outcome:
    check = CheckResult("contains:PASS", status == "passed", "looked for 'PASS' in 'ok é'")
    return Outcome(
        skill_name="greet",
        case_name=case,
        runner="scripted",
        status=status,
        arm=arm,
        repeat_index=repeat,
        scores=[
            Score(
                "assertions", status == "passed", 1.0 if status == "passed" else 0.0, "d", (check,)
            ),
            Score(
                "judge",
                True,
                0.75,
                "rubric held",
                cost_usd=0.125,
                cost_note=more.pop("judge_note", None),
            ),
        ],
        output="ok é \u202e",
        error="boom" if status == "errored" else None,
        tokens=7,
        input_tokens=5,
        output_tokens=2,
        latency_ms=12.5,
        cost_usd=0.25,
        model="acme",
        retry_cost_usd=0.0625,
        skill_triggered=True,
        skill_triggered_by_session=[True, None],
        skill_loaded=False,
        tool_calls=(ToolCall("lookup", {"q": case, "n": [1, {"deep": None}]}),),
        hooks=(
            {
                "name": "Stop",
                "event": "Stop",
                "outcome": "error",
                "exit_code": 1,
                "stdout": "",
                "stderr": "x",
            },
        ),
        workspace="/tmp/kept",
        nodeid=f"skills/greet/SKILL.md::{case}[scripted{'-baseline' if arm == 'baseline' else ''}"
        f"{f'-r{repeat + 1}' if repeat else ''}]",
        order=order,
        **more,
    )


def _record() -> RunRecord:
    plan = [
        ("a", "passed", "candidate", 0),
        ("a", "passed", "candidate", 1),
        ("a", "failed", "baseline", 0),
        ("a", "passed", "baseline", 1),
        ("b", "failed", "candidate", 0),
        ("b", "errored", "candidate", 1),
        ("b", "failed", "baseline", 0),
        ("b", "failed", "baseline", 1),
    ]
    outcomes = [
        _outcome(case, status, arm, repeat, order)  # type: ignore[arg-type]
        for order, (case, status, arm, repeat) in enumerate(plan)
    ]
    return RunRecord(
        outcomes=outcomes,
        skipped_skills=["empty"],
        deselected_skills=["later"],
        case_filtered_skills=["later"],
        skills_found=4,
        not_run=[
            {
                "nodeid": "skills/greet/SKILL.md::c[scripted]",
                "skill_name": "greet",
                "case_name": "c",
                "runner": "scripted",
                "arm": "candidate",
                "repeat_index": 0,
                "order": 8,
                "reason": CEILING_STOPPED,
            },
        ],
        full_output=True,
        scripts={"sandbox": "bubblewrap", "detail": None, "hardening": "non-dumpable"},
        script_notes=[{"skill_name": "audit", "script_count": 2, "product_note": None}],
        baseline_kind="none",
        baseline_notes=[
            BaselineNote("audit", "unavailable", "no earlier version"),
            BaselineNote("greet", "skipped", "mode: offered", "offered-case"),
        ],
        baseline_sources=[{"skill_name": "greet", "commit": "abc", "path": "p", "version": "1"}],
        spend_ceiling=SpendCeiling(4.0, 3.5, None),
        run=SETTINGS,
        case_order={"greet": ["b", "a", "c"], "audit": ["only"]},
        selection=Selection(9, "d" * 64, {"audit": "a1", "greet": "g1"}),
        skill_md_warnings=[
            {"file": "s/SKILL.md", "line": 2, "field": "name", "problem": "p", "fix": "f"},
            {"file": "s/SKILL.md", "line": 1, "field": None, "problem": "q", "fix": None},
        ],
    )


def _text(record: RunRecord, gate: GateResult = GATE, **changes: Any) -> str:
    data = json.loads(render_json(record, gate))
    for path, value in changes.items():
        target = data
        *parents, last = path.split("__")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        if value is _DELETE:
            del target[last]
        else:
            target[last] = value
    return json.dumps(data)


_DELETE = object()


def test_the_round_trip_keeps_what_the_gate_and_the_delta_read() -> None:
    record = _record()
    again = read_report(render_json(record, GATE))
    assert again.outcomes == record.outcomes  # every field, the order (list place) too
    for name in (
        "skipped_skills", "tag_filtered_skills", "case_filtered_skills", "deselected_skills",
        "skills_found", "not_run", "full_output", "scripts", "script_notes", "baseline_kind",
        "baseline_notes", "baseline_sources", "spend_ceiling", "run", "aborted", "case_order",
        "selection", "skill_md_warnings",
    ):  # fmt: skip
        assert getattr(again, name) == getattr(record, name), name
    judged, gate = judge(record)
    judged_again, gate_again = judge(again)
    assert gate_again == gate
    assert not gate.passed and len(gate.reasons) >= 3  # a real verdict, not an empty one
    assert judged_again.delta == judged.delta
    assert judged.delta is not None and judged.delta.comparable_cases == 2
    assert judged_again.spend_ceiling == judged.spend_ceiling


def test_a_check_not_evaluated_reads_back_so_and_a_measured_one_writes_no_flag() -> None:
    unmeasured = CheckResult("max_tokens", False, "token budget not evaluated: no usage", False)
    outcome = _outcome("a", "failed", "candidate", 0, order=0)
    outcome.scores = [Score("budget", False, 0.0, "max_tokens not evaluated", (unmeasured,))]
    record = RunRecord(outcomes=[outcome, _outcome("b", "failed", "candidate", 0, 1)], run=SETTINGS)
    text = render_json(record, GATE)
    assert text.count('"evaluated"') == 1
    assert [o.scores for o in read_report(text).outcomes] == [o.scores for o in record.outcomes]


def test_outcomes_take_their_order_from_the_list() -> None:
    record = RunRecord(outcomes=[_outcome("a", "passed", "candidate", 0, order=40)], run=SETTINGS)
    assert read_report(render_json(record, GATE)).outcomes[0].order == 0


def test_a_report_without_run_settings_reads_with_none() -> None:
    again = read_report(render_json(RunRecord(aborted="interrupted (KeyboardInterrupt)"), GATE))
    assert again.run is None
    assert again.aborted == "interrupted (KeyboardInterrupt)"


def test_the_run_block_is_the_last_key() -> None:
    data = json.loads(render_json(_record(), GATE))
    assert list(data)[-1] == "run"
    assert data["run"] == {
        "tool": "pytest-skill-lens",
        "version": __version__,
        "shard": "2/3",
        "baseline_kind": "none",
        "runners": ["scripted", "other"],
        "repeat": 2,
        "repeat_auto": False,
        "gate_settings": {
            "min_pass_rate": 0.5,
            "fail_on_error": False,
            "per_skill_min": {"greet": 0.5, "audit": 0.25},
            "min_delta": 0.0,
            "min_delta_confidence": 0.9,
            "min_case_pass_rate": 0.5,
            "max_spend_usd": 4.0,
            "multiplicity": "holm",
            "per_skill_min_confidence": 0.9,
        },
        "skills_found": 4,
        "full_output": True,
        "case_order": {"greet": ["b", "a", "c"], "audit": ["only"]},
        "selection": {"items": 9, "digest": "d" * 64, "skills": {"audit": "a1", "greet": "g1"}},
        "settings_fingerprint": {"model": "0123456789abcdef", "judge": "fedcba9876543210"},
    }


REFUSED = {
    "not-json": ("{", "not JSON"),
    "a-list": ("[]", ": expected an object, got []"),
    "no-run": (json.dumps({"summary": {}, "gate": {}}), 'with a "run" block'),
    "other-tool": (json.dumps({"run": {"tool": "skill-lens"}}), 'with a "run" block'),
}


@pytest.mark.parametrize(("text", "message"), REFUSED.values(), ids=REFUSED.keys())
def test_what_is_not_a_report_is_refused(text: str, message: str) -> None:
    with pytest.raises(ReportError) as refused:
        read_report(text)
    assert message in refused.value.message
    assert refused.value.fix


CHANGED = [
    pytest.param(
        {"run__version": "0.0.1"},
        "written by pytest-skill-lens 0.0.1; this is",
        id="another-version",
    ),
    pytest.param(
        {"outcomes__0__status": "skipped"}, "outcomes[0].status: expected 'passed'", id="a-status"
    ),
    pytest.param(
        {"outcomes__1__arm": "control"}, "outcomes[1].arm: expected 'candidate'", id="an-arm"
    ),
    pytest.param(
        {"outcomes__0__tokens": -1}, "outcomes[0].tokens: expected a whole number", id="a-count"
    ),
    pytest.param(
        {"outcomes__0__repeat_index": True}, "outcomes[0].repeat_index: expected", id="a-bool-count"
    ),
    pytest.param(
        {"outcomes__0__cost_usd": "0.25"},
        'outcomes[0].cost_usd: expected a finite number of 0 or more, got "0.25"',
        id="a-figure",
    ),
    pytest.param(
        {"outcomes__0__latency_ms": None},
        "outcomes[0].latency_ms: expected a finite number of 0 or more, got null",
        id="a-null-figure",
    ),
    pytest.param(
        {"outcomes__0__nodeid": _DELETE}, "outcomes[0].nodeid: missing", id="a-missing-field"
    ),
    pytest.param(
        {"outcomes__0__scores__0__checks__0__passed": 1},
        "checks[0].passed: expected true or false",
        id="a-check",
    ),
    pytest.param(
        {"outcomes__0__scores__0__checks__0__evaluated": "no"},
        "checks[0].evaluated: expected true or false",
        id="a-check-flag",
    ),
    pytest.param(
        {"outcomes__0__tool_calls__0__arguments": []},
        "tool_calls[0].arguments: expected an object",
        id="a-tool-call",
    ),
    pytest.param(
        {"baseline_notes__0__kind": "gone"}, "baseline_notes[0].kind: expected", id="a-note-kind"
    ),
    pytest.param({"not_run__0__arm": None}, "not_run[0].arm: expected text", id="a-not-run-arm"),
    pytest.param(
        {"skipped_skills": [1]}, "skipped_skills: expected a list of names", id="a-skill-list"
    ),
    pytest.param(
        {"run__gate_settings__per_skill_min__greet": "half"},
        "per_skill_min.greet: expected a number",
        id="a-minimum",
    ),
    pytest.param(
        {"run__gate_settings__min_delta": None},
        "min_delta_confidence is set without min_delta",
        id="confidence-alone",
    ),
    pytest.param({"run__runners": []}, "run.runners: expected at least one runner", id="no-runner"),
    pytest.param(
        {"run__gate_settings__per_skill_min": {}},
        "per_skill_min_confidence is set without per_skill_min",
        id="skill-confidence-alone",
    ),
    pytest.param(
        {"run__gate_settings__multiplicity": "bonferroni"},
        "run.gate_settings.multiplicity: expected 'holm' or 'none'",
        id="a-correction",
    ),
    pytest.param({"aborted": "yes"}, "aborted: expected true or false", id="aborted-flag"),
    pytest.param(
        {"skill_md_warnings__0__line": "2"}, "skill_md_warnings[0].line", id="warning-line"
    ),
]


@pytest.mark.parametrize(("changes", "message"), CHANGED)
def test_a_value_of_the_wrong_kind_is_refused_naming_its_field(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(ReportError) as refused:
        read_report(_text(_record(), **changes))
    assert message in refused.value.message


def test_a_long_value_is_cut_short_in_the_message() -> None:
    with pytest.raises(ReportError) as refused:
        read_report(_text(_record(), outcomes__0__model=["x" * 500]))
    assert len(refused.value.message) < 120


def test_the_merge_runs_without_pytest() -> None:
    # It runs in a CI job that has only the reports: nothing it loads may need pytest.
    script = (
        "import sys\n"
        "import pytest_skill_lens.merge.cli\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest', 'pluggy')\n"
        "       or m.startswith('pytest_skill_lens.plugin')]\n"
        "print(sorted(bad))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_console_script_runs_the_merge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text("utf-8"))
    module, _, name = project["project"]["scripts"]["pytest-skill-lens"].partition(":")
    console = getattr(importlib.import_module(module), name)
    (tmp_path / "shard.json").write_text(render_json(_record(), GATE), encoding="utf-8")
    assert console(["merge", str(tmp_path / "shard.json")]) == 2  # shard 2/3 alone
    assert "shard(s) 1/3, 3/3 missing" in capsys.readouterr().err
    assert console(["shard"]) == 2  # not a command
    assert "unknown command 'shard'" in capsys.readouterr().err


def test_a_case_order_that_is_not_lists_of_names_is_refused() -> None:
    data = json.loads(render_json(_record(), GATE))
    data["run"]["case_order"]["greet"] = ["b", 3]
    with pytest.raises(ReportError, match=r"run\.case_order\.greet: expected a list of names"):
        read_report(json.dumps(data))
    data["run"]["case_order"] = None  # a whole run's report: no order, cases by name
    assert read_report(json.dumps(data)).case_order == {}


# Issue 29, item 4: an impossible figure refuses the report, naming the field.
NOT_NUMBERS = [
    pytest.param('"min_pass_rate": 0.5', "NaN", "run.gate_settings.min_pass_rate", id="nan"),
    pytest.param('"latency_ms": 12.5', "Infinity", "outcomes[0].latency_ms", id="infinity"),
    pytest.param('"cost_usd": 0.25', "-Infinity", "outcomes[0].cost_usd", id="-infinity"),
    pytest.param('"latency_ms": 12.5', "1e999", "outcomes[0].latency_ms", id="overflow"),
    pytest.param('"n": [1', "[NaN", "outcomes[0].tool_calls[0].arguments.n[0]", id="deep"),
]


@pytest.mark.parametrize(("real", "forged", "field"), NOT_NUMBERS)
def test_a_nan_or_an_infinity_anywhere_is_refused_naming_its_field(
    real: str, forged: str, field: str
) -> None:
    text = json.dumps(json.loads(render_json(_record(), GATE)), separators=(", ", ": "))
    assert real in text
    value = real.rpartition(": ")[2]
    with pytest.raises(ReportError) as refused:
        read_report(text.replace(real, real.replace(value, forged), 1))
    assert refused.value.message.startswith(f"{field}: ")
    assert "is no number a report can hold" in refused.value.message


IMPOSSIBLE = [
    pytest.param({"run__gate_settings__min_pass_rate": 1.5}, "min_pass_rate", id="rate>1"),
    pytest.param({"run__gate_settings__min_pass_rate": -0.1}, "min_pass_rate", id="rate<0"),
    pytest.param({"run__gate_settings__per_skill_min__greet": 2}, "per_skill_min.greet", id="psm"),
    pytest.param({"run__gate_settings__min_delta": 1.5}, "min_delta", id="delta>1"),
    pytest.param({"run__gate_settings__min_delta_confidence": 1.0}, "confidence", id="level=1"),
    pytest.param({"run__gate_settings__min_case_pass_rate": -1}, "min_case_pass_rate", id="case"),
    pytest.param({"run__gate_settings__max_spend_usd": 0}, "max_spend_usd", id="no-spend"),
    pytest.param({"run__gate_settings__fail_on_error": 0}, "fail_on_error", id="flag-as-0"),
    pytest.param({"run__repeat": 0}, "run.repeat", id="no-repeat"),
    pytest.param({"run__skills_found": True}, "run.skills_found", id="bool-count"),
    pytest.param({"run__selection__items": -1}, "run.selection.items", id="selection"),
    pytest.param({"run__settings_fingerprint__model": 1}, "settings_fingerprint.model", id="fp"),
    pytest.param({"outcomes__0__cost_usd": -1e308}, "outcomes[0].cost_usd", id="cost<0"),
    pytest.param({"outcomes__0__latency_ms": -1}, "outcomes[0].latency_ms", id="latency<0"),
    pytest.param({"outcomes__0__retry_cost_usd": -0.5}, "retry_cost_usd", id="retry<0"),
    pytest.param({"outcomes__0__replayed_usd": -2}, "replayed_usd", id="replayed<0"),
    pytest.param({"outcomes__0__tokens": 2**60}, "outcomes[0].tokens", id="tokens-past-2^53"),
    pytest.param({"outcomes__0__input_tokens": 1.5}, "input_tokens", id="half-a-token"),
    pytest.param({"outcomes__0__scores__1__score": 1.5}, "scores[1].score", id="score>1"),
    pytest.param({"outcomes__0__scores__1__cost_usd": -1}, "scores[1].cost_usd", id="judge<0"),
    pytest.param({"outcomes__0__hooks__0__exit_code": "1"}, "hooks[0].exit_code", id="hook"),
    pytest.param({"spend_ceiling__spent_usd": -3}, "spend_ceiling.spent_usd", id="spent<0"),
    pytest.param({"not_run__0__repeat_index": -1}, "not_run[0].repeat_index", id="not-run"),
    pytest.param({"not_run__0__order": 1.5}, "not_run[0].order", id="not-run-order"),
    pytest.param({"script_notes__0__script_count": -2}, "script_count", id="scripts"),
    pytest.param({"summary__pass_rate": 1.2}, "summary.pass_rate", id="summary-rate"),
    pytest.param({"summary__total_cost_usd": -1}, "summary.total_cost_usd", id="summary-cost"),
    pytest.param({"summary__by_arm__candidate__tokens": True}, "by_arm.candidate.tokens", id="arm"),
    pytest.param({"summary__pass_rate_by_skill__greet": 7}, "pass_rate_by_skill.greet", id="psk"),
    pytest.param({"delta__pass_rate_delta": 3}, "delta.pass_rate_delta", id="delta-figure"),
    pytest.param({"delta__cases__0__candidate__mean_cost_usd": -1}, "mean_cost_usd", id="arm$"),
    pytest.param({"delta__intervals__delta__level": 95}, "intervals.delta.level", id="level"),
    pytest.param({"gate__exit_code": -1}, "gate.exit_code", id="exit-code"),
    pytest.param({"multiplicity__0__method": "sidak"}, "multiplicity[0].method", id="method"),
    pytest.param({"multiplicity__1__criterion": "min"}, "multiplicity[1].criterion", id="crit"),
    pytest.param({"multiplicity__1__decisions__0__what": "pass_rate"}, "what", id="what"),
    pytest.param({"multiplicity__0__decisions__0__p_value": 1.5}, "p_value", id="p>1"),
    pytest.param({"multiplicity__0__level": 1}, "multiplicity[0].level", id="family-level"),
    pytest.param(
        {"multiplicity__1__decisions__0__adjusted_holds": True},
        "a correction never shows what the raw decision does not",
        id="adjusted-without-raw",
    ),
    pytest.param({"gate__passed": True}, "gate.exit_code: a gate that passed exits 0", id="gate"),
]


@pytest.mark.parametrize(("changes", "field"), IMPOSSIBLE)
def test_an_impossible_figure_is_refused_naming_its_field(
    changes: dict[str, Any], field: str
) -> None:
    judged, gate = judge(_record())  # with a delta, and a failed gate (exit code 1)
    with pytest.raises(ReportError) as refused:
        read_report(_text(judged, gate, **changes))
    assert field in refused.value.message


def test_figures_that_add_up_past_a_float_are_refused() -> None:
    text = _text(_record(), outcomes__0__cost_usd=1e308, outcomes__1__cost_usd=1e308)
    with pytest.raises(ReportError, match="outcomes: their cost_usd add up past what a number"):
        read_report(text)


def test_an_unknown_summary_key_is_left_open() -> None:
    # A later version's summary field (or another helper's) must not break the reader.
    again = read_report(_text(_record(), summary__products_unsandboxed=True))
    assert again.outcomes == _record().outcomes


def test_a_merged_report_reads_back_and_draws() -> None:
    judged, gate = judge(_record())
    text = render_json(judged, gate)
    assert read_report(text).outcomes == judged.outcomes
    assert "NaN" not in text and "Infinity" not in text
