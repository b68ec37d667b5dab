"""YAML written by hand: block style, keys in the order given, every scalar quoted when it
must be.

A generated file is read by people first, so it is not ``yaml.safe_dump``'s output: that
cannot interleave comments, and it folds long text where an author expects a ``|`` block.
Each string is written plain only when it reads back as the same string under both our
strict loader and PyYAML (``yes``, ``1.0``, ``null`` and ``a: b`` are quoted); text with a
line break is a literal block when one can hold it exactly, else a double-quoted string
with escapes. :func:`check_round_trip` then reads the whole document back with the loader
the plugin uses, so a value that would not survive is an error here, never a wrong file.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..suite.rules import PLACEHOLDER
from ..suite.yamlload import load_yaml_text

try:  # libyaml when PyYAML was built with it: the same answers, faster
    from yaml import CSafeLoader as _SAFE
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _SAFE  # type: ignore[assignment]

INDENT = 2
# Plain scalars keep to a boring alphabet: no ':', '#', '"', brackets, braces or leading digit.
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_ ./()+,?!'@%=-]*")
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}
# YAML allows an implicit key of at most 1024 characters; a longer one needs '? key'.
_LONG_KEY = 1000


@dataclass(frozen=True)
class Todo:
    """A value the author must supply: written as ``TODO(skill-lens)`` (the loader refuses
    it until filled), or as ``neutral`` when a converter checks what the file would be once
    resolved. ``note`` becomes a comment at the end of its line."""

    neutral: Any = "resolved"
    note: str | None = None


class EmitError(Exception):
    """The written YAML does not read back as the data it was written from (a bug here)."""


def comment(text: str) -> str:
    """``text`` made safe for a ``#`` comment: nothing in it can end the line early.

    YAML 1.1 breaks lines at NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR as well as at
    ``\\n``, so every character that is not printable is written as an escape.
    """
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def scalar(value: Any, *, check: bool = False) -> str:
    """One value on one line: ``null``, ``true``, a number, or a string plain or quoted."""
    if isinstance(value, Todo):
        return scalar(value.neutral, check=True) if check else PLACEHOLDER
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return _string(value)
    raise EmitError(f"cannot write a {type(value).__name__} as YAML")


def mapping_lines(mapping: dict[str, Any], indent: int, *, check: bool = False) -> list[str]:
    """A block mapping at ``indent`` spaces, one key after another in the order given."""
    lines: list[str] = []
    for key, value in mapping.items():
        rendered = _string(key)
        head = f"{rendered}:" if len(rendered) <= _LONG_KEY else f"? {rendered}\n{' ' * indent}:"
        lines.extend(_entry(" " * indent + head, value, indent, check))
    return lines


def sequence_lines(items: list[Any], indent: int, *, check: bool = False) -> list[str]:
    """A block sequence at ``indent`` spaces."""
    lines: list[str] = []
    for item in items:
        if isinstance(item, dict | list) and item:
            inner = (
                mapping_lines(item, indent + INDENT, check=check)
                if isinstance(item, dict)
                else sequence_lines(item, indent + INDENT, check=check)
            )
            # The first line of the nested block moves up beside the dash.
            inner[0] = " " * indent + "- " + inner[0][indent + INDENT :]
            lines.extend(inner)
        else:
            lines.extend(_entry(" " * indent + "-", item, indent, check))
    return lines


def _entry(head: str, value: Any, indent: int, check: bool) -> list[str]:
    if isinstance(value, dict):
        if not value:
            return [f"{head} {{}}"]
        return [head, *mapping_lines(value, indent + INDENT, check=check)]
    if isinstance(value, list):
        if not value:
            return [f"{head} []"]
        return [head, *sequence_lines(value, indent + INDENT, check=check)]
    if isinstance(value, str) and "\n" in value:
        block = literal_block(value, indent + INDENT)
        if block is not None:
            return [f"{head} {block[0]}", *block[1:]]
    line = f"{head} {scalar(value, check=check)}"
    if isinstance(value, Todo) and value.note and not check:
        line += f"  # {comment(value.note)}"
    return [line]


def literal_block(text: str, indent: int) -> list[str] | None:
    """``text`` as a ``|`` block (its header, then its lines at ``indent``), or ``None``
    when no block holds it exactly (a carriage return, a control character, only blank
    lines)."""
    if not text.strip("\n") or any(not (c.isprintable() or c in "\n\t") for c in text):
        return None
    if text.endswith("\n\n"):
        chomp, body = "+", text[:-1]
    elif text.endswith("\n"):
        chomp, body = "", text[:-1]
    else:
        chomp, body = "-", text
    first = next((line for line in body.split("\n") if line.strip()), None)
    if first is None:  # only spaces and breaks: a quoted scalar holds it, a block does not
        return None
    # Leading spaces on the first line would be read as indentation: say how much there is.
    indicator = str(INDENT) if first[:1] in (" ", "\t") else ""
    lines = [f"|{indicator}{chomp}"]
    lines += [" " * indent + line if line else "" for line in body.split("\n")]
    probe = "\n".join(["v: " + lines[0], *(line[indent - INDENT :] for line in lines[1:])]) + "\n"
    try:
        if _pyyaml(probe) != {"v": text} or _ours(probe) != {"v": text}:
            return None
    except yaml.YAMLError:
        return None
    return lines


def check_round_trip(text: str, expected: Any) -> None:
    """Read ``text`` back with the plugin's loader; :class:`EmitError` unless it is
    ``expected`` (with each :class:`Todo` read as its placeholder)."""
    try:
        found = load_yaml_text(text, Path("<generated>"))
    except Exception as exc:  # an AuthoringError from our own output is our bug
        raise EmitError(f"the YAML written does not load: {exc}") from None
    if found != resolved(expected):
        raise EmitError("the YAML written does not read back as the data it holds")


def resolved(value: Any, *, check: bool = False) -> Any:
    """``value`` with every :class:`Todo` replaced by what the YAML says in its place."""
    if isinstance(value, Todo):
        return resolved(value.neutral) if check else PLACEHOLDER
    if isinstance(value, dict):
        return {key: resolved(item, check=check) for key, item in value.items()}
    if isinstance(value, list):
        return [resolved(item, check=check) for item in value]
    return value


def _pyyaml(text: str) -> Any:
    """What a stock YAML 1.1 reader makes of ``text`` (people's own tools read the file too)."""
    return yaml.load(text, Loader=_SAFE)


def _ours(text: str) -> Any:
    try:
        return load_yaml_text(text, Path("<generated>"))
    except Exception:
        return None


def _string(text: str) -> str:
    if _PLAIN.fullmatch(text) and not text.endswith(" ") and text.lower() not in _RESERVED:
        try:
            if _pyyaml(text) == text and _ours(text) == text:
                return text
        except yaml.YAMLError:
            pass
    if text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    return _double_quoted(text)


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _double_quoted(text: str) -> str:
    out = [_ESCAPES.get(char) or (char if char.isprintable() else _escape(char)) for char in text]
    return '"' + "".join(out) + '"'


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _float(value: float) -> str:
    if not math.isfinite(value):
        raise EmitError("a number that is not finite has no JSON or YAML spelling")
    text = repr(value)
    mantissa, sep, exponent = text.partition("e")
    if sep:
        # PyYAML reads 1e+20 as text: give the mantissa a dot and the exponent a sign.
        if "." not in mantissa:
            mantissa += ".0"
        if exponent[:1] not in "+-":
            exponent = "+" + exponent
        text = f"{mantissa}e{exponent}"
    return text
