"""One search with an author's regex, in bounded time, without a clock where none is needed.

The regex package stops a search at its ``timeout``, and to know when, it reads the
process's CPU clock (C's ``clock()``). In a process with more than one thread (an
xdist worker, whose execnet thread waits on its pipe; a concurrency pool) that read
can stall: on this project's machine the first one of each case took over 1 ms in
about one case of six, more than the rest of the case. A pattern without choices
(:func:`~.regex_rules.without_choices`) cannot backtrack, so a search of a text of
bounded size needs no clock: its time is bounded by the two lengths. Every other
search keeps its timeout.

Either way the GIL is kept (``concurrent=False``): the package releases it by default,
and taking it back while any other thread runs costs up to a switch interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .regex_rules import without_choices

if TYPE_CHECKING:
    import regex

# Characters of text times characters of pattern below which a choice-free search needs
# no timeout: at a few nanoseconds a step, at most tens of milliseconds.
LINEAR_STEPS = 10_000_000


def bounded_search(
    compiled: regex.Pattern[str], text: str, timeout: float
) -> regex.Match[str] | None:
    """``compiled.search(text)``, raising TimeoutError past ``timeout`` seconds where the
    pattern or the text's size leaves its time unbounded."""
    pattern = compiled.pattern
    if len(pattern) * len(text) <= LINEAR_STEPS and without_choices(pattern):
        return compiled.search(text, concurrent=False)
    return compiled.search(text, timeout=timeout, concurrent=False)
