"""The JSON report read back into a :class:`RunRecord`: what a merge of shards starts from.

Strict, because a merge's verdict is only as good as what it read: a value of the
wrong type, a status or arm that does not exist, a report another tool or another
version of this one wrote, each is a :class:`ReportError` naming the field, never a
guess. What the gate and the delta read comes back whole: every outcome with its
scores, checks, tool calls, token split and node id, in the report's order (which is
the planned order, so each outcome's ``order`` is its place in the list); the not-run
entries; the skipped and deselected skills; the baseline notes and sources; the spend
ceiling; and the ``run`` block's settings, selection and settings digests. The delta is
not read: it is a function of the outcomes, recomputed by whoever needs it; but it is
checked, with the summary and the gate, since ``html`` draws them as written
(:mod:`.json_derived`). Every number is of its kind (:mod:`.json_fields`): no NaN, no
infinity, no negative cost, no rate above 1, no flag for a count, and no sums that
overflow a float.
"""

from __future__ import annotations

import math
from typing import Any, get_args

from .. import __version__
from ..gate.delta import BaselineNote, NoteKind
from ..gate.fingerprint import Selection
from ..gate.multiplicity import METHODS
from ..gate.record import GateSettings, RunRecord, RunSettings
from ..gate.spend import SpendCeiling
from ..labels import Arm, Status
from ..perform.outcome import Outcome
from ..run.result import ToolCall
from ..score.check import CheckResult, Score
from .changed_json import read_changed
from .json_derived import check_derived
from .json_fields import (
    LEVEL,
    POSITIVE,
    POSITIVE_COUNT,
    RATE,
    SIGNED_RATE,
    WHOLE,
    Fields,
    ReportError,
    parse_json,
)
from .json_report import REPORT_TOOL, Totals
from .replay_lines import CASSETTE_ACTIONS
from .sequential_view import read_stopped

__all__ = ["ReportError", "read_report"]


def read_report(text: str) -> RunRecord:
    """The record a JSON report holds; a :class:`ReportError` for anything else."""
    top = Fields(parse_json(text), "")
    if not isinstance(top.data.get("run"), dict) or top.data["run"].get("tool") != REPORT_TOOL:
        raise ReportError(
            'not a pytest-skill-lens report with a "run" block (another tool\'s file, or a '
            "report written before shard merging existed)"
        )
    run = Fields(top.data["run"], "run")
    version = run.text("version")
    if version != __version__:
        raise ReportError(
            f"written by pytest-skill-lens {version}; this is {__version__}, and a report's "
            "fields may mean something else in another version",
            "run the shards and the merge with the same version of pytest-skill-lens",
        )
    # An aborted report always says why; one that does not still must not read as judged.
    aborted = (top.optional_text("aborted_reason") or "aborted") if top.flag("aborted") else None
    changed = read_changed(top)  # its kinds first: the derived words are checked against them
    check_derived(top)  # the summary, delta and gate a page draws as they are written
    record = RunRecord(
        outcomes=[_outcome(o, order) for order, o in enumerate(top.objects("outcomes"))],
        skipped_skills=top.names("skipped_skills"),
        tag_filtered_skills=top.names("tag_filtered_skills"),
        case_filtered_skills=top.names("case_filtered_skills"),
        deselected_skills=top.names("deselected_skills"),
        skills_found=run.count("skills_found"),
        not_run=[_not_run(entry) for entry in top.objects("not_run")],
        full_output=run.flag("full_output"),
        scripts=top.optional_mapping("scripts"),
        script_notes=[_script_note(entry) for entry in top.objects("script_notes")],
        aborted=aborted,
        baseline_kind=run.optional_text("baseline_kind") or "",
        baseline_notes=[_note(note) for note in top.objects("baseline_notes")],
        baseline_sources=[_source(source) for source in top.objects("baseline_sources")],
        spend_ceiling=_ceiling(top),
        run=_run_settings(run),
        case_order=_case_order(run),
        selection=_selection(run),
        skill_md_warnings=[_skill_md_warning(w) for w in top.objects("skill_md_warnings")],
        changed=changed,
        stopped_early=[read_stopped(entry) for entry in _entries(top, "stopped_early")],
    )
    finite_totals(record)
    return record


def finite_totals(record: RunRecord, where: str = "outcomes") -> None:
    """Every figure is finite, and so must their sums be: a cost printed as "$inf" is none."""
    totals = Totals.of(record)
    for name, value in (
        ("cost_usd", totals.cost_usd),
        ("judge cost_usd", totals.judge_cost_usd),
        ("latency_ms", totals.latency_ms),
    ):
        if not math.isfinite(value):
            raise ReportError(f"{where}: their {name} add up past what a number holds")


