"""The spend ceiling as the gate and the reports read it, after the run.

While items run, the ledger (``plugin/ledger.py``) decides which may start. Here the
figures are recomputed from the recorded outcomes in planned order, so a plain run
and ``-n 2`` report the same: what was spent (runs, discarded retries and judging, of
both arms, errored outcomes included) and the first outcome whose spend could not be
priced, which made the ceiling unenforceable from then on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..formatting import usd
from ..labels import case_label

if TYPE_CHECKING:  # annotations only: this module loads no run-phase module
    from ..perform.outcome import Outcome

# Why the ledger refused an item; the not-run reason its entry carries.
CEILING_STOPPED = "the spend ceiling stopped the run"


@dataclass(frozen=True)
class SpendCeiling:
    max_spend_usd: float
    spent_usd: float
    unpriced: str | None  # "{skill} :: {case} ({runner}[, baseline]): {note}", first one


def spend_of(outcome: Outcome) -> float:
    """What one outcome spent anew: the run, its discarded retries and its judging.

    What came from a cassette was spent when it was recorded: it is reported, but
    counts as no new spend against the ceiling (docs/replay.md).
    """
    if outcome.replayed:
        return 0.0
    spent = math.fsum((outcome.cost_usd, outcome.retry_cost_usd, outcome.judge_cost_usd))
    return max(0.0, spent - outcome.replayed_usd)


def unpriced_note(outcome: Outcome) -> str | None:
    """The run's own cost note, else its first judge's; None when everything was priced
    (or nothing was spent anew: a replayed outcome)."""
    if outcome.replayed:
        return None
    if outcome.cost_note:
        return outcome.cost_note
    return next((s.cost_note for s in outcome.scores if s.cost_note), None)


def spend_ceiling(outcomes: Sequence[Outcome], max_spend_usd: float | None) -> SpendCeiling | None:
    """The ceiling's figures over ``outcomes`` (in planned order); None without a ceiling."""
    if max_spend_usd is None:
        return None
    return SpendCeiling(
        max_spend_usd=max_spend_usd,
        spent_usd=math.fsum(spend_of(o) for o in outcomes),
        unpriced=next((_label(o, note) for o in outcomes if (note := unpriced_note(o))), None),
    )


def ceiling_reasons(ceiling: SpendCeiling | None, not_run: Iterable[object]) -> list[str]:
    """Why the ceiling fails the gate: its spend was not priced, or it stopped items.

    ``not_run`` holds the not-run entries' reasons; a ceiling crossed by the last item
    stops nothing and fails nothing. Items an unpriced outcome stopped are covered by
    the first reason (and the not-run one), never by a "reached" that did not happen.
    """
    if ceiling is None:
        return []
    reasons = []
    if ceiling.unpriced is not None:
        reasons.append(
            f"the spend ceiling of {usd(ceiling.max_spend_usd)} could not be enforced: "
            f"spend was not priced for {ceiling.unpriced}"
        )
    stopped = any(reason == CEILING_STOPPED for reason in not_run)
    if stopped and ceiling.spent_usd >= ceiling.max_spend_usd:  # else blindness stopped them
        reasons.append(
            f"the spend ceiling of {usd(ceiling.max_spend_usd)} was reached "
            f"(${ceiling.spent_usd:.4f} recorded)"
        )
    return reasons


def _label(outcome: Outcome, note: str) -> str:
    more = ["baseline"] if outcome.arm == "baseline" else []
    return f"{case_label(outcome.skill_name, outcome.case_name, outcome.runner, *more)}: {note}"
