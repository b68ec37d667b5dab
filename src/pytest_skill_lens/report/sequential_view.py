"""``--skill-lens-repeat auto:N`` in the reports: each decision, and the items not spent.

``sequential`` is derived (a merge decides again from the outcomes), so it is checked, not
read back; ``stopped_early`` is read back like ``not_run``, so a merge still counts them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..gate.sequential_record import SequentialRecord
from .json_fields import FINITE, RATE, SIGNED_RATE, Fields

_ENTRY_KEYS = ("skill_name", "case_name", "runner", "arm", "repeat_index")
_QUESTIONS = ("per_skill_min", "min_pass_rate", "min_delta")
_VERDICTS = ("pass", "fail", "continue", "undecided")


def sequential_dict(record: SequentialRecord | None) -> dict[str, Any] | None:
    if record is None:
        return None
    return {
        "max_rounds": record.max_rounds,
        "alpha": record.alpha,
        "method": record.method,
        "questions": [
            {
                "question": q.question,
                "skill_name": q.skill_name,
                "runner": q.runner,
                "arm": q.arm,
                "verdict": q.decision.verdict,
                "rounds": q.decision.rounds,
                "decided_at": q.decision.decided_at,
                "threshold": q.decision.threshold,
                "estimate": q.decision.estimate,
                "capital_pass": q.decision.capital_pass,
                "capital_fail": q.decision.capital_fail,
                "bounds": list(q.bounds),
                "text": q.text,
            }
            for q in record.questions
        ],
    }


def stopped_dict(entry: Mapping[str, object]) -> dict[str, Any]:
    return {
        **{key: entry.get(key) for key in _ENTRY_KEYS},
        "nodeid": entry.get("nodeid"),
        "reason": entry.get("reason"),
    }


def read_stopped(entry: Fields) -> dict[str, object]:
    for key in ("skill_name", "case_name", "runner", "arm", "nodeid", "reason"):
        entry.text(key)
    entry.count("repeat_index")
    return dict(entry.data)


def check_sequential(top: Fields) -> None:
    """A :class:`ReportError` for an impossible value in the ``sequential`` block."""
    block = top.optional_child("sequential") if "sequential" in top.data else None
    if block is None:
        return
    block.count("max_rounds")
    block.figure("alpha", RATE)
    block.text("method")
    for q in block.objects("questions"):
        q.word("question", _QUESTIONS)
        q.word("verdict", _VERDICTS)
        q.text("skill_name")
        q.optional_text("runner")
        if "arm" in q.data:  # absent from a report written before each arm asked its own
            q.optional_text("arm")
        q.count("rounds")
        if q.data.get("decided_at") is not None:
            q.count("decided_at")
        q.figure("threshold", SIGNED_RATE)
        q.optional_figure("estimate", SIGNED_RATE)
        q.optional_figure("capital_pass", FINITE)  # null: a wealth past a float's range
        q.optional_figure("capital_fail", FINITE)
        q.text("text")


QUESTIONS_SHOWN = 20  # a suite of a thousand skills would print two thousand lines


def sequential_lines(record: SequentialRecord | None) -> list[str]:
    """The console's and Markdown's words: each question of the run, decided or not (the
    first :data:`QUESTIONS_SHOWN`; the JSON report holds every one)."""
    if record is None:
        return []
    head = f"Repeats: auto:{record.max_rounds}, {record.method}, alpha {record.alpha:g}"
    shown = record.questions[:QUESTIONS_SHOWN]
    more = len(record.questions) - len(shown)
    tail = [f"  ... and {more} more question(s): see sequential in the JSON report"] if more else []
    return [head, *(f"  {q.text}" for q in shown), *tail]
