"""The one structural comparison behind ``when:``, ``call_args`` and the MCP bridge.

``contains`` is a subset at every level: a mapping matches when every key the
expected side names is present with a matching value, and keys it does not name
are ignored. ``equals`` is the same walk, except a mapping must carry exactly
the named keys, at every level. Lists match element by element at equal length.
Scalars are compared without coercion: ``"1"`` is not ``1`` and a boolean equals
only a boolean (Python's ``True == 1`` would let ``limit: 1`` pass on ``true``);
an integer and a float of the same value are equal, as JSON does not tell them apart.

Arguments a runner could not parse are kept as ``{"_raw": text}`` and never match:
a capture problem must read as a failed check, never as a pass.

The comparison explains itself: :func:`mismatch` returns the first difference it
found (or ``None``), so a check's evidence comes from the walk that gave its verdict.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Iterable, Mapping
from json.encoder import encode_basestring  # what json.dumps(str) calls, minus the encoder
from typing import Any

RAW_KEY = "_raw"
"""The key under which a runner keeps arguments it could not parse."""

_VALUE_SHOWN = 80  # how much of one value a mismatch quotes
# Evidence says exactly how much it cut while the whole text is at most this long;
# past it, the serializer stops and says only that there was more.
_COUNTED = 10_000


def contains(expected: Mapping[str, Any], arguments: Any) -> bool:
    """Whether ``arguments`` carry every key of ``expected`` with a matching value."""
    return explain(expected, arguments, exact=False) is None


def equals(expected: Mapping[str, Any], arguments: Any) -> bool:
    """Whether ``arguments`` carry exactly the keys of ``expected``, at every level."""
    return explain(expected, arguments, exact=True) is None


def explain(expected: Mapping[str, Any], arguments: Any, *, exact: bool) -> str | None:
    """Why one call's ``arguments`` do not match ``expected``, or ``None`` when they do."""
    if isinstance(arguments, Mapping) and RAW_KEY in arguments:
        return f"the runner could not parse these arguments (kept under {RAW_KEY})"
    return mismatch(expected, arguments, exact=exact)


def mismatch(expected: Any, actual: Any, *, exact: bool, path: str = "$") -> str | None:
    """The first difference between two values, located by a JSON path, or ``None``."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"{path}: expected an object, got {_show(actual)}"
        for key, want in expected.items():
            here = _child(path, key)
            if key not in actual:
                return f"{here}: missing (expected {_show(want)})"
            found = mismatch(want, actual[key], exact=exact, path=here)
            if found is not None:
                return found
        if exact:
            extra = [key for key in actual if key not in expected]
            if extra:
                names = ", ".join(_show(key) for key in extra)
                return f"{path}: unexpected key {names} (equals names every key)"
        return None
    if isinstance(expected, list | tuple):
        if not isinstance(actual, list | tuple):
            return f"{path}: expected a list, got {_show(actual)}"
        if len(expected) != len(actual):
            return (
                f"{path}: expected a list of {len(expected)}, got a list of {len(actual)}: "
                f"{_show(actual)}"
            )
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found = mismatch(want, got, exact=exact, path=f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if _scalar_equal(expected, actual):
        return None
    return f"{path}: expected {_typed(expected)}, got {_typed(actual)}"


def _scalar_equal(expected: Any, actual: Any) -> bool:
    # bool is an int subclass, so it is settled before any numeric comparison.
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    numbers = (int, float)
    if isinstance(expected, numbers) and isinstance(actual, numbers):
        return expected == actual
    return type(expected) is type(actual) and bool(expected == actual)


def _child(path: str, key: Any) -> str:
    if isinstance(key, str) and key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{clip_json(key, _VALUE_SHOWN)}]"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "list"
    return type(value).__name__


def _show(value: Any) -> str:
    return clip_json(value, _VALUE_SHOWN)


def _typed(value: Any) -> str:
    return f"{_show(value)} ({_kind(value)})"


def render_json(value: Any) -> str:
    """One line of JSON with sorted keys; what JSON cannot encode is shown via ``str``.

    It never raises: a value that defeats ``json`` entirely (keys that cannot be
    sorted, a cycle) falls back to ``repr``, because a mock tool and a failing
    check must still be able to say what they saw.
    """
    try:
        return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        try:
            return json.dumps(value, default=str, ensure_ascii=False)
        except (TypeError, ValueError):
            return repr(value)


def json_head(value: Any, limit: int, *, sort_keys: bool = True) -> tuple[str, bool]:
    """The first ``limit`` characters of the value's one-line JSON, and whether that is all.

    The text is what :func:`render_json` would give (``sort_keys=False`` keeps the
    value's own key order), but it is written piece by piece and the walk stops once
    ``limit`` is passed: a value that shares its parts (a YAML alias, a list repeating
    one object) can be small in memory and endless as text.
    """
    attempts = (True, False) if sort_keys else (False,)  # unsortable keys: write unsorted
    for sort in attempts:
        # The pure-Python encoder yields as it walks; the C one only returns the whole.
        encoder = json.JSONEncoder(sort_keys=sort, default=str, ensure_ascii=False)
        try:
            return _take(encoder.iterencode(value), limit)
        except (TypeError, ValueError, RecursionError):
            continue  # keys that cannot be sorted, a cycle, or nesting too deep
    return _take([_SHORT_REPR.repr(value)], limit)


def _short_repr() -> reprlib.Repr:
    """The last resort for what json cannot walk: bounded by depth and breadth."""
    short = reprlib.Repr()  # keyword arguments only from Python 3.12
    short.maxlevel = 5
    short.maxlist = short.maxtuple = short.maxdict = short.maxset = 8
    short.maxstring = short.maxother = _VALUE_SHOWN
    return short


_SHORT_REPR = _short_repr()


def _take(chunks: Iterable[str], limit: int) -> tuple[str, bool]:
    parts: list[str] = []
    size = 0
    for chunk in chunks:
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            return "".join(parts)[:limit], False
    return "".join(parts), True


def clip_json(value: Any, limit: int) -> str:
    """``clip(render_json(value), limit)``, without writing more than it needs.

    The count of removed characters is exact while the whole text is at most
    10,000 characters; past that the serializer has stopped, and the note says so.
    """
    text, whole = json_head(value, max(limit, _COUNTED))
    if whole:
        return clip(text, limit)
    return f"{text[:limit]}... [cut; more than {_COUNTED:,} characters in all]"


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how many were removed."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} characters removed]"


def quote(text: str, limit: int = 200) -> str:
    """``text`` as a JSON string literal (so whitespace shows), cut to ``limit`` characters."""
    shown = encode_basestring(text[:limit])
    if len(text) <= limit:
        return shown
    return f"{shown}... [{len(text) - limit} characters removed]"
