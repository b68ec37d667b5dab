"""Session end: the gate, the exit code, the report files and the summary section.

Every session that reaches its end writes the report files it was asked for: the
gate's verdict, or (no gate: an authoring error, an interruption, an internal error,
a listing) a report that says the run was aborted and why (see :mod:`.aborted`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ..gate.record import GateResult, RunRecord
from ..gate.verdict import evaluate_gate
from ..report.junit_gate import add_gate_case
from ..report.junit_properties import add_suite_properties, script_properties
from ..report.printable import one_line
from ..report.terminal import script_lines, summary_lines
from .aborted import aborted_code, aborted_gate, first_line, get_watch
from .report_files import report_targets, write_report_files
from .state import SessionState, listing_only

# pytest's own verdicts we never overrule: the run was stopped or broke.
_KEEP = (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR)


_NOT_RUN_REASON = "the session stopped before they ran (-x/--maxfail, an interruption or a crash)"
_ABORTED_NOT_RUN = "the run was aborted before they ran"


def build_record(state: SessionState, aborted: str | None = None) -> RunRecord:
    outcomes = sorted(state.outcomes.values(), key=lambda o: o.order)
    ran = set(state.outcomes)
    waiting = [
        (nodeid, identity) for nodeid, identity in state.planned.items() if nodeid not in ran
    ]
    waiting.sort(key=lambda entry: int(str(entry[1]["order"])))
    why = _NOT_RUN_REASON if aborted is None else _ABORTED_NOT_RUN
    not_run = [{"nodeid": nodeid, **identity, "reason": why} for nodeid, identity in waiting]
    deselected = sorted(state.deselected_skills)
    only = state.deselected_by
    return RunRecord(
        outcomes=outcomes,
        skipped_skills=sorted(state.skipped_skills),
        tag_filtered_skills=deselected if only == {"-m"} else [],
        case_filtered_skills=deselected if only == {"-k"} else [],
        deselected_skills=deselected,
        skills_found=len(state.skills_by_name),
        not_run=not_run,
        full_output=state.settings.full_output,
        scripts=_scripts_block(state),
        script_notes=[
            {"skill_name": name, "script_count": count, "product_note": None}
            for name, count in sorted(state.idle_scripts.items())
        ],
        aborted=aborted,
    )


def _scripts_block(state: SessionState) -> dict[str, Any] | None:
    """The run's sandbox facts, plus any sandbox a fixture override used instead."""
    if state.scripts is None:
        return None
    block: dict[str, Any] = dict(state.scripts)
    if state.sandbox_overrides:
        block["overridden_by_fixture"] = sorted(state.sandbox_overrides)
    return block


def finish_session(session: pytest.Session, state: SessionState, exitstatus: int) -> int:
    """The exit code: 2 for authoring errors, else the gate's (or 1 if ordinary tests failed).

    Never raises: whatever goes wrong here still leaves reports and a summary.
    """
    try:
        return _finish(session, state, exitstatus)
    except Exception as exc:  # a bug or a hostile value must not end the run unreported
        reason = f"internal error at session end: {type(exc).__name__}: {first_line(exc)}"
        code = int(pytest.ExitCode.INTERNAL_ERROR)
        try:
            return _finish_aborted(session, state, code, reason)
        except Exception as again:
            state.write_errors.append(f"skill-lens could not write its reports: {again!r}")
            return code


def _finish(session: pytest.Session, state: SessionState, exitstatus: int) -> int:
    if state.collection_errors:
        # Under xdist a collection error would otherwise exit 1; it is an authoring error.
        return _finish_aborted(session, state, int(pytest.ExitCode.INTERRUPTED))
    if listing_only(session.config):
        # Listing cases measures nothing, so there is no gate; the code stays pytest's.
        return _finish_aborted(session, state, exitstatus, listing=True)
    watch = get_watch(session.config)
    stopped = exitstatus in _KEEP or (watch is not None and watch.interrupted)
    if stopped and not _stopped_by_maxfail(session, exitstatus):
        return _finish_aborted(session, state, aborted_code(exitstatus))
    settings = state.settings
    record = build_record(state)
    gate = evaluate_gate(
        record,
        min_pass_rate=settings.min_pass_rate,
        fail_on_error=settings.fail_on_error,
        per_skill_min=settings.per_skill_min,
    )
    state.gate = gate
    state.record = record
    code = 1 if state.other_failures else gate.exit_code
    write_errors = _write_reports(state, record, gate)
    state.write_errors = write_errors
    if write_errors and code == 0:
        code = 2  # a report CI expects is missing: not a green run
    return code


