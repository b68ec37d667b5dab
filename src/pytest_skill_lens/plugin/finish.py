"""Session end: the gate, the exit code, the report files and the summary section.

Every session that reaches its end writes the report files it was asked for: the
gate's verdict, or (no gate: an authoring error, an interruption, an internal error,
a listing) a report that says the run was aborted and why (see :mod:`.aborted`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..gate.fingerprint import Selection
from ..gate.record import GateResult, RunRecord
from ..run.products.entries import product_entries
from .aborted import abort_reason, aborted_code, aborted_gate, first_line, interrupted
from .changed import selection_of
from .facts import CollectionFacts
from .results import SessionResults
from .run_config import RunConfig
from .state import listing_only

if TYPE_CHECKING:
    from ..run.sandbox.product_sandbox import ProductEntry
    from .state import SessionState

# pytest's own verdicts we never overrule: the run was stopped or broke.
_KEEP = (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR)


_NOT_RUN_REASON = "the session stopped before they ran (-x/--maxfail, an interruption or a crash)"
_ABORTED_NOT_RUN = "the run was aborted before they ran"


def build_record(
    run: RunConfig,
    facts: CollectionFacts,
    results: SessionResults,
    aborted: str | None = None,
) -> RunRecord:
    outcomes = sorted(results.outcomes.values(), key=lambda o: o.order)
    ran = set(results.outcomes)
    stopped = results.stopped_early
    waiting = [
        (nodeid, identity)
        for nodeid, identity in facts.planned.items()
        if nodeid not in ran and nodeid not in stopped
    ]
    waiting.sort(key=lambda entry: entry[1].order)
    why = _NOT_RUN_REASON if aborted is None else _ABORTED_NOT_RUN
    not_run = [
        {
            "nodeid": nodeid,
            **identity._asdict(),
            "reason": results.not_run_reasons.get(nodeid, why),
        }
        for nodeid, identity in waiting
    ]
    stopped_early = sorted(
        (
            {"nodeid": nodeid, **facts.planned[nodeid]._asdict(), "reason": reason}
            for nodeid, reason in stopped.items()
            if nodeid in facts.planned
        ),
        key=lambda entry: facts.planned[str(entry["nodeid"])].order,
    )
    deselected = sorted(facts.deselected_skills)
    only = facts.deselected_by
    products = product_entries(run.settings, run.product_sandbox)
    return RunRecord(
        outcomes=outcomes,
        skipped_skills=sorted(facts.skipped_skills),
        tag_filtered_skills=deselected if only == {"-m"} else [],
        case_filtered_skills=deselected if only == {"-k"} else [],
        deselected_skills=deselected,
        skills_found=len(facts.skills_by_name),
        not_run=not_run,
        full_output=run.settings.full_output,
        scripts=_scripts_block(run, results),
        script_notes=[
            {"skill_name": name, "script_count": count, "product_note": _product_note(products)}
            for name, count in sorted(facts.idle_scripts.items())
        ],
        aborted=aborted,
        baseline_kind=run.settings.baseline_kind,
        baseline_notes=facts.sorted_baseline_notes(),
        baseline_sources=[facts.baseline_sources[name] for name in sorted(facts.baseline_sources)],
        run=run.recorded(),
        products=products,
        case_order=facts.case_order,
        selection=_selection(facts),
        skill_md_warnings=[
            dict(w) for f in sorted(facts.skill_md_warnings) for w in facts.skill_md_warnings[f]
        ],
        changed=selection_of(run, facts),
        stopped_early=stopped_early,
    )


def _selection(facts: CollectionFacts) -> Selection | None:
    return Selection(**facts.selection) if facts.selection else None


def _product_note(products: list[ProductEntry]) -> str | None:
    """Idle scripts are idle for run_script only: a product's own shell can run them."""
    from ..report.product_lines import SCRIPTS_REACHABLE

    return SCRIPTS_REACHABLE if products else None


def _scripts_block(run: RunConfig, results: SessionResults) -> dict[str, Any] | None:
    """The run's sandbox facts, plus any sandbox a fixture override used instead."""
    if run.scripts is None:
        return None
    block: dict[str, Any] = dict(run.scripts)
    if results.sandbox_overrides:
        block["overridden_by_fixture"] = sorted(results.sandbox_overrides)
    return block


def finish_session(session: pytest.Session, lens: SessionState, exitstatus: int) -> int:
    """The exit code: 2 for authoring errors, else the gate's (or 1 if ordinary tests failed).

    Never raises: whatever goes wrong here still leaves reports and a summary.
    """
    try:
        return _finish(session, lens, exitstatus)
    except Exception as exc:  # a bug or a hostile value must not end the run unreported
        reason = f"internal error at session end: {type(exc).__name__}: {first_line(exc)}"
        code = int(pytest.ExitCode.INTERNAL_ERROR)
        try:
            return _finish_aborted(session, lens, code, reason)
        except Exception as again:
            lens.results.write_errors.append(f"skill-lens could not write its reports: {again!r}")
            return code


