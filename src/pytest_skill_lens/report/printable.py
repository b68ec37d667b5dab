"""Untrusted text made safe to write: every report passes what it shows through here.

Runner output, evidence, tool arguments and names can hold anything a Python ``str``
can, including a lone surrogate (no UTF-8 file can hold one: writing it raises) and
terminal escapes. Two strengths:

* :func:`scrub` (and :func:`scrub_data` for a JSON document): a lone surrogate becomes
  U+FFFD; every other character is kept, since JSON's encoder escapes controls itself.
* :func:`printable`, for text a person reads (Markdown, JUnit): also C0 controls and
  DEL become their Unicode control pictures (ESC is ``␛``), so a reader sees that one
  was there; C1 controls, bidi overrides and isolates (which reorder what a reviewer
  reads) and the non-characters U+FFFE/U+FFFF (not allowed in XML) become U+FFFD.
  Tab, newline and carriage return stay: they are layout, not commands.
* :func:`one_line`, for a console line: :func:`printable`, and a newline or carriage
  return inside it is shown as its picture too, so no text can fake a line of its own
  (a ``Gate passed``) or overwrite one.

Both map one character to at most one, so a length budget computed before still holds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

REPLACEMENT = "\ufffd"

_SURROGATE = re.compile("[\ud800-\udfff]")
_PICTURES = {code: 0x2400 + code for code in range(0x20) if chr(code) not in "\t\n\r"}
_PICTURES[0x7F] = 0x2421
_REPLACED = dict.fromkeys(
    [*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0xFFFE, 0xFFFF],
    ord(REPLACEMENT),
)
_TABLE = {**_PICTURES, **_REPLACED}
_LINE_TABLE = {**_TABLE, 0x0A: 0x240A, 0x0D: 0x240D}


def scrub(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (a split pair is joined)."""
    if not _SURROGATE.search(text):
        return text
    # UTF-16 joins a high+low pair into its character and has no form for a lone half.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def printable(text: str) -> str:
    """``text`` safe to show a person: see the module docstring for what changes."""
    return scrub(text).translate(_TABLE)


def one_line(text: str) -> str:
    """``text`` safe as one console line: :func:`printable`, with CR and LF shown too."""
    return scrub(text).translate(_LINE_TABLE)


def scrub_data(value: Any) -> Any:
    """A JSON-able copy of ``value`` in which every string (keys too) is scrubbed and a
    NaN or infinity, which JSON cannot express, is ``null``."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {scrub_data(k): scrub_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_data(item) for item in value]
    return value
