"""What every report says about the products a run started: one line per product.

``product {name}[ {version}] ({executable}): {trust}``, where the trust sentence is
the run's product sandbox decision (run/sandbox/product_sandbox.py): the terminal prints the
lines, the JSON report carries each product with its sandbox block, JUnit joins the
lines into one suite property and Markdown ends with them as ``<sub>`` lines. A
product that fills the runner and the judge seat is one line.
"""

from __future__ import annotations

from typing import Any

from ..gate.record import RunRecord
from ..run.sandbox.product_sandbox import REPLAY_ONLY_TRUST, ProductEntry

# The property name the original skill-lens CLI writes, so tools reading its JUnit keep working.
PRODUCTS_PROPERTY = "skill-lens.products"
# Appended to an idle-scripts note when a product ran: run_script is off, their shell is not.
SCRIPTS_REACHABLE = "product runners can still run them through their own tools"


def product_line(entry: ProductEntry) -> str:
    version = f" {entry.version}" if entry.version else ""
    note = f" Note: {entry.cache_note}." if entry.cache_note else ""
    return f"product {entry.name}{version} ({entry.executable}): {entry.trust}{note}"


def product_lines(record: RunRecord) -> list[str]:
    return [product_line(entry) for entry in record.products]


def unsandboxed(record: RunRecord) -> list[str] | None:
    """The products that ran with no skill-lens sandbox (``auto`` without a working
    backend, or ``off``); ``None`` when the record names no product (a merge's does not)."""
    if not record.products:
        return None
    return [
        entry.name
        for entry in record.products
        if entry.sandbox.backend == "none" and entry.trust != REPLAY_ONLY_TRUST
    ]


def unsandboxed_note(record: RunRecord) -> str | None:
    """What the gate line adds when a product ran unsandboxed, naming each and why."""
    named = set(unsandboxed(record) or ())
    reasons = [
        f"{entry.name} ({entry.sandbox.detail or 'no sandbox backend works here'})"
        for entry in record.products
        if entry.name in named
    ]
    return f"products ran unsandboxed: {', '.join(reasons)}" if reasons else None


def product_dict(entry: ProductEntry) -> dict[str, Any]:
    """A JSON ``products[]`` entry: ``{name, executable, version, trust, sandbox,
    cache_note}``."""
    return {
        "name": entry.name,
        "executable": entry.executable,
        "version": entry.version,
        "trust": entry.trust,
        "sandbox": entry.sandbox.data(),
        "cache_note": entry.cache_note,
    }


def product_properties(record: RunRecord) -> list[tuple[str, str]]:
    """The JUnit suite property: every product line, joined with ``; ``."""
    lines = product_lines(record)
    return [(PRODUCTS_PROPERTY, "; ".join(lines))] if lines else []
