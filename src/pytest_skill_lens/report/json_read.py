"""The JSON report read back into a :class:`RunRecord`: what a merge of shards starts from.

Strict, because a merge's verdict is only as good as what it read: a value of the
wrong type, a status or arm that does not exist, a report another tool or another
version of this one wrote, each is a :class:`ReportError` naming the field, never a
guess. What the gate and the delta read comes back whole: every outcome with its
scores, checks, tool calls, token split and node id, in the report's order (which is
the planned order, so each outcome's ``order`` is its place in the list); the not-run
entries; the skipped and deselected skills; the baseline notes and sources; the spend
ceiling; and the ``run`` block's settings. The delta is not read: it is a function of
the outcomes, recomputed by whoever needs it.
"""

from __future__ import annotations

import json
from typing import Any, get_args

from .. import __version__
from ..gate.delta import BaselineNote, NoteKind
from ..gate.record import GateSettings, RunRecord, RunSettings
from ..gate.spend import SpendCeiling
from ..labels import Arm, Status
from ..perform.outcome import Outcome
from ..run.result import ToolCall
from ..score.check import CheckResult, Score
from .json_report import REPORT_TOOL

_RERUN = "re-run the shard with this version of pytest-skill-lens and --skill-lens-json"


class ReportError(ValueError):
    """The report cannot be used: what is wrong, and the fix."""

    def __init__(self, message: str, fix: str = _RERUN) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


class _Fields:
    """One JSON object's values, each checked for its type; ``where`` names it in errors."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise ReportError(f"{where}: expected an object, got {_shown(data)}")
        self.data: dict[str, Any] = data
        self.where = where

    def at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def _get(self, key: str) -> Any:
        if key not in self.data:
            raise ReportError(f"{self.at(key)}: missing")
        return self.data[key]

    def _wrong(self, key: str, expected: str) -> ReportError:
        return ReportError(f"{self.at(key)}: expected {expected}, got {_shown(self.data[key])}")

    def text(self, key: str) -> str:
        value = self._get(key)
        if not isinstance(value, str):
            raise self._wrong(key, "text")
        return value

    def optional_text(self, key: str) -> str | None:
        return None if self._get(key) is None else self.text(key)

    def flag(self, key: str) -> bool:
        value = self._get(key)
        if not isinstance(value, bool):
            raise self._wrong(key, "true or false")
        return value

    def optional_flag(self, key: str) -> bool | None:
        return None if self._get(key) is None else self.flag(key)

    def count(self, key: str) -> int:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self._wrong(key, "a whole number of 0 or more")
        return value

    def figure(self, key: str) -> float:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._wrong(key, "a number")
        return float(value)

    def optional_figure(self, key: str) -> float | None:
        return None if self._get(key) is None else self.figure(key)

    def items(self, key: str) -> list[Any]:
        value = self._get(key)
        if not isinstance(value, list):
            raise self._wrong(key, "a list")
        return value

    def names(self, key: str) -> list[str]:
        values = self.items(key)
        if not all(isinstance(v, str) for v in values):
            raise self._wrong(key, "a list of names")
        return list(values)

    def objects(self, key: str) -> list[_Fields]:
        return [_Fields(v, f"{self.at(key)}[{i}]") for i, v in enumerate(self.items(key))]

    def mapping(self, key: str) -> dict[str, Any]:
        value = self._get(key)
        if not isinstance(value, dict):
            raise self._wrong(key, "an object")
        return value

    def optional_mapping(self, key: str) -> dict[str, Any] | None:
        return None if self._get(key) is None else self.mapping(key)

    def word(self, key: str, words: tuple[str, ...]) -> str:
        value = self.text(key)
        if value not in words:
            raise self._wrong(key, " or ".join(repr(w) for w in words))
        return value


def read_report(text: str) -> RunRecord:
    """The record a JSON report holds; a :class:`ReportError` for anything else."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested beyond reason
        raise ReportError(f"not JSON: {exc}", "name each shard's --skill-lens-json report") from exc
    top = _Fields(data, "")
    if not isinstance(top.data.get("run"), dict) or top.data["run"].get("tool") != REPORT_TOOL:
        raise ReportError(
            'not a pytest-skill-lens report with a "run" block (another tool\'s file, or a '
            "report written before shard merging existed)"
        )
    run = _Fields(top.data["run"], "run")
    version = run.text("version")
    if version != __version__:
        raise ReportError(
            f"written by pytest-skill-lens {version}; this is {__version__}, and a report's "
            "fields may mean something else in another version",
            "run the shards and the merge with the same version of pytest-skill-lens",
        )
    # An aborted report always says why; one that does not still must not read as judged.
    aborted = (top.optional_text("aborted_reason") or "aborted") if top.flag("aborted") else None
    return RunRecord(
        outcomes=[_outcome(o, order) for order, o in enumerate(top.objects("outcomes"))],
        skipped_skills=top.names("skipped_skills"),
        tag_filtered_skills=top.names("tag_filtered_skills"),
        case_filtered_skills=top.names("case_filtered_skills"),
        deselected_skills=top.names("deselected_skills"),
        skills_found=run.count("skills_found"),
        not_run=[_not_run(entry) for entry in top.objects("not_run")],
        full_output=run.flag("full_output"),
        scripts=top.optional_mapping("scripts"),
        script_notes=[entry.data for entry in top.objects("script_notes")],
        aborted=aborted,
        baseline_kind=run.optional_text("baseline_kind") or "",
        baseline_notes=[_note(note) for note in top.objects("baseline_notes")],
        baseline_sources=[_source(source) for source in top.objects("baseline_sources")],
        spend_ceiling=_ceiling(top),
        run=_run_settings(run),
        case_order=_case_order(run),
    )


