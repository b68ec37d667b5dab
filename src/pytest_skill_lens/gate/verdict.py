"""The gate: from recorded outcomes to a verdict and an exit code.

Every rate here reads **candidate** outcomes only; baseline outcomes never count
toward the pass rate, the per-skill rates or the zero-case rule. Not-run items
count whatever their arm, since a cut-short run must never look green.

Reasons come out in a fixed order, which matters because the Markdown report
elides them from the end when space runs out:

1. zero cases ran, or the pass rate is below ``min_pass_rate``;
2. errored candidates (when ``fail_on_error``);
3. the spend ceiling (unpriced spend, a ceiling that stopped items), then not-run items;
4. ``per_skill_min``, in the mapping's order;
5. ``per_skill_min_confidence`` (:mod:`.skill_confidence`), then the comparison
   (:mod:`.delta_gate`): ``min_delta`` and its confidence, unresolvable baselines, then
   ``min_case_pass_rate``; last, the decisions Holm's correction turned
   (:mod:`.multiplicity`); all added after these with :meth:`GateResult.adding`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..formatting import percent
from .record import EXIT_FAILED, GateResult, RunRecord
from .spend import ceiling_reasons

if TYPE_CHECKING:
    from .figures import RunFigures

# Pass rates are ratios of small integers, and the ones users compare (0.6 - 0.4
# against a 0.2 bar) are often not exact in binary floating point. Anything within
# this distance of the bar counts as meeting it.
TOLERANCE = 1e-9

EXIT_PASSED = 0

# The cause printed for a not-run item that carries no ``reason`` of its own.
DEFAULT_NOT_RUN_CAUSE = "the session stopped before they ran (-x/--maxfail or an interruption)"


def falls_short(actual: float, required: float) -> bool:
    """Whether ``actual`` is below ``required`` by more than :data:`TOLERANCE`.

    Upstream compares raw floats with a strict ``<``, so ``0.6 - 0.4``
    (0.19999999999999996) fails a 0.2 bar. We treat a difference of at most
    1e-9 as equal: no real pass rate (a ratio of counts) sits that close to a
    bar without being meant to meet it.
    """
    return actual < required - TOLERANCE


def evaluate_gate(
    record: RunRecord,
    *,
    min_pass_rate: float,
    fail_on_error: bool,
    per_skill_min: Mapping[str, float],
) -> GateResult:
    """The verdict for one session. The gate passes exactly when no reason applies."""
    figures = record.figures  # computed once: every report reads the same figures
    reasons = [
        *_rate_reasons(record, figures, min_pass_rate),
        *_errored_reasons(figures.errored, fail_on_error),
        *ceiling_reasons(record.spend_ceiling, (item.get("reason") for item in record.not_run)),
        *_not_run_reasons(record.not_run),
        *_per_skill_reasons(record, figures.pass_rate_by_skill, per_skill_min),
    ]
    passed = not reasons
    return GateResult(passed, EXIT_PASSED if passed else EXIT_FAILED, tuple(reasons))


def _rate_reasons(record: RunRecord, figures: RunFigures, min_pass_rate: float) -> list[str]:
    if not figures.total:
        if nothing_to_evaluate(record):  # a green run that says nothing was evaluated
            return []
        return [f"no eval cases ran: {_zero_case_cause(record)}"]
    rate = figures.pass_rate
    if falls_short(rate, min_pass_rate):
        return [
            f"pass rate {percent(rate, min_pass_rate)} is below the required "
            f"{percent(min_pass_rate, rate)}"
        ]
    return []


def nothing_to_evaluate(record: RunRecord) -> bool:
    """--skill-lens-changed found no skill changed, and so nothing was selected to run."""
    changed = record.changed
    return changed is not None and changed.nothing_to_evaluate and not record.not_run


def _unchanged(record: RunRecord) -> frozenset[str]:
    """Skills --skill-lens-changed left out: a minimum of theirs is not this run's to hold."""
    return frozenset(record.changed.unchanged_skills) if record.changed is not None else frozenset()


def _zero_case_cause(record: RunRecord) -> str:
    filtered = record.filtered_skills
    if filtered:
        names = ", ".join(filtered)
        return f"the -k/-m selection deselected every case (skill(s): {names})"
    if record.skipped_skills:
        names = ", ".join(record.skipped_skills)
        return f"all discovered skill(s) were skipped for having no eval cases: {names}"
    # Neither upstream cause applies, yet something may have been found; saying
    # "no skills were found" then would send the user looking in the wrong place.
    if record.not_run:
        return f"none of the {len(record.not_run)} selected case(s) produced an outcome"
    if record.skills_found:
        return f"{record.skills_found} skill(s) were found but no case produced an outcome"
    return "no skills were found"


def _errored_reasons(errored: int, fail_on_error: bool) -> list[str]:
    if not fail_on_error or not errored:
        return []
    return [f"{errored} case errored" if errored == 1 else f"{errored} cases errored"]


def _not_run_reasons(not_run: Sequence[Mapping[str, object]]) -> list[str]:
    """One reason per distinct cause, in first-seen order.

    A not-run entry may carry a ``reason`` (str) saying why it did not run.
    """
    by_cause: dict[str, list[Mapping[str, object]]] = {}
    for item in not_run:
        cause = item.get("reason")
        key = cause if isinstance(cause, str) and cause else DEFAULT_NOT_RUN_CAUSE
        by_cause.setdefault(key, []).append(item)
    reasons = []
    for cause, items in by_cause.items():
        baseline = sum(item.get("arm") == "baseline" for item in items)
        split = f" ({len(items) - baseline} candidate, {baseline} baseline)" if baseline else ""
        reasons.append(f"{len(items)} case(s) did not run{split}: {cause}")
    return reasons


def _per_skill_reasons(
    record: RunRecord, rates: Mapping[str, float], per_skill_min: Mapping[str, float]
) -> list[str]:
    reasons = []
    unchanged = _unchanged(record)
    for skill, minimum in per_skill_min.items():
        actual = rates.get(skill)
        if actual is None and skill in unchanged:
            continue
        if actual is None:
            why = (
                "was skipped (no eval cases)"
                if skill in record.skipped_skills
                else "produced no results"
            )
            reasons.append(f"skill '{skill}' requires a pass rate of {percent(minimum)} but {why}")
        elif falls_short(actual, minimum):
            reasons.append(
                f"skill '{skill}' pass rate {percent(actual, minimum)} is below its required "
                f"{percent(minimum, actual)}"
            )
    return reasons