def _finish_aborted(
    session: pytest.Session,
    state: SessionState,
    code: int,
    reason: str | None = None,
    *,
    listing: bool = False,
) -> int:
    """No gate: the reports say the run was aborted, and why."""
    if reason is None:
        watch = get_watch(session.config)
        fallback = f"the session ended with pytest's exit code {code} and no gate"
        reason = watch.reason(code, listing=listing) if watch is not None else fallback
    try:
        record = build_record(state, aborted=reason)
    except Exception:  # what ran is lost then, but not the verdict
        record = RunRecord(aborted=reason)
    gate = aborted_gate(reason, code)
    state.record, state.gate = record, gate
    state.write_errors = _write_reports(state, record, gate)
    return code


def _stopped_by_maxfail(session: pytest.Session, exitstatus: int) -> bool:
    """pytest-xdist reports -x/--maxfail as an interruption; it is a gate matter (not run)."""
    maxfail = int(session.config.option.maxfail or 0)
    return exitstatus == pytest.ExitCode.INTERRUPTED and 0 < maxfail <= session.testsfailed


def _write_reports(state: SessionState, record: RunRecord, gate: GateResult) -> list[str]:
    targets = report_targets(
        record,
        gate,
        state.json_path,
        state.markdown_path,
        markdown_max_chars=state.markdown_max_chars,
        full_output=state.settings.full_output,
    )
    return write_report_files(targets)


def add_scripts_to_junit(path: Path, state: SessionState) -> None:
    """Put the report's ``scripts:`` line(s) on every suite of a JUnit file, as properties."""
    if state.record is None or not path.is_file():
        return
    try:
        properties = script_properties(script_lines(state.record), state.record.scripts)
        amended = add_suite_properties(path.read_text(encoding="utf-8"), properties)
        if amended is not None:
            path.write_text(amended, encoding="utf-8")
    except (OSError, ET.ParseError) as exc:
        state.write_errors.append(f"could not amend {path}: {exc}")


def mark_failed_gate_in_junit(path: Path, state: SessionState) -> None:
    """Make a JUnit file with no failing case still fail when the gate did."""
    gate = state.gate
    if gate is None or gate.passed or not path.is_file():
        return
    try:
        amended = add_gate_case(path.read_text(encoding="utf-8"), gate.reasons)
        if amended is not None:
            path.write_text(amended, encoding="utf-8")
    except (OSError, ET.ParseError) as exc:
        state.write_errors.append(f"could not amend {path}: {exc}")


def write_summary(terminalreporter: Any, state: SessionState) -> None:
    record = state.record
    if state.gate is None or record is None:
        if state.write_errors:  # session finish itself broke: say so
            terminalreporter.section("skill-lens")
            for line in state.write_errors:
                terminalreporter.write_line(one_line(line), red=True)
        return
    if record.aborted is not None and listing_only(terminalreporter.config):
        return  # the listing is the output; the report files say nothing was run
    terminalreporter.section("skill-lens")
    for line in summary_lines(record, state.gate):
        terminalreporter.write_line(line)
    for line in state.write_errors:
        terminalreporter.write_line(one_line(line), red=True)
    if state.other_failures:
        terminalreporter.write_line(f"{state.other_failures} ordinary test(s) failed: exit code 1")


def worker_facts(state: SessionState) -> dict[str, Any]:
    """What an xdist worker learnt while collecting, for the controller's gate."""
    return {
        "skills": {k: str(v) for k, v in state.skills_by_name.items()},
        "skipped": sorted(state.skipped_skills),
        "deselected": sorted(state.deselected_skills),
        "deselected_by": sorted(state.deselected_by),
        "planned": state.planned,
        "idle_scripts": state.idle_scripts,
        "sandbox_overrides": sorted(state.sandbox_overrides),
        "collection_errors": state.collection_errors,
    }


def merge_worker_facts(state: SessionState, facts: dict[str, Any] | None) -> None:
    if not facts:
        return
    state.skills_by_name.update({k: Path(v) for k, v in facts["skills"].items()})
    state.skipped_skills.update(facts["skipped"])
    state.deselected_skills.update(facts["deselected"])
    state.deselected_by.update(facts["deselected_by"])
    state.planned.update(facts["planned"])
    state.idle_scripts.update(facts["idle_scripts"])
    state.sandbox_overrides.update(facts["sandbox_overrides"])
    # Every worker collects everything; the controller already counted failed
    # collection reports once through pytest_collectreport.
