"""``--skill-lens-changed``'s block in the record: its words, its JSON read back strictly,
and what the gate makes of a run in which no skill changed."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from pytest_skill_lens.gate.changed_skills import ChangedSelection, ChangedSkill
from pytest_skill_lens.gate.judging import judge_record
from pytest_skill_lens.gate.record import GateResult, GateSettings, RunRecord, RunSettings
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.json_read import ReportError, read_report
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.terminal import summary_lines

COMMIT = "1a2b3c4d" + "e" * 32
CHANGED = ChangedSelection(
    ref="main",
    commit=COMMIT,
    how="the merge base of HEAD and main (origin/HEAD)",
    changed_skills=(
        ChangedSkill(
            "beta",
            ("skills/beta/SKILL.md modified (its own files)", "skill-lens.toml modified (x)"),
        ),
    ),
    unchanged_skills=("alpha", "gamma"),
)
NOTHING = ChangedSelection("main", COMMIT, "given", (), ("alpha",))
PASSED = GateResult(True, 0)


def _outcome(skill: str, arm: str = "candidate") -> Outcome:
    return Outcome(skill_name=skill, case_name="c", runner="fake", status="passed", arm=arm)  # type: ignore[arg-type]


def test_the_terminal_names_the_unchanged_skills_and_each_changed_skills_first_reason() -> None:
    lines = summary_lines(RunRecord(outcomes=[_outcome("beta")], changed=CHANGED), PASSED)
    assert "2 skill(s) unchanged since main (1a2b3c4d), deselected: alpha, gamma" in lines
    assert (
        "changed: beta: skills/beta/SKILL.md modified (its own files) "
        "(and 1 more reason(s): see the JSON report)"
    ) in lines
    assert lines[-1] == "Gate passed"


def test_nothing_changed_is_said_on_the_verdict_and_in_the_markdown_head() -> None:
    record = RunRecord(changed=NOTHING, skills_found=1)
    judged, gate = judge_record(record, GateSettings())
    assert gate == GateResult(True, 0, ())
    said = "no skill changed since main (1a2b3c4d): nothing to evaluate"
    assert summary_lines(judged, gate)[-1] == f"Gate passed — {said}"
    lines = render_markdown(judged, gate).splitlines()
    assert lines.index(f"> {said}") < 6  # in the head, never dropped to fit


def test_nothing_changed_passes_even_with_a_delta_bar_and_a_skill_minimum() -> None:
    settings = GateSettings(
        min_delta=0.0,
        min_delta_confidence=0.9,
        min_case_pass_rate=1.0,
        per_skill_min={"alpha": 0.9},
        per_skill_min_confidence=0.9,
        multiplicity="holm",
    )
    record = RunRecord(changed=NOTHING, skills_found=1, baseline_kind="none")
    assert judge_record(record, settings)[1] == GateResult(True, 0, ())


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        # The flag found no skill at all: that is no "nothing changed".
        (
            RunRecord(changed=ChangedSelection("main", COMMIT, "given")),
            "no eval cases ran: no skills were found",
        ),
        # A changed skill whose cases never ran is the usual failure.
        (RunRecord(changed=CHANGED, skills_found=3), "no eval cases ran: 3 skill(s) were found"),
        # Items planned but not run are never hidden by it.
        (
            RunRecord(
                changed=NOTHING,
                not_run=[{"skill_name": "x", "arm": "candidate", "reason": "stopped"}],
            ),
            "1 case(s) did not run: stopped",
        ),
    ],
)
def test_a_run_that_is_not_nothing_changed_still_fails(record: RunRecord, reason: str) -> None:
    gate = judge_record(record, GateSettings())[1]
    assert not gate.passed
    assert any(r.startswith(reason) for r in gate.reasons), gate.reasons


def test_a_minimum_of_an_unchanged_skill_is_not_held_but_a_changed_ones_is() -> None:
    record = RunRecord(outcomes=[_outcome("beta")], changed=CHANGED, skills_found=3)
    settings = GateSettings(per_skill_min={"alpha": 0.9, "delta": 0.5})
    gate = judge_record(record, settings)[1]
    assert gate.reasons == ("skill 'delta' requires a pass rate of 50% but produced no results",)


SETTINGS = RunSettings(runners=("fake",))


def _data(block: ChangedSelection | None = CHANGED) -> dict[str, Any]:
    record = RunRecord(outcomes=[_outcome("beta")], changed=block, run=SETTINGS)
    data: dict[str, Any] = json.loads(render_json(record, PASSED))
    return data


def test_the_block_round_trips() -> None:
    assert read_report(json.dumps(_data())).changed == CHANGED
    assert read_report(json.dumps(_data(None))).changed is None
    data = _data(None)
    del data["changed"]  # a report without the key: a run without the flag
    assert read_report(json.dumps(data)).changed is None


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("commit", "HEAD", "changed.commit: expected a full commit id"),
        ("commit", 7, "changed.commit: expected text"),
        ("unchanged_skills", ["alpha", "beta"], 'skill "beta" is listed twice'),
        ("unchanged_skills", "alpha", "changed.unchanged_skills: expected a list"),
        ("unchanged_reason", "unchanged", "changed.unchanged_reason: expected"),
        ("nothing_to_evaluate", True, "changed.nothing_to_evaluate: expected false"),
        ("changed_skills", [{"skill_name": "b", "reasons": [], "moved_from": None}], "reason"),
        ("changed_skills", [{"skill_name": "b", "reasons": ["r"]}], "moved_from: missing"),
        ("how", None, "changed.how: expected text"),
    ],
)
def test_a_tampered_block_is_refused_naming_its_field(
    field: str, value: object, message: str
) -> None:
    data = _data()
    data["changed"][field] = value
    with pytest.raises(ReportError, match=message.replace("(", r"\(")):
        read_report(json.dumps(data))


def test_a_flood_of_skill_names_is_read_in_linear_time() -> None:
    names = [f"s{i}" for i in range(200_000)]
    data = _data(ChangedSelection("main", COMMIT, "given", (), tuple(names)))
    data["changed"]["unchanged_skills"].append("s0")
    text = json.dumps(data)
    refused: list[ReportError] = []

    def read() -> None:
        try:
            read_report(text)
        except ReportError as exc:
            refused.append(exc)

    reader = threading.Thread(target=read, daemon=True)  # a quadratic check would never end
    reader.start()
    reader.join(timeout=30)
    assert not reader.is_alive()
    assert 'skill "s0" is listed twice' in refused[0].message