def _case_order(run: _Fields) -> dict[str, list[str]]:
    """A shard's cases in eval-file order; {} for a report without them (a whole run)."""
    if run.data.get("case_order") is None:
        return {}
    order = _Fields(run.mapping("case_order"), run.at("case_order"))
    return {skill: order.names(skill) for skill in order.data}


def _outcome(o: _Fields, order: int) -> Outcome:
    return Outcome(
        skill_name=o.text("skill_name"),
        case_name=o.text("case_name"),
        runner=o.text("runner"),
        status=o.word("status", get_args(Status)),  # type: ignore[arg-type]
        arm=o.word("arm", get_args(Arm)),  # type: ignore[arg-type]
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
        usage_note=o.optional_text("usage_note"),
        stop_note=o.optional_text("stop_note"),
        retry_cost_usd=o.figure("retry_cost_usd"),
        skill_triggered=o.optional_flag("skill_triggered"),
        skill_triggered_by_session=_by_session(o),
        skill_loaded=o.optional_flag("skill_loaded"),
        tool_calls=tuple(
            ToolCall(c.text("name"), c.mapping("arguments")) for c in o.objects("tool_calls")
        ),
        hooks=tuple(hook.data for hook in o.objects("hooks")),
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
    )


def _by_session(o: _Fields) -> list[bool | None] | None:
    if o.data.get("skill_triggered_by_session") is None:
        return None
    values = o.items("skill_triggered_by_session")
    if not all(v is None or isinstance(v, bool) for v in values):
        raise ReportError(f"{o.at('skill_triggered_by_session')}: expected true, false or null")
    return list(values)


def _score(s: _Fields) -> Score:
    return Score(
        evaluator=s.text("evaluator"),
        passed=s.flag("passed"),
        score=s.figure("score"),
        detail=s.text("detail"),
        checks=tuple(
            CheckResult(c.text("id"), c.flag("passed"), c.text("evidence"))
            for c in s.objects("checks")
        ),
        errored=s.flag("errored"),
        cost_usd=s.figure("cost_usd"),
        cost_note=s.optional_text("cost_note"),
    )


def _not_run(entry: _Fields) -> dict[str, object]:
    for key in ("skill_name", "case_name", "runner"):
        entry.optional_text(key)  # a not-run entry may lack its case (a bare node id)
    entry.word("arm", get_args(Arm))
    entry.count("repeat_index")
    return dict(entry.data)


def _note(note: _Fields) -> BaselineNote:
    kind: NoteKind = note.word("kind", get_args(NoteKind))  # type: ignore[assignment]
    return BaselineNote(note.text("skill_name"), kind, note.text("reason"), note.text("case_name"))


def _source(source: _Fields) -> dict[str, str]:
    return {key: source.text(key) for key in source.data}


def _ceiling(top: _Fields) -> SpendCeiling | None:
    if top.data.get("spend_ceiling") is None:
        return None
    ceiling = _Fields(top.data["spend_ceiling"], "spend_ceiling")
    return SpendCeiling(
        max_spend_usd=ceiling.figure("max_spend_usd"),
        spent_usd=ceiling.figure("spent_usd"),
        unpriced=ceiling.optional_text("unpriced"),
    )


def _run_settings(run: _Fields) -> RunSettings | None:
    """None for a report that never reached a gate (refused while configuring)."""
    if run.data.get("gate_settings") is None:
        return None
    gate = _Fields(run.data["gate_settings"], "run.gate_settings")
    per_skill = gate.mapping("per_skill_min")
    minimums = _Fields(per_skill, "run.gate_settings.per_skill_min")
    settings = GateSettings(
        min_pass_rate=gate.figure("min_pass_rate"),
        fail_on_error=gate.flag("fail_on_error"),
        per_skill_min={name: minimums.figure(name) for name in per_skill},
        min_delta=gate.optional_figure("min_delta"),
        min_delta_confidence=gate.optional_figure("min_delta_confidence"),
        min_case_pass_rate=gate.optional_figure("min_case_pass_rate"),
        max_spend_usd=gate.optional_figure("max_spend_usd"),
    )
    if settings.min_delta_confidence is not None and settings.min_delta is None:
        raise ReportError("run.gate_settings: min_delta_confidence is set without min_delta")
    runners = tuple(run.names("runners"))
    if not runners:
        raise ReportError("run.runners: expected at least one runner")
    return RunSettings(
        gate=settings,
        runners=runners,
        repeat=run.count("repeat"),
        shard=run.optional_text("shard"),
    )


def _shown(value: object) -> str:
    """A value as an error shows it: its JSON, cut short (a report can hold anything)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:59] + "…"
