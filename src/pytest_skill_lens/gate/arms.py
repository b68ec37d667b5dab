"""Several baseline arms side by side: each paired against the candidate on its own.

A run asked for ``none,placebo`` records ``baseline_kind = "none,placebo"`` and every
baseline outcome its own ``baseline_kind``. Each arm's delta is built from the candidate
and that arm's outcomes alone (:func:`.delta.build_delta`), so an arm's figures are
exactly what a run of that one arm would give; the gate holds ``min_delta`` against
each, naming the arm in its reasons (:func:`arm_gate_reasons`). A run of one arm is
judged as before: nothing is named, nothing in its reports changes.

The side-by-side table is :mod:`.arm_rows`'s, kept on the record for every report.

An item that never ran cuts its case short in every arm (``not_run`` does not say
which arm an item was): conservative, it can only leave a case out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..perform.outcome import Outcome
from .delta import BaselineNote, Delta, build_delta
from .delta_gate import comparison_gate_reasons
from .record import arm_kinds


def build_deltas(
    outcomes: Iterable[Outcome],
    *,
    baseline_kind: str,
    not_run: Iterable[Mapping[str, object]] = (),
    notes: Sequence[BaselineNote] = (),
) -> tuple[Delta, ...]:
    """Each arm's delta, in the order asked; an arm with no baseline outcome has none."""
    kinds = arm_kinds(baseline_kind)
    outcomes, not_run = list(outcomes), list(not_run)
    if len(kinds) <= 1:
        one = build_delta(outcomes, baseline_kind=baseline_kind, not_run=not_run, notes=notes)
        return (one,) if one is not None else ()
    found = []
    for kind in kinds:
        mine = [o for o in outcomes if o.arm == "candidate" or o.baseline_kind == kind]
        delta = build_delta(
            mine,
            baseline_kind=kind,
            not_run=not_run,
            notes=[note for note in notes if note.arm == kind],
        )
        if delta is not None:
            found.append(delta)
    return tuple(found)


@dataclass(frozen=True)
class DeltaAsk:
    """What the gate asks of every arm's delta."""

    min_delta: float | None
    min_delta_confidence: float | None
    min_case_pass_rate: float | None
    # auto:N's decisions: per baseline arm (its kind; None for an outcome that did not
    # say), the runners whose delta against it the betting test decided pass.
    delta_decided: Mapping[str | None, frozenset[str]] = field(default_factory=dict)


def arm_gate_reasons(
    outcomes: Sequence[Outcome],
    baseline_kind: str,
    deltas: Sequence[Delta],
    notes: Sequence[BaselineNote],
    ask: DeltaAsk,
) -> list[str]:
    """The comparison's reasons: each arm's, in the order asked, then the case floor."""
    kinds = arm_kinds(baseline_kind)
    if len(kinds) <= 1:
        return comparison_gate_reasons(
            outcomes,
            deltas[0] if deltas else None,
            notes,
            min_delta=ask.min_delta,
            min_delta_confidence=ask.min_delta_confidence,
            min_case_pass_rate=ask.min_case_pass_rate,
            # One arm: its questions are the run's, whatever kind they name.
            delta_decided=frozenset().union(*ask.delta_decided.values()),
        )
    by_kind = {delta.baseline_kind: delta for delta in deltas}
    reasons: list[str] = []
    for kind in kinds:
        reasons += comparison_gate_reasons(
            (),
            by_kind.get(kind),
            [note for note in notes if note.arm == kind],
            min_delta=ask.min_delta,
            min_delta_confidence=ask.min_delta_confidence,
            delta_decided=ask.delta_decided.get(kind, frozenset()),
            arm=kind,
        )
    return reasons + comparison_gate_reasons(
        outcomes, None, min_case_pass_rate=ask.min_case_pass_rate
    )