def _case_order(run: Fields) -> dict[str, list[str]]:
    """A shard's cases in eval-file order; {} for a report without them (a whole run)."""
    if run.data.get("case_order") is None:
        return {}
    order = Fields(run.mapping("case_order"), run.at("case_order"))
    return {skill: order.names(skill) for skill in order.data}


def _outcome(o: Fields, order: int) -> Outcome:
    return Outcome(
        skill_name=o.text("skill_name"),
        case_name=o.text("case_name"),
        runner=o.text("runner"),
        status=o.word("status", get_args(Status)),  # type: ignore[arg-type]
        arm=o.word("arm", get_args(Arm)),  # type: ignore[arg-type]
        baseline_kind=o.optional_text("baseline_kind") if "baseline_kind" in o.data else None,
        repeat_index=o.count("repeat_index"),
        scores=[_score(s) for s in o.objects("scores")],
        output=o.text("output"),
        error=o.optional_text("error"),
        tokens=o.count("tokens"),
        input_tokens=o.count("input_tokens"),
        output_tokens=o.count("output_tokens"),
        latency_ms=o.figure("latency_ms"),
        cost_usd=o.figure("cost_usd"),
        model=o.text("model"),
        cost_note=o.optional_text("cost_note"),
        price_source=o.price_source(),
        usage_note=o.optional_text("usage_note"),
        stop_note=o.optional_text("stop_note"),
        retry_cost_usd=o.figure("retry_cost_usd"),
        skill_triggered=o.optional_flag("skill_triggered"),
        skill_triggered_by_session=_by_session(o),
        skills_triggered=_skills_triggered(o),
        trigger_expected=o.optional_flag("trigger_expected")
        if "trigger_expected" in o.data
        else None,
        skill_loaded=o.optional_flag("skill_loaded"),
        tool_calls=tuple(
            ToolCall(c.text("name"), c.mapping("arguments")) for c in o.objects("tool_calls")
        ),
        hooks=tuple(_hook(hook) for hook in o.objects("hooks")),
        workspace=o.optional_text("workspace"),
        nodeid=o.text("nodeid"),
        order=order,  # the report lists outcomes in planned order
        # Cassettes (docs/replay.md); absent from a report written before them.
        cassette=o.optional_text("cassette") if "cassette" in o.data else None,
        replayed=o.flag("replayed") if "replayed" in o.data else False,
        replayed_calls=o.count("replayed_calls") if "replayed_calls" in o.data else 0,
        replayed_usd=o.figure("replayed_usd") if "replayed_usd" in o.data else 0.0,
        recorded_at=o.optional_text("recorded_at") if "recorded_at" in o.data else None,
        cassette_note=o.optional_text("cassette_note") if "cassette_note" in o.data else None,
        cassette_action=_cassette_action(o),
        reused_from=_reused_from(o),
        reuse_note=o.optional_text("reuse_note") if "reuse_note" in o.data else None,
    )


def _reused_from(o: Fields) -> dict[str, Any] | None:
    """Where a reused outcome was recorded (docs/reuse.md); absent from an earlier report."""
    if o.data.get("reused_from") is None:
        return None
    origin = o.child("reused_from")
    origin.optional_text("commit")
    origin.optional_text("recorded_at")
    origin.text("entry")
    item = origin.child("item")
    for key in ("skill", "case", "runner", "arm"):
        item.text(key)
    item.count("repeat")
    return origin.data


def _cassette_action(o: Fields) -> str | None:
    """What a recording did with the outcome's file; absent from an earlier report."""
    if o.data.get("cassette_action") is None:
        return None
    return o.word("cassette_action", CASSETTE_ACTIONS)


def _hook(hook: Fields) -> dict[str, Any]:
    for key in ("name", "event", "outcome", "stdout", "stderr"):
        hook.optional_text(key)
    hook.optional_number("exit_code", WHOLE)
    return hook.data


def _skills_triggered(o: Fields) -> list[str] | None:
    """Absent from a report written before neighbours: read as not told."""
    if o.data.get("skills_triggered") is None:
        return None
    return o.names("skills_triggered")


def _by_session(o: Fields) -> list[bool | None] | None:
    if o.data.get("skill_triggered_by_session") is None:
        return None
    values = o.items("skill_triggered_by_session")
    if not all(v is None or isinstance(v, bool) for v in values):
        raise ReportError(f"{o.at('skill_triggered_by_session')}: expected true, false or null")
    return list(values)


def _score(s: Fields) -> Score:
    return Score(
        evaluator=s.text("evaluator"),
        passed=s.flag("passed"),
        score=s.figure("score", RATE),
        detail=s.text("detail"),
        checks=tuple(_check(c) for c in s.objects("checks")),
        errored=s.flag("errored"),
        cost_usd=s.figure("cost_usd"),
        cost_note=s.optional_text("cost_note"),
        price_source=s.price_source(),
    )


