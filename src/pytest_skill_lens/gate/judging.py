"""The session end's judging, in one place: the spend figures, the delta and the
portability matrix, then the gate.

A session ends with it (plugin/finish.py), and a merge of shards ends with it again over
every shard's outcomes (merge/combine.py), so both reach the same verdict the same way.
"""

from __future__ import annotations

from dataclasses import replace

from .arm_rows import arm_rows
from .arms import DeltaAsk, arm_gate_reasons, build_deltas
from .matrix import build_matrix
from .multiplicity import adjusted_reasons, delta_multiplicity, method_named
from .record import GateResult, GateSettings, RunRecord
from .sequential_gate import decided_skills, delta_decided, pooled_rate_decided
from .sequential_record import SequentialRecord
from .skill_confidence import skill_interval_reasons, skill_multiplicity
from .spend import spend_ceiling
from .verdict import evaluate_gate, nothing_to_evaluate


def judge_record(record: RunRecord, settings: GateSettings) -> tuple[RunRecord, GateResult]:
    """``record`` with its spend ceiling and delta filled in, and the gate's verdict on it."""
    deltas = build_deltas(
        record.outcomes,
        baseline_kind=record.baseline_kind,
        not_run=record.not_run,
        notes=record.baseline_notes,
    )
    method = method_named(settings.multiplicity)
    skills = skill_multiplicity(
        record.outcomes, settings.per_skill_min, settings.per_skill_min_confidence, method
    )
    family = delta_multiplicity(deltas, settings.min_delta, settings.min_delta_confidence, method)
    judged = replace(
        record,
        sequential=_sequential(record, settings),
        spend_ceiling=spend_ceiling(record.outcomes, settings.max_spend_usd),
        delta=deltas[0] if deltas else None,  # the first arm's: a one-arm run's only one
        deltas=deltas,
        arm_rows=tuple(arm_rows(deltas)) if len(record.baseline_kinds) > 1 else (),
        multiplicity=tuple(f for f in (skills, family) if f is not None),
        matrix=build_matrix(
            record.outcomes,
            runners=record.run.runners if record.run is not None else (),
            not_run=record.not_run,
        ),
    )
    # No skill changed: no arm ran, so a delta's bar has nothing to hold (and no failure).
    compared = not nothing_to_evaluate(judged)
    gate = (
        evaluate_gate(
            judged,
            min_pass_rate=settings.min_pass_rate,
            fail_on_error=settings.fail_on_error,
            per_skill_min=settings.per_skill_min,
            decided=decided_skills(judged.sequential),
            rate_decided=pooled_rate_decided(judged.sequential),
        )
        .adding(skill_interval_reasons(skills, judged.outcomes))
        .adding(
            arm_gate_reasons(
                judged.outcomes,
                judged.baseline_kind,
                deltas,
                judged.baseline_notes,
                DeltaAsk(
                    settings.min_delta,
                    settings.min_delta_confidence,
                    settings.min_case_pass_rate,
                    delta_decided(judged.sequential),
                ),
            )
            if compared
            else []
        )
        .adding(adjusted_reasons(judged.multiplicity))
    )
    return judged, gate


def _sequential(record: RunRecord, settings: GateSettings) -> SequentialRecord | None:
    """Under ``auto:N``, every question decided again from the outcomes (a merge too)."""
    run = record.run
    if run is None or not run.repeat_auto:
        return None
    from .sequential_gate import record_decisions

    return record_decisions(record.outcomes, record.not_run, settings, run.repeat)
