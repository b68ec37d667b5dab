"""Where a cost figure came from: one short sentence of a known form, kept beside the figure.

A cost is read as money spent. Some are not: a list price applied to a server of your
own, a figure a stand-in computed, a figure a runner handed over without saying how. So
every cost travels with its ``price_source`` (``RunResult``, ``JudgeVerdict``, ``Outcome``,
``Score``, the reports), and the reports print it wherever they print the figure. The
forms are closed, so a report reader can refuse anything else:

* ``list price of openai:gpt-4o-mini (genai-prices 0.2.5)``: the provider's list price
  for the model genai-prices matched, at the provider's own endpoint;
* the same, then ``; your endpoint may bill differently``: the requests went to an
  endpoint you chose (``base_url``, ``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``), which may
  charge another price or nothing at all (its address is a setting, never written in a
  report: it may hold a token);
* ``reported by ...``: the figure is the product's or the runner's own;
* ``scripted: ...``: a stand-in computed it; it is no price;
* ``not priced``: there is no figure (the cost note says why);
* ``mixed: A | B``: the parts of one run (its sessions) came from different sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

LIST_PRICE = "list price of "
REPORTED = "reported by "
SCRIPTED = "scripted: "
NOT_PRICED = "not priced"
MIXED = "mixed: "
_PARTS = " | "  # between a mixed source's parts
MAX_LENGTH = 1_000  # a few model names; longer is no source anyone wrote

_LISTED = re.compile(
    r"list price of .+ \(genai-prices [^()]+\)(; your endpoint may bill differently)?"
)
_FREE = re.compile(r"(reported by |scripted: ).+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def list_price(models: Sequence[str], table: str, own_endpoint: bool) -> str:
    """``list price of <models> (<table>)``, and the caveat when the endpoint is your own."""
    text = f"{LIST_PRICE}{', '.join(models)} ({table})"
    if own_endpoint:
        text += "; your endpoint may bill differently"
    return text


def reported_by(who: str) -> str:
    """A figure ``who`` (``runner scripted``, ``the judge``) handed over without saying
    where it came from."""
    return f"{REPORTED}{who}, which did not say how it was priced"


def problem(value: str) -> str | None:
    """Why ``value`` is no price source of a known form (module docstring), or None."""
    if len(value) > MAX_LENGTH:
        return f"a price source is at most {MAX_LENGTH} characters"
    if _CONTROL.search(value):
        return "a price source is one line of printable text"
    mixed = value.startswith(MIXED)
    parts = value.removeprefix(MIXED).split(_PARTS)
    if (mixed or len(parts) == 1) and all(_known(part) for part in parts):
        return None
    return (
        "a price source starts 'list price of ', 'reported by ', 'scripted: ' or 'mixed: ' "
        f"(its parts joined by {_PARTS!r}, which no part holds), or is 'not priced'"
    )


def _known(part: str) -> bool:
    return part == NOT_PRICED or bool(_LISTED.fullmatch(part) or _FREE.fullmatch(part))


def combined(sources: Iterable[str | None]) -> str | None:
    """One source for parts of one run: theirs when they agree, else ``mixed: A | B``."""
    seen: list[str] = []
    for source in sources:
        for part in source.removeprefix(MIXED).split(_PARTS) if source else ():
            if part not in seen:
                seen.append(part)
    if len(seen) > 1:
        return MIXED + _PARTS.join(seen)
    return seen[0] if seen else None


def of_run(source: str | None, cost_usd: float, cost_note: str | None, who: str) -> str | None:
    """What an outcome or score says of its cost: the words of ``who`` (the runner or the
    judge that spent it), else what the figures show.

    A cost with a note and no figure is ``not priced``; a figure with no source is the
    word of ``who`` (an added runner or judge that never says); no cost and no note,
    nothing to say.
    """
    if source:
        return source
    if cost_usd:
        return reported_by(who)
    return NOT_PRICED if cost_note else None


def distinct(sources: Iterable[str | None]) -> list[str]:
    """Each source once, in the order first seen (a summary's list)."""
    seen: list[str] = []
    for source in sources:
        if source and source not in seen:
            seen.append(source)
    return seen
