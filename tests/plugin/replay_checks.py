"""What the cassette end-to-end modules share: a recording and its replay compared.

test_replay_e2e.py (the framework runners) and test_replay_products_e2e.py (the products
and ``cli``) each add the fields only their runners fill to :data:`SAME`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

__all__ = ["SAME", "recorded_day", "recording_days", "same_figures"]

_STARTED = datetime.now(UTC).date().isoformat()


def recording_days() -> set[str]:
    """What a cassette recorded during this test session can say: the day the session
    started, or today (a session may cross midnight UTC)."""
    return {_STARTED, datetime.now(UTC).date().isoformat()}


def recorded_day(junit: str) -> tuple[str, str]:
    """The ``recorded_at`` property of a JUnit file (which must be a day of this
    session) and how the terminal calls it: ``today``, or any word for the day before."""
    found = re.search(r'<property name="recorded_at" value="([^"]*)"', junit)
    assert found is not None, junit
    day = found.group(1)
    assert day in recording_days()
    return day, "today" if day == datetime.now(UTC).date().isoformat() else "*"


# What stays the same between a recording and its replay, figure for figure.
SAME = (
    "status",
    "output",
    "error",
    "tokens",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "cost_note",
    "usage_note",
    "latency_ms",
    "model",
    "tool_calls",
    "scores",
    "skill_triggered",
)


def same_figures(
    recorded: Mapping[str, Any], replayed: Mapping[str, Any], fields: Iterable[str] = SAME
) -> None:
    """Every one of ``fields`` of the replayed outcome is the recorded one's."""
    for field in fields:
        assert replayed[field] == recorded[field], field
