"""Turn pydantic's validation errors into authoring errors that say where and how to fix."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import AuthoringError, Where
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
        return f"the number {value}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (null)"
    return f"{value!r}"


def authoring_error_from(
    exc: ValidationError, model: type[BaseModel], raw: object, where: Where, prefix: str = ""
) -> AuthoringError:
    """The first validation problem, located in the file and explained."""
    error = exc.errors(include_url=False)[0]
    loc = tuple(error["loc"])
    # pydantic reports union branches in the loc (e.g. 'list[str]'); drop them.
    loc = tuple(p for p in loc if isinstance(p, int) or ("[" not in p and p[:1].islower()))
    kind = error["type"]
    fix: str | None = None
    if kind == "extra_forbidden":
        key = str(loc[-1])
        known = _model_fields(model, loc[:-1])
        guess = difflib.get_close_matches(key, known, n=1)
        problem = f"unknown key {key!r}"
        fix = f"did you mean {guess[0]!r}?" if guess else None
        if known:
            fix = (fix + " " if fix else "") + "allowed keys: " + ", ".join(known)
    elif kind == "missing":
        problem = f"required key {str(loc[-1])!r} is missing"
    elif kind == "literal_error":
        expected = error["ctx"]["expected"]
        problem = f"{_describe(error.get('input'))} is not allowed here; expected {expected}"
    elif kind in ("string_type", "str_type"):
        problem = f"expected text, got {_describe(error.get('input'))}"
        fix = "quote the value so YAML reads it as text"
    else:
        problem = f"{error['msg']} (got {_describe(error.get('input'))})"
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
