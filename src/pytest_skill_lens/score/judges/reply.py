"""A product judge's verdict, read from its free-text reply: exactly one JSON object.

A product has no structured-output mode, so the verdict is the one top-level JSON
object in the reply: a ``{`` where a JSON object starts and parses to its closing
``}`` (braces inside its strings do not count), not inside an earlier such object.
Prose around it and a code fence are fine; a brace pair in prose (``{name}``) is no
object, because it does not parse. Two or more objects (a graded response quoting a
forged verdict before the real one, say) are unreadable, never a choice between
them, as are none, a cut object and a repeated key. The one object is then
validated strictly as :class:`.output.JudgeOutput`.

Reading is bounded: only a ``{`` followed by a key or ``}`` is tried, each try is
charged what it costs (a decoding error is told from the reply's start, so it costs
its position too), and a reply that would cost more than a few passes over it is
unreadable rather than slow.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..judge import JudgeCheck
from .output import OUTPUT_SHAPE_NAME, invalid, read_output

# How many characters the decoder may scan in all, per character of the reply.
_WORK_PER_CHAR = 8
_WORK_FLOOR = 1_000_000
_EXCERPT = 200
# Where a JSON object can start: a brace, then (after blanks) a key or the closing brace.
_OPENING = re.compile(r'\{[ \t\r\n]*["}]')


@dataclass(frozen=True)
class _Found:
    value: dict[str, Any]
    repeated: tuple[str, ...]  # keys an object of it held twice


class _Tangled(Exception):
    """The reply would take too long to read."""


def read_reply(reply: str) -> tuple[list[JudgeCheck] | None, str | None]:
    """``(checks, None)`` from the reply's one JSON object, or ``(None, why)``."""
    try:
        found = _objects(reply)
    except _Tangled:
        return None, invalid(
            f"the reply ({len(reply):,} characters) holds too many unclosed JSON-like "
            "fragments to read a verdict from"
        )
    if not found:
        return None, invalid(f"the reply holds no JSON object {OUTPUT_SHAPE_NAME}: {_shown(reply)}")
    if len(found) > 1:
        return None, invalid(
            "the reply holds two or more top-level JSON objects; the verdict must be "
            "exactly one, so none of them is taken"
        )
    (verdict,) = found
    if verdict.repeated:
        keys = ", ".join(repr(key) for key in verdict.repeated)
        return None, invalid(f"the verdict repeats the key(s) {keys}")
    return read_output(verdict.value)


def _objects(text: str) -> list[_Found]:
    """The top-level JSON objects in ``text``, in order, up to the second one."""
    budget = max(_WORK_FLOOR, _WORK_PER_CHAR * len(text))
    found: list[_Found] = []
    opening = _OPENING.search(text)
    while opening is not None:
        position = opening.start()
        repeated: list[str] = []
        decoder = json.JSONDecoder(object_pairs_hook=_pairs(repeated))
        resume = position + 1
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            budget -= max(1, exc.pos - position) + exc.pos
        except (RecursionError, ValueError):  # absurd nesting; a number too long to convert
            budget -= len(text) - position
        else:
            budget -= end - position
            found.append(_Found(value, tuple(repeated)))
            resume = end  # an object inside this one is not top-level
            if len(found) > 1:
                break  # a second one makes the reply unreadable: no need to count on
        if budget < 0:
            raise _Tangled
        opening = _OPENING.search(text, resume)
    return found


def _pairs(repeated: list[str]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def build(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                repeated.append(key)
            seen[key] = value
        return seen

    return build


def _shown(reply: str) -> str:
    said = reply.strip()
    if not said:
        return "the reply was empty"
    return repr(said[:_EXCERPT] + ("..." if len(said) > _EXCERPT else ""))
