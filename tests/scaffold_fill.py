"""Filling an ``init`` scaffold as an author would, for the tests of ``init``.

Importable from any test module (``pythonpath = ["tests"]`` in pyproject.toml).
"""

from __future__ import annotations

import json

PLACEHOLDER = "TODO(skill-lens)"

# The values an author would write, one per placeholder, in the scaffold's order.
FILLED = [
    "Where is my order 1234?",  # common: task
    "handled",  # contains (the fake runner's answer holds it)
    "I cannot help",  # not_contains
    "Refund order 1234, delivered 45 days ago",  # policy: task
    "lookup_order",
    "Look up an order by its id",
    "order_id",
    '{"id": "1234", "days_since_delivery": 45}',
    "issue_refund",
    "Refund an order",
    '{"ok": true}',
    "lookup_order",  # called
    "issue_refund",  # forbidden
    "I want to return my order",  # offered: positive
    "What is the capital of Egypt?",  # offered: negative control
    "Summarise sales.csv into report.md",  # workspace: task
    "sales.csv",
    "region,units\nnorth,120\n",
    "report.md",
    "report.md",
    "north",
]


def fill(text: str, values: list[str] | None = None) -> str:
    """``text`` with each placeholder outside a comment replaced by the next of ``values``
    (:data:`FILLED` by default), written as a JSON string (which YAML reads as it is)."""
    remaining = iter(FILLED if values is None else values)
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("#"):
            out.append(line)
            continue
        code, hash_mark, rest = line.partition("  #")
        while PLACEHOLDER in code:
            code = code.replace(PLACEHOLDER, json.dumps(next(remaining)), 1)
        out.append(code + hash_mark + rest)
    assert next(remaining, None) is None, "the scaffold holds fewer placeholders than values"
    return "".join(out)
