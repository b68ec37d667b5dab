"""Turn pydantic's validation errors into authoring errors that say where and how to fix."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import AuthoringError, Where, combined
from .quoting import shown
from .yamlload import MarkedDict, MarkedList


def field_path(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def parse_field_path(path: str) -> tuple[int | str, ...]:
    """``tools[0].returns[1]`` -> ``("tools", 0, "returns", 1)`` (inverse of field_path)."""
    parts: list[int | str] = []
    for token in re.findall(r"\[(\d+)\]|([^.\[\]]+)", path):
        index, name = token
        parts.append(int(index) if index else name)
    return tuple(parts)


def line_at(raw: object, loc: Sequence[int | str]) -> int | None:
    """The line of the deepest node along ``loc`` that still has a mark."""
    line = getattr(raw, "line", None)
    node: Any = raw
    for part in loc:
        if isinstance(node, MarkedDict) and isinstance(part, str) and part in node.key_lines:
            line = node.key_lines[part]
            node = node[part]
        elif isinstance(node, MarkedList) and isinstance(part, int) and part < len(node):
            line = node.item_lines[part]
            node = node[part]
        else:
            break
    return line


def _model_fields(model: type[BaseModel], loc: Sequence[int | str]) -> list[str]:
    """The keys the model accepts at ``loc`` (best effort, for "did you mean")."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return []
        annotation = fields[part].annotation
        current = _first_model(annotation)
        if current is None:
            return []
    return list(getattr(current, "model_fields", {}))


def _first_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _first_model(arg)
        if found is not None:
            return found
    return None


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {shown(value)}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (null)"
    return shown(value)


# What pydantic calls a union's branches, in the author's words.
_BRANCHES = {
    "str": "text",
    "int": "a number",
    "float": "a number",
    "list[str]": "a list of text",
    "list[ReturnRule]": "a list of when:/value: entries",
    "ArtifactGlob": "a mapping with glob:",
}
_PROBLEMS = {
    "int_type": "expected a whole number",
    "int_from_float": "expected a whole number",
    "float_type": "expected a number",
    "bool_type": "expected true or false",
    "list_type": "expected a list",
    "dict_type": "expected a mapping",
    "model_type": "expected a mapping",
}
_FIXES = {
    "string_type": "quote the value so YAML reads it as text",
    "int_type": "write a whole number without quotes, e.g. 3",
    "int_from_float": "write a whole number without quotes, e.g. 3",
    "float_type": "write a number without quotes, e.g. 0.5",
    "bool_type": "write true or false, unquoted (yes/no/on/off are text in an eval file)",
    "list_type": "write a list: [a, b], or one '- item' per line",
    "dict_type": "write a mapping: 'key: value' lines indented under the key",
    "model_type": "write a mapping: 'key: value' lines indented under the key",
}


def _real_loc(
    raw: object, loc: Sequence[int | str], keep_last: bool
) -> tuple[tuple[int | str, ...], int | None]:
    """``loc`` without pydantic's union-branch tags, and the position of the first tag.

    A part is real when the parsed file has it (a key of the mapping, an index of
    the list) at that point; anything else is a branch tag such as ``str`` or
    ``list[ReturnRule]``. The last part of a *missing* error names a key the file
    lacks, so it is kept.
    """
    real: list[int | str] = []
    node: Any = raw
    tag_at: int | None = None
    for i, part in enumerate(loc):
        in_mapping = isinstance(node, Mapping) and isinstance(part, str) and part in node
        if in_mapping or (
            isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        ):
            node = node[part]
            real.append(part)
        elif keep_last and i == len(loc) - 1:
            real.append(part)
        elif tag_at is None:
            tag_at = i
    return tuple(real), tag_at


_Located = tuple[Any, tuple[int | str, ...], int | None]  # an error, its real loc, its tag


def _groups(errors: list[Any], raw: object) -> list[list[_Located]]:
    """pydantic's errors, one group per field: a union's branches share their field's group."""
    groups: dict[object, list[_Located]] = {}
    for i, error in enumerate(errors):
        real, tag_at = _real_loc(raw, tuple(error["loc"]), error["type"] == "missing")
        key: object = i if tag_at is None else tuple(error["loc"])[:tag_at]
        groups.setdefault(key, []).append((error, real, tag_at))
    return list(groups.values())


