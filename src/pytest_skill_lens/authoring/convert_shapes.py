"""The layouts ``evals.json`` files come in, read into one list of converted cases.

* the guide's ``{"skill_name": ..., "evals": [...]}``, with any extra keys;
* ``{"skill": ..., "cases": [...]}``;
* a bare JSON array of evals;
* trigger sets: entries carrying ``should_trigger``, wherever they sit, or a block
  ``{"should_trigger": [...], "should_not_trigger": [...]}`` of prompts under any key.

A top-level key that is none of these is kept as a note in the file's header.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from .convert_case import GENERIC_HINT, convert_entry, marker, with_tags
from .convert_model import ABSENT, Conversion, ConvertedCase, Note
from .json_input import InputError

LIST_KEYS = ("evals", "cases")
SKILL_KEYS = ("skill_name", "skill")
_TRIGGER_LISTS = {"should_trigger": True, "should_not_trigger": False}
_LAYOUTS = (
    '{"evals": [...]}, {"cases": [...]}, a JSON array of evals, or a trigger set '
    '({"should_trigger": [...], "should_not_trigger": [...]})'
)


def convert_document(value: Any, source: str, skill_dir: Path | None) -> Conversion:
    """Every case ``value`` (the parsed JSON) holds; :class:`InputError` when it holds none."""
    header: list[Note] = []
    declared: str | None = None
    blocks: list[tuple[str, Any, bool | None]] = []  # (origin, entry, implied should_trigger)
    if isinstance(value, list):
        blocks += [(f"[{i}]", entry, None) for i, entry in enumerate(value)]
    elif _is_trigger_block(value):  # the whole file is one trigger set
        blocks += _trigger_entries("", value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in SKILL_KEYS and isinstance(item, str) and declared is None:
                declared = item
            elif key in LIST_KEYS and isinstance(item, list):
                blocks += [(f"{key}[{i}]", entry, None) for i, entry in enumerate(item)]
            elif _is_trigger_block(item):
                blocks += _trigger_entries(f"{key}.", item)
            elif _is_trigger_list(item):
                blocks += [(f"{key}[{i}]", entry, None) for i, entry in enumerate(item)]
            else:
                header.append(Note(key, item, GENERIC_HINT))
    else:
        raise InputError(f"{source} holds no evals", f"give one of: {_LAYOUTS}")
    if not blocks:
        raise InputError(f"{source} holds no evals to convert", f"give one of: {_LAYOUTS}")
    cases = _named(
        [_convert(origin, entry, implied, skill_dir) for origin, entry, implied in blocks]
    )
    if header:
        first = cases[0]
        note = Note("(the file's top level)", ABSENT, "resolve the notes in the file's header")
        cases[0] = replace(first, fields=_marked(first), notes=(*first.notes, note))
    return Conversion(tuple(cases), tuple(header), declared)


def _trigger_entries(prefix: str, block: dict[str, Any]) -> list[tuple[str, Any, bool | None]]:
    return [
        (f"{prefix}{list_key}[{i}]", entry, implied)
        for list_key, implied in _TRIGGER_LISTS.items()
        for i, entry in enumerate(block.get(list_key, []))
    ]


def _convert(
    origin: str, entry: Any, implied: bool | None, skill_dir: Path | None
) -> ConvertedCase:
    fallback = "eval"
    if implied is not None or (
        isinstance(entry, dict) and isinstance(entry.get("should_trigger"), bool)
    ):
        wanted = implied if implied is not None else entry.get("should_trigger")
        fallback = "should-trigger" if wanted else "should-not-trigger"
    return convert_entry(
        origin, entry, trigger=implied, fallback_name=fallback, skill_dir=skill_dir
    )


def _named(cases: list[ConvertedCase]) -> list[ConvertedCase]:
    """Cases whose generated names are numbered (``eval-1``, ``should-trigger-2``), never
    repeating a name the file gives (names are compared ignoring letter case)."""
    given = {case.name.casefold() for case in cases if not case.generated}
    counters: dict[str, int] = {}
    named: list[ConvertedCase] = []
    for case in cases:
        if case.generated:
            stem = case.name
            while True:
                counters[stem] = counters.get(stem, 0) + 1
                candidate = f"{stem}-{counters[stem]}"
                if candidate.casefold() not in given:
                    break
            given.add(candidate.casefold())
            case = replace(case, fields={**case.fields, "name": candidate})
        named.append(case)
    return named


def _marked(case: ConvertedCase) -> dict[str, Any]:
    tags = list(case.fields.get("tags", []))
    if not case.notes:
        tags.append(marker())
    fields = {key: value for key, value in case.fields.items() if key != "tags"}
    return with_tags(fields, tags)


def _is_trigger_block(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and bool(value)
        and set(value) <= set(_TRIGGER_LISTS)
        and all(isinstance(item, list) for item in value.values())
    )


def _is_trigger_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(entry, dict) and "should_trigger" in entry for entry in value)
    )