def _check(c: Fields) -> CheckResult:
    # "evaluated" is written only as false (score/check.py): absent, the check was measured.
    evaluated = c.flag("evaluated") if "evaluated" in c.data else True
    return CheckResult(c.text("id"), c.flag("passed"), c.text("evidence"), evaluated)


def _not_run(entry: Fields) -> dict[str, object]:
    for key in ("skill_name", "case_name", "runner"):
        entry.optional_text(key)  # a not-run entry may lack its case (a bare node id)
    entry.word("arm", get_args(Arm))
    entry.count("repeat_index")
    for key in ("nodeid", "reason"):
        if key in entry.data:
            entry.optional_text(key)
    if "order" in entry.data:
        entry.count("order")
    return dict(entry.data)


def _script_note(entry: Fields) -> dict[str, Any]:
    entry.text("skill_name")
    entry.count("script_count")
    return entry.data


def _skill_md_warning(entry: Fields) -> dict[str, object]:
    return {
        "file": entry.text("file"),
        "line": entry.count("line"),
        "field": entry.optional_text("field"),
        "problem": entry.text("problem"),
        "fix": entry.optional_text("fix"),
    }


def _note(note: Fields) -> BaselineNote:
    kind: NoteKind = note.word("kind", get_args(NoteKind))  # type: ignore[assignment]
    arm = note.text("arm") if "arm" in note.data else ""
    return BaselineNote(
        note.text("skill_name"), kind, note.text("reason"), note.text("case_name"), arm
    )


def _source(source: Fields) -> dict[str, str]:
    return {key: source.text(key) for key in source.data}


def _ceiling(top: Fields) -> SpendCeiling | None:
    if top.data.get("spend_ceiling") is None:
        return None
    ceiling = Fields(top.data["spend_ceiling"], "spend_ceiling")
    return SpendCeiling(
        max_spend_usd=ceiling.figure("max_spend_usd", POSITIVE),
        spent_usd=ceiling.figure("spent_usd"),
        unpriced=ceiling.optional_text("unpriced"),
    )


def _run_settings(run: Fields) -> RunSettings | None:
    """None for a report that never reached a gate (refused while configuring)."""
    if run.data.get("gate_settings") is None:
        return None
    gate = Fields(run.data["gate_settings"], "run.gate_settings")
    per_skill = gate.mapping("per_skill_min")
    minimums = Fields(per_skill, "run.gate_settings.per_skill_min")
    settings = GateSettings(
        min_pass_rate=gate.figure("min_pass_rate", RATE),
        fail_on_error=gate.flag("fail_on_error"),
        per_skill_min={name: minimums.figure(name, RATE) for name in per_skill},
        min_delta=gate.optional_figure("min_delta", SIGNED_RATE),
        min_delta_confidence=gate.optional_figure("min_delta_confidence", LEVEL),
        min_case_pass_rate=gate.optional_figure("min_case_pass_rate", RATE),
        max_spend_usd=gate.optional_figure("max_spend_usd", POSITIVE),
        multiplicity=gate.word("multiplicity", METHODS),
        per_skill_min_confidence=gate.optional_figure("per_skill_min_confidence", LEVEL),
    )
    if settings.min_delta_confidence is not None and settings.min_delta is None:
        raise ReportError("run.gate_settings: min_delta_confidence is set without min_delta")
    if settings.per_skill_min_confidence is not None and not settings.per_skill_min:
        raise ReportError(
            "run.gate_settings: per_skill_min_confidence is set without per_skill_min"
        )
    runners = tuple(run.names("runners"))
    if not runners:
        raise ReportError("run.runners: expected at least one runner")
    return RunSettings(
        gate=settings,
        runners=runners,
        repeat=run.count("repeat", POSITIVE_COUNT),
        repeat_auto="repeat_auto" in run.data and run.flag("repeat_auto"),
        shard=run.optional_text("shard"),
        fingerprint=_fingerprint(run),
    )


def _entries(top: Fields, key: str) -> list[Fields]:
    """A list of entries a report of this version always holds, none when absent."""
    return top.objects(key) if key in top.data else []


def _fingerprint(run: Fields) -> dict[str, str]:
    digests = run.optional_child("settings_fingerprint")
    return {} if digests is None else {name: digests.text(name) for name in digests.data}


def _selection(run: Fields) -> Selection | None:
    """Under a shard, what every shard selected together; None for a whole run."""
    if run.data.get("selection") is None:
        return None
    selection = run.child("selection")
    skills = selection.child("skills")
    return Selection(
        items=selection.count("items"),
        digest=selection.text("digest"),
        skills={name: skills.text(name) for name in skills.data},
    )
