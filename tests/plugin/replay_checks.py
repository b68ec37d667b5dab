"""What the cassette end-to-end modules share: a recording and its replay compared.

test_replay_e2e.py (the framework runners) and test_replay_products_e2e.py (the products
and ``cli``) each add the fields only their runners fill to :data:`SAME`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

__all__ = ["SAME", "TODAY", "same_figures"]

TODAY = datetime.now(UTC).date().isoformat()  # what a cassette recorded now says
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