def _finish(session: pytest.Session, lens: SessionState, exitstatus: int) -> int:
    if lens.facts.collection_errors:
        # Under xdist a collection error would otherwise exit 1; it is an authoring error.
        return _finish_aborted(session, lens, int(pytest.ExitCode.INTERRUPTED))
    if listing_only(session.config):
        # Listing cases measures nothing, so there is no gate; the code stays pytest's.
        return _finish_aborted(session, lens, exitstatus, listing=True)
    stopped = exitstatus in _KEEP or interrupted(lens.results)
    if stopped and not _stopped_by_maxfail(session, exitstatus):
        return _finish_aborted(session, lens, aborted_code(exitstatus))
    # Imported on a gated end only: a listing or an authoring error never judges.
    from ..gate.judging import judge_record

    results = lens.results
    record, gate = judge_record(
        build_record(lens.run, lens.facts, results), lens.run.recorded().gate
    )
    results.gate = gate
    results.record = record
    code = 1 if results.other_failures else gate.exit_code
    _write_reports(lens.run, record, gate, results)
    if results.write_errors and code == 0:
        code = 2  # a report CI expects is missing: not a green run
    return code


def _finish_aborted(
    session: pytest.Session,
    lens: SessionState,
    code: int,
    reason: str | None = None,
    *,
    listing: bool = False,
) -> int:
    """No gate: the reports say the run was aborted, and why."""
    if reason is None:
        reason = abort_reason(lens.results, code, listing=listing)
    try:
        record = build_record(lens.run, lens.facts, lens.results, aborted=reason)
    except Exception:  # what ran is lost then, but not the verdict
        record = RunRecord(aborted=reason)
    gate = aborted_gate(reason, code)
    lens.results.record, lens.results.gate = record, gate
    _write_reports(lens.run, record, gate, lens.results)
    return code


def _stopped_by_maxfail(session: pytest.Session, exitstatus: int) -> bool:
    """pytest-xdist reports -x/--maxfail as an interruption; it is a gate matter (not run)."""
    maxfail = int(session.config.option.maxfail or 0)
    return exitstatus == pytest.ExitCode.INTERRUPTED and 0 < maxfail <= session.testsfailed


def _write_reports(
    run: RunConfig, record: RunRecord, gate: GateResult, results: SessionResults
) -> None:
    from ..report.written import report_targets, write_reports

    targets = report_targets(
        record,
        gate,
        json_path=run.json_path,
        markdown_path=run.markdown_path,
        html_path=run.html_path,
        markdown_max_chars=run.markdown_max_chars,
        full_output=run.settings.full_output,
    )
    writes = write_reports(targets)
    results.written_reports = list(writes.written)
    results.write_errors = list(writes.errors)


def amend_junit(path: Path, results: SessionResults) -> None:
    """Amend pytest's JUnit file once, if at all: the report's ``scripts:`` and product
    lines on every suite, and a failing gate case when the gate failed and no case did.

    Read once, walked once (no tree built: ``report/junit_amend.py``), written once beside
    the path and renamed over it (never through a link planted there, which pytest's own
    write followed).
    """
    record, gate = results.record, results.gate
    if record is None or not path.is_file():
        return
    from xml.parsers.expat import ExpatError  # imported here: only a run with --junitxml

    from ..atomic_file import write_atomically
    from ..report.junit_amend import amended_junit
    from ..report.junit_properties import script_properties
    from ..report.product_lines import product_properties
    from ..report.terminal import script_lines

    try:
        properties = script_properties(script_lines(record), record.scripts)
        properties += product_properties(record)
        failing = gate is not None and not gate.passed
        if not properties and not failing:
            return
        reasons = gate.reasons if gate is not None and failing else None
        pieces = amended_junit(path.read_bytes(), properties, reasons)
        if pieces is not None:
            write_atomically(path, pieces)
    except (OSError, ExpatError) as exc:
        results.write_errors.append(f"could not amend {path}: {exc}")


def write_summary(terminalreporter: Any, results: SessionResults) -> None:
    record = results.record
    if results.gate is None or record is None:
        if results.write_errors:  # session finish itself broke: say so
            from ..report.printable import one_line

            terminalreporter.section("skill-lens")
            for line in results.write_errors:
                terminalreporter.write_line(one_line(line), red=True)
        return
    if record.aborted is not None and listing_only(terminalreporter.config):
        return  # the listing is the output; the report files say nothing was run
    # Imported on first use: a listing never shows the summary.
    from ..report.printable import one_line
    from ..report.terminal import summary_lines

    terminalreporter.section("skill-lens")
    for line in results.written_reports:  # first: the gate's verdict is the section's last word
        terminalreporter.write_line(one_line(line))
    for line in summary_lines(record, results.gate):
        terminalreporter.write_line(line)
    for line in results.write_errors:
        terminalreporter.write_line(one_line(line), red=True)
    if results.other_failures:
        terminalreporter.write_line(
            f"{results.other_failures} ordinary test(s) failed: exit code 1"
        )