def _pick(group: list[_Located]) -> tuple[Any, tuple[int | str, ...], list[str]]:
    """The error to report for one field, its real location, and the union branches when
    every one failed.

    pydantic reports each branch of a union separately; the branch that got
    deepest into the value is the one the author meant (an unknown key in a
    ``when:`` entry, not "expected text"), and an unknown key beats a missing one.
    """
    first, first_real, first_tag = group[0]
    if first_tag is None:
        return first, first_real, []
    priority = {"extra_forbidden": 2, "missing": 1}
    error, real, _ = max(group, key=lambda item: (len(item[1]), priority.get(item[0]["type"], 0)))
    loc = tuple(error["loc"])
    if error["type"] != "missing" and real[-1:] != loc[-1:]:
        # Every branch failed on the value itself: say what the value may be.
        branches: list[str] = []
        for other, _, _ in group:
            other_loc = tuple(other["loc"])
            name = _BRANCHES.get(str(other_loc[-1]), str(other_loc[-1]))
            if other_loc[:-1] == loc[:-1] and name not in branches:
                branches.append(name)
        return error, real, branches
    return error, real, []


def authoring_error_from(
    exc: ValidationError, model: type[BaseModel], raw: object, where: Where, prefix: str = ""
) -> AuthoringError:
    """Every field's validation problem, located in the file and explained, as one error."""
    return combined(authoring_errors_from(exc, model, raw, where, prefix))


def authoring_errors_from(
    exc: ValidationError, model: type[BaseModel], raw: object, where: Where, prefix: str = ""
) -> list[AuthoringError]:
    """One authoring error per field pydantic refused, in the order it found them."""
    errors = exc.errors(include_url=False)
    return [_explained(*_pick(group), model, raw, where, prefix) for group in _groups(errors, raw)]


def _explained(
    error: Any,
    loc: tuple[int | str, ...],
    branches: list[str],
    model: type[BaseModel],
    raw: object,
    where: Where,
    prefix: str,
) -> AuthoringError:
    kind = error["type"]
    fix: str | None = _FIXES.get(kind)
    if branches:
        expected = " or ".join(branches)
        problem = f"expected {expected}, got {_describe(error.get('input'))}"
        fix = f"write it as {expected}"
    elif kind == "extra_forbidden":
        key = str(loc[-1])
        known = _model_fields(model, loc[:-1])
        guess = difflib.get_close_matches(key, known, n=1)
        problem = f"unknown key {shown(key)}"
        fix = f"did you mean {guess[0]!r}?" if guess else None
        if known:
            fix = (fix + " " if fix else "") + "allowed keys: " + ", ".join(known)
        else:
            fix = fix or "remove the key"
    elif kind == "missing":
        problem = f"required key {shown(str(loc[-1]))} is missing"
        fix = f"add {loc[-1]}: to this block"
    elif kind == "literal_error":
        expected = error["ctx"]["expected"]
        problem = f"{_describe(error.get('input'))} is not allowed here; expected {expected}"
        fix = f"write one of {expected}"
    elif kind in ("string_type", "str_type"):
        problem = f"expected text, got {_describe(error.get('input'))}"
        fix = _FIXES["string_type"]
    elif kind in ("greater_than_equal", "greater_than"):
        limit = error["ctx"].get("ge", error["ctx"].get("gt"))
        problem = f"{_describe(error.get('input'))} is too small; the least allowed is {limit}"
        fix = f"use a value of at least {limit}"
    elif kind in _PROBLEMS:
        problem = f"{_PROBLEMS[kind]}, got {_describe(error.get('input'))}"
    else:
        problem = f"{error['msg']} (got {_describe(error.get('input'))})"
        fix = "see docs/eval-files.md for the shape this field takes"
    path = field_path((prefix, *loc) if prefix else loc)
    return AuthoringError(
        problem,
        where=Where(
            where.file,
            line_at(raw, loc) or where.line,
            where.case_name,
            where.case_index,
            path or None,
        ),
        fix=fix,
    )
