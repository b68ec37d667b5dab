"""How a figure is written in words: dollars and percentages.

One home for each, below every layer that words a figure: the gate's reasons, every
report and the plan. It imports nothing.
"""

from __future__ import annotations


def usd(value: float) -> str:
    """A ceiling as people write it: whole cents."""
    return f"${value:,.2f}"


def percent(rate: float, other: float | None = None) -> str:
    """``rate`` as a whole percentage, with more digits if it would read as ``other``.

    Without this, 299/300 against a 1.0 bar would print "100% is below the
    required 100%".
    """
    for digits in range(0, 5):
        text = f"{rate:.{digits}%}"
        if other is None or text != f"{other:.{digits}%}":
            return text
    return text


def signed_percent(value: float, other: float | None = None) -> str:
    """``value`` as a signed percentage, with more digits if it would read as ``other``."""
    for digits in range(5):
        text = f"{value:+.{digits}%}"
        if other is None or text != f"{other:+.{digits}%}":
            break
    return text
