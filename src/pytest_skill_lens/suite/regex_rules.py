"""Which regexes an author may write: Python ``re`` syntax that the matcher reads alike.

Scoring matches with the ``regex`` package, because it can bound a search's time
and ``re`` cannot. In its default mode (VERSION0) it reads ``re`` syntax as ``re``
does, except for two things ``re`` takes as literal characters: a POSIX class such
as ``[:digit:]`` inside a set, and a fuzzy count such as ``{e<=1}``. Both are
refused, so a pattern never means one thing in the docs and another in the check.
One difference is not refused: ``\\B`` matches an empty text under the regex package
(and under ``re`` from Python 3.14), not under older ``re``; docs/eval-files.md says so.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterator

from .quoting import shown

_REGEX_FIX = "fix the pattern; in YAML, single-quote it so backslashes stay as written"
_DIFFERS_FIX = (
    "escape it to match it literally (e.g. \\[:digit:] or \\{e<=1\\}), "
    "or write what you mean in re syntax (e.g. [0-9] for [:digit:])"
)
_POSIX_CLASS = re.compile(r"\[:\^?[A-Za-z]+:\]")
_FUZZY = re.compile(r"(?<![A-Za-z])[eids](?![A-Za-z])")  # an edit kind: e, i, d or s


# Asked at load and again when scoring compiles the pattern: a verdict is a few bytes,
# the compiles it saves are two per pattern.
@functools.lru_cache(maxsize=16_384)
def regex_problem(pattern: str) -> tuple[str, str] | None:
    """Why ``pattern`` cannot be an author's regex, and the fix; ``None`` when it can."""
    try:
        with warnings.catch_warnings():
            # re's FutureWarning on "[[" is about the very ambiguity refused below.
            warnings.simplefilter("ignore", FutureWarning)
            re.compile(pattern)
    except re.error as exc:
        return f"the regex {shown(pattern)} does not compile: {exc}", _REGEX_FIX
    differs = read_differently(pattern)
    if differs is not None:
        meaning = "a POSIX class" if differs.startswith("[") else "a fuzzy-match count"
        return (
            f"the regex {shown(pattern)} holds {shown(differs)}, which Python's re reads as "
            "literal characters "
            f"but the matcher (the regex package) reads as {meaning}",
            _DIFFERS_FIX,
        )
    if read_alike(pattern):
        return None  # the regex package compiles it too: its compile is 4x re's, per pattern
    import regex  # only once a regex assertion is met: scoring needs it anyway

    try:
        regex.compile(pattern)
    except regex.error as exc:
        return (
            f"the regex {shown(pattern)} compiles under Python's re but not under the regex "
            f"package the matcher uses: {exc}",
            "escape literal braces and brackets as \\{ \\} \\[ \\]",
        )
    return None


# Escapes both engines read alike: the classes, the anchors, the control characters; an
# escaped ASCII character that is not a letter or a digit is that character in both.
_ALIKE_ESCAPES = frozenset("bBdDwWsSAZfnrtv")


def _items(pattern: str) -> Iterator[tuple[int, str, bool]]:
    """Each item of ``pattern`` as (position, text, inside a set), for both readers below.

    An escape is one item, its backslash and what follows (a lone backslash at the end
    is an item of its own); anything else is one character. A set's opening ``[`` is
    outside it and its closing ``]`` inside; a ``]`` first in a set is a literal."""
    i, n = 0, len(pattern)
    set_body = -1  # where the current set's items start; -1 outside a set
    while i < n:
        char = pattern[i]
        if char == "\\":
            yield i, pattern[i : i + 2], set_body >= 0
            i += 2
            continue
        yield i, char, set_body >= 0
        if set_body < 0:
            if char == "[":
                set_body = i + 1 + pattern.startswith("^", i + 1)
        elif char == "]" and i > set_body:
            set_body = -1
        i += 1


def read_alike(pattern: str) -> bool:
    """Whether ``pattern`` holds only syntax that ``re`` and the ``regex`` package read
    alike: literals, ``.^$*+?|``, plain groups, flat character sets and the escapes
    above; no braces, no ``(?`` extension, no ``[`` inside a set. Such a pattern, once
    ``re`` compiles it, the regex package compiles too (tests/unit/test_regex_alike.py
    checks it over generated patterns), so the loader need not ask it."""
    for i, item, in_set in _items(pattern):
        if item.startswith("\\"):
            if not _escape_read_alike(item):
                return False
        elif item in "{}" or pattern.startswith("(?", i) or (item == "[" and in_set):
            return False
    return True


# Outside a set, what gives a backtracking matcher a choice to go back on: a repeat, an
# optional part, an alternative, and every ``(?`` extension (lookarounds, flags, names).
_CHOICES = frozenset("*+?{|")


@functools.lru_cache(maxsize=16_384)
def without_choices(pattern: str) -> bool:
    """Whether ``pattern`` leaves the matcher nothing to go back on: only literals, ``.``,
    ``^``, ``$``, plain groups, sets and the escapes both engines read alike; no repeat,
    optional part, alternative, backreference or ``(?`` extension.

    Searching a text of n characters for such a pattern makes at most n attempts of at
    most ``len(pattern)`` steps each, so its time is bounded by the two lengths alone."""
    for _, item, in_set in _items(pattern):
        if in_set:
            continue
        if item.startswith("\\"):
            if not _escape_read_alike(item):
                return False
        elif item in _CHOICES:
            return False
    return True


def _escape_read_alike(item: str) -> bool:
    """Whether the escape ``item`` (its backslash and what follows) is one of the above."""
    follower = item[1:]
    return follower in _ALIKE_ESCAPES or _stands_for_itself(follower)


def _stands_for_itself(escaped: str) -> bool:
    return escaped != "" and escaped.isascii() and not escaped.isalnum()


def read_differently(pattern: str) -> str | None:
    """The first part of ``pattern`` that ``re`` and the ``regex`` package read differently."""
    for i, item, in_set in _items(pattern):
        if in_set and item == "[":
            posix = _POSIX_CLASS.match(pattern, i)
            if posix:
                return posix.group()
        elif not in_set and item == "{":
            end = pattern.find("}", i)
            if end >= 0 and _FUZZY.search(pattern, i + 1, end):
                return pattern[i : end + 1]
    return None
