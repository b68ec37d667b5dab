"""The comparison in the JSON report: ``delta`` and ``baseline_notes``.

Every key the reference report has is here with its meaning; what we add (each
figure's 95% interval and its method, the confidence label, ``comparable_cases``
at the top level, pass@k per arm) only adds.
"""

from __future__ import annotations

from typing import Any

from ..gate.delta import ArmStats, BaselineNote, CaseStats, Delta, DeltaFigures
from ..gate.intervals import Interval


def delta_dict(delta: Delta | None) -> dict[str, Any] | None:
    if delta is None:
        return None
    return {
        "baseline_kind": delta.baseline_kind,
        **_figures(delta),
        "cases": [_case(case) for case in delta.cases],
        "low_signal": [
            {
                "skill_name": c.skill_name,
                "case_name": c.case_name,
                "runner": c.runner,
                "evaluator": c.evaluator,
                "check_id": c.check_id,
            }
            for c in delta.low_signal
        ],
        "high_variance": [
            {
                "skill_name": c.skill_name,
                "case_name": c.case_name,
                "runner": c.runner,
                "arm": c.arm,
                "pass_rate": c.pass_rate,
                "stddev": c.stddev,
            }
            for c in delta.high_variance
        ],
        "notes": [note.text for note in delta.notes],
        "runners": [{"runner": r.runner, **_figures(r)} for r in delta.runners],
    }


def note_dict(note: BaselineNote) -> dict[str, str]:
    data = {
        "skill_name": note.skill_name,
        "case_name": note.case_name,
        "kind": note.kind,
        "reason": note.reason,
    }
    # Additive: the arm, when several ran side by side (a one-arm report is unchanged).
    return {**data, "arm": note.arm} if note.arm else data


def interval_dict(interval: Interval | None) -> dict[str, Any] | None:
    if interval is None:
        return None
    return {
        "estimate": interval.estimate,
        "low": interval.low,
        "high": interval.high,
        "level": interval.level,
        "method": interval.method,
        "n": interval.n,
    }


def _figures(figures: DeltaFigures) -> dict[str, Any]:
    return {
        "comparable_cases": figures.comparable_cases,
        "pass_rate_candidate": figures.pass_rate_candidate,
        "pass_rate_baseline": figures.pass_rate_baseline,
        "pass_rate_delta": figures.pass_rate_delta,
        "tokens_delta": figures.tokens_delta,
        "cost_usd_delta": figures.cost_usd_delta,
        "latency_ms_delta": figures.latency_ms_delta,
        # Additive: the case-weighted intervals and how much the delta can be trusted.
        "intervals": {
            "candidate": interval_dict(figures.pass_rate_candidate_interval),
            "baseline": interval_dict(figures.pass_rate_baseline_interval),
            "delta": interval_dict(figures.pass_rate_delta_interval),
        },
        "confidence": figures.confidence,
    }


def _case(case: CaseStats) -> dict[str, Any]:
    return {
        "skill_name": case.skill_name,
        "case_name": case.case_name,
        "runner": case.runner,
        "candidate": _arm(case.candidate),
        "baseline": _arm(case.baseline) if case.baseline is not None else None,
        "comparable": case.comparable,
        "exclusion_reason": case.exclusion_reason,
        "low_signal": list(case.low_signal),
        "high_variance": case.high_variance,
    }


def _arm(stats: ArmStats) -> dict[str, Any]:
    return {
        "runs": stats.runs,
        "errored": stats.errored,
        "passed": stats.passed,
        "pass_rate": stats.pass_rate,
        "stddev": stats.stddev,
        "mean_tokens": stats.mean_tokens,
        "mean_cost_usd": stats.mean_cost_usd,
        "mean_latency_ms": stats.mean_latency_ms,
        # Additive: this case's Wilson interval over its repetitions, and pass@k / pass^k.
        "interval": interval_dict(stats.interval),
        "k_estimates": [
            {"k": k.k, "pass_at_k": k.pass_at_k, "pass_hat_k": k.pass_hat_k}
            for k in stats.k_estimates
        ],
    }
