"""What a row shows only when opened travels compressed, in blocks the page opens on demand.

At 50,000 outcomes the page was 51-92 MB (the scale test's, the benchmark's merged one),
most of it what nobody reads until a row is opened: checks with their evidence, outputs,
tool calls, and fifty keys a row, most of them null. Each outcome is split in two: the
values the table, filters, charts and summaries read on load (:data:`LIGHT_KEYS`) stay
in the data block, a list of values an outcome (the keys named once, a third of the size
of an object each); the rest goes into blocks of :data:`PER_BLOCK` outcomes, each a
compact JSON list compressed by zlib (the ``deflate`` format of the browser's
DecompressionStream) and base64'd. Base64 holds no ``<``, ``>`` or ``&``, so a block is
as safe inside the script element as the escaped JSON.
The blocks are the data's last key (:data:`EVIDENCE_KEY`), written once the outcomes are,
so the page is still written one outcome at a time.

Every report takes this one path, small or large: a second layout would be a second set
of bugs and tests, and a small page's blocks open in a millisecond.
"""

from __future__ import annotations

import base64
import functools
import zlib
from collections.abc import Iterator
from typing import Any

from ..json_stream import Each, Parts, encode_compact

EVIDENCE_KEY = "packed_outcomes"
PER_BLOCK = 500  # outcomes a block: a row opened decompresses at most this many
# What the page reads before a row is opened: its cells, its filters, the cost chart.
LIGHT_KEYS = (
    "skill_name",
    "case_name",
    "runner",
    "status",
    "arm",
    "repeat_index",
    "tokens",
    "latency_ms",
    "cost_usd",
    "retry_cost_usd",
    "cost_note",
    "replayed",
    "replayed_calls",
    "reused_from",
)
_LIGHT = frozenset(LIGHT_KEYS)


class Packer:
    """Splits the outcomes of a document's parts as they are written, and packs the rest."""

    def __init__(self) -> None:
        self._blocks: list[str] = []
        self._pending: list[str] = []  # the current block's heavy parts, as JSON text

    def parts(self, parts: Parts) -> Iterator[tuple[str, Any]]:
        """``parts`` with each outcome's light part in place of the outcome, then the
        blocks (only when there were outcomes: any other document is left as it is)."""
        seen = False
        for key, value in parts:
            if key == "outcomes" and isinstance(value, Each | list):
                seen = True
                yield key, Each(functools.partial(self._lights, value))
            else:
                yield key, value
        if seen:
            yield (
                EVIDENCE_KEY,
                {
                    "light_keys": list(LIGHT_KEYS),
                    "format": "deflate",
                    "per_block": PER_BLOCK,
                    "blocks": self._done(),
                },
            )

    def _lights(self, outcomes: Each | list[Any]) -> Iterator[list[Any] | None]:
        for item in outcomes.items() if isinstance(outcomes, Each) else outcomes:
            light, heavy = split(item)
            self._pending.append(encode_compact(heavy))
            if len(self._pending) == PER_BLOCK:
                self._pack()
            yield light

    def _pack(self) -> None:
        text = "[" + ",".join(self._pending) + "]"  # ASCII: the encoder escapes the rest
        self._blocks.append(base64.b64encode(zlib.compress(text.encode("ascii"))).decode())
        self._pending = []

    def _done(self) -> list[str]:
        if self._pending:
            self._pack()
        return self._blocks


def split(outcome: Any) -> tuple[list[Any] | None, dict[str, Any]]:
    """An outcome's light part, its values in :data:`LIGHT_KEYS` order (a key it lacks is
    null, which the page reads as it reads an absent one), and its heavy part, the rest of
    its keys but those whose value is null. Anything
    but an object is no outcome: nothing of it is carried, and the page draws an empty row
    where it would have stopped at it."""
    if not isinstance(outcome, dict):
        return None, {}
    light = [outcome.get(key) for key in LIGHT_KEYS]
    # A null is left out: the page reads a missing key as it reads a null one, and most of
    # an outcome's keys are null (two thirds of the text the first search decompresses).
    heavy = {k: v for k, v in outcome.items() if k not in _LIGHT and v is not None}
    return light, heavy
