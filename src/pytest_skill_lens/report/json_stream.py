"""A JSON document written piece by piece, its long lists one item at a time (issue 35).

A report of 50,000 outcomes built whole (every outcome a dict, a scrubbed copy of it all,
then the text) took three times the memory of the run itself. Here the top-level values
come as ``(key, value)`` parts, a long list as :class:`Each`, whose items are made only
as they are written. Each item is encoded by the C encoder as it stands, and only an item
that needs it is scrubbed first (:func:`~.printable.scrub_data`): one that holds a NaN or
infinity (the encoder refuses it) or an escaped surrogate (``\\ud`` in the ASCII text),
so what is written is exactly what scrubbing everything first would have written.

Two layouts of the same data: the file's (two-space indentation, each item of a long
list on a line of its own) and the page's (compact, as the HTML's data block holds it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .printable import scrub, scrub_data


@dataclass(frozen=True)
class Each:
    """A list written item by item; ``items`` makes them afresh each time it is called."""

    items: Callable[[], Iterable[Any]]


Parts = Iterable[tuple[str, Any]]  # a document's top-level keys and values, in order


def _default(value: object) -> object:
    # As scrub_data then the encoder's default did: a mapping of another kind is an
    # object, anything else unknown its text.
    if isinstance(value, Mapping):
        return dict(value)
    return scrub(str(value))


_ITEM = json.JSONEncoder(allow_nan=False, default=_default)
_COMPACT = json.JSONEncoder(allow_nan=False, default=_default, separators=(",", ":"))


def encode(value: Any, encoder: json.JSONEncoder = _ITEM) -> str:
    """``value`` as JSON text (ASCII), scrubbed as :func:`~.printable.scrub_data` would,
    copying it only when something in it needs that."""
    try:
        text = encoder.encode(value)
    except ValueError:  # a NaN or an infinity: null, as scrub_data makes them
        return encoder.encode(scrub_data(value))
    # An escaped surrogate (a pair, a lone one, or a backslash before "ud"): scrub.
    return encoder.encode(scrub_data(value)) if "\\ud" in text else text


def encode_compact(value: Any) -> str:
    """``value`` as :func:`encode` writes it, compact (the page's layout)."""
    return encode(value, _COMPACT)


def file_chunks(parts: Parts) -> Iterator[str]:
    """The document as ``json.dumps(..., indent=2)`` lays it out, but for each :class:`Each`
    list, whose items are one line each."""
    yield "{"
    for index, (key, value) in enumerate(parts):
        yield f"{',' if index else ''}\n  {json.dumps(key)}: "
        if isinstance(value, Each):
            yield from _lines(value)
        else:  # a small value: indented one level in, as the whole document was
            text = json.dumps(
                scrub_data(value), indent=2, default=lambda v: scrub(str(v)), allow_nan=False
            )
            yield text.replace("\n", "\n  ")  # JSON text has newlines only between tokens
    yield "\n}"


def _lines(value: Each) -> Iterator[str]:
    opened = False
    for item in value.items():
        yield ",\n    " if opened else "[\n    "
        opened = True
        yield encode(item)
    yield "\n  ]" if opened else "[]"


def compact_chunks(parts: Parts, escape: Callable[[str], str] = str) -> Iterator[str]:
    """The document as compact JSON (``separators=(",", ":")``), each piece through
    ``escape`` (the page's, which hides ``<``, ``>`` and ``&``)."""
    yield "{"
    for index, (key, value) in enumerate(parts):
        yield f"{',' if index else ''}{json.dumps(key)}:"
        if isinstance(value, Each):
            yield "["
            for position, item in enumerate(value.items()):
                yield ("," if position else "") + escape(encode(item, _COMPACT))
            yield "]"
        else:
            yield escape(encode(value, _COMPACT))
    yield "}"
