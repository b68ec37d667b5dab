"""Reading a JSON document an author hands a tool: strict, bounded, and named when refused."""

from __future__ import annotations

import json
from typing import Any

MAX_INPUT_BYTES = 16 * 1024 * 1024
"""Far above any listing or evals.json; far below what would hold a terminal for minutes."""
MAX_DEPTH = 100
"""No schema or eval needs more; deeper input would only exhaust the recursion that writes it."""


class InputError(Exception):
    """Input that cannot be used, with what is wrong and how to fix it."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(data: bytes, source: str) -> Any:
    """The JSON value of ``data`` (UTF-8, a leading byte-order mark skipped).

    NaN and Infinity, lone surrogates and nesting past :data:`MAX_DEPTH` are refused:
    none of them can be written into YAML that reads back as the same value.
    """
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(
            f"{source} is larger than {MAX_INPUT_BYTES:,} bytes", "give the JSON document alone"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{source} is not UTF-8 text (byte {exc.start})", "save it as UTF-8"
        ) from None
    try:
        value = json.loads(text, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            "fix the JSON syntax there (a trailing comma or a missing quote is common)",
        ) from None
    except RecursionError:
        raise _too_deep(source) from None
    except ValueError as exc:  # NaN/Infinity, or an integer past Python's digit limit
        raise InputError(f"{source} is not valid JSON: {exc}", "write plain JSON values") from None
    if _depth(value) > MAX_DEPTH:
        raise _too_deep(source)
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            f"{source} holds a lone surrogate (an unpaired \\ud800-\\udfff escape)",
            "fix the string that holds it: no text file can carry one",
        ) from None
    return value


def _too_deep(source: str) -> InputError:
    return InputError(
        f"{source} is nested more than {MAX_DEPTH} levels deep", "flatten the nesting"
    )


def _depth(value: Any) -> int:
    """How deeply ``value`` nests, found without recursion."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                return depth
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return deepest


def one_line_json(value: Any) -> str:
    """``value`` as compact JSON with sorted keys, on one line (for a comment)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
