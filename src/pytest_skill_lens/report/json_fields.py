"""A JSON report's text parsed strictly, and its objects read field by field.

Python's ``json`` reads ``NaN``, ``Infinity`` and ``1e999`` (an infinity) as numbers,
which no strict JSON reader accepts and no figure can be: :func:`parse_json` refuses
them, naming the field that holds one. :class:`Fields` reads one object's values, each
of its kind, a number through the same strict types a run's own results are checked
with (``wellformed.Count`` and ``Figure``, and the ranges ``settings`` gives the gate's
thresholds): a count that is a bool, a negative cost, a rate above 1 is a
:class:`ReportError` naming the field, never a figure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

from ..run.models.price_source import problem as source_problem
from ..wellformed import MAX_COUNT, Count, Figure

RERUN = "re-run the shard with this version of pytest-skill-lens and --skill-lens-json"


class ReportError(ValueError):
    """The report cannot be used: what is wrong, and the fix."""

    def __init__(self, message: str, fix: str = RERUN) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


class Kind:
    """A kind of number: its strict type and how an error names it."""

    def __init__(self, shape: Any, said: str) -> None:
        self.adapter: TypeAdapter[Any] = TypeAdapter(shape, config={"strict": True})
        self.said = said

    def holds(self, value: object) -> bool:
        if isinstance(value, bool):  # a flag is no number, even where Python says it is
            return False
        try:
            self.adapter.validate_python(value)
        except (ValidationError, OverflowError):
            return False
        return True


COUNT = Kind(Count, "a whole number of 0 or more")
POSITIVE_COUNT = Kind(Annotated[int, Field(ge=1, le=MAX_COUNT)], "a whole number of 1 or more")
WHOLE = Kind(Annotated[int, Field(ge=-MAX_COUNT, le=MAX_COUNT)], "a whole number")
FIGURE = Kind(Figure, "a finite number of 0 or more")
POSITIVE = Kind(Annotated[float, Field(gt=0, allow_inf_nan=False)], "a finite number above 0")
RATE = Kind(Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)], "a number from 0 to 1")
SIGNED_RATE = Kind(
    Annotated[float, Field(ge=-1, le=1, allow_inf_nan=False)], "a number from -1 to 1"
)
LEVEL = Kind(Annotated[float, Field(gt=0, lt=1)], "a number between 0 and 1 (not either)")
FINITE = Kind(Annotated[float, Field(allow_inf_nan=False)], "a finite number")


class _Impossible:
    """A NaN, an infinity or a number past a float's range, kept to name where it was."""

    def __init__(self, text: str) -> None:
        self.text = text


def parse_json(text: str) -> Any:
    """The JSON value of ``text``; a :class:`ReportError` for a NaN, an infinity or a
    number no float holds, wherever it is, naming its field."""
    found: list[str] = []

    def constant(name: str) -> _Impossible:
        found.append(name)
        return _Impossible(name)

    def number(digits: str) -> float | _Impossible:
        value = float(digits)
        if math.isfinite(value):
            return value
        found.append(digits)
        return _Impossible(digits)

    try:
        data = json.loads(text, parse_constant=constant, parse_float=number)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested beyond reason
        raise ReportError(f"not JSON: {exc}", "name each shard's --skill-lens-json report") from exc
    if found:
        where = next(_impossible(data, ""), "")
        raise ReportError(
            f"{where or 'the report'}: {shown_text(found[0])} is no number a report can hold "
            "(strict JSON has no NaN or infinity, and every figure is finite)"
        )
    return data


def _impossible(value: object, where: str) -> Iterator[str]:
    """The path of each impossible number in ``value``, depth first."""
    stack: list[tuple[object, str]] = [(value, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, _Impossible):
            yield at
        elif isinstance(item, dict):
            stack.extend((v, f"{at}.{k}" if at else str(k)) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((v, f"{at}[{i}]") for i, v in reversed(list(enumerate(item))))


class Fields:
    """One JSON object's values, each checked for its kind; ``where`` names it in errors."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise ReportError(f"{where}: expected an object, got {shown(data)}")
        self.data: dict[str, Any] = data
        self.where = where

    def at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def child(self, key: str) -> Fields:
        return Fields(self.mapping(key), self.at(key))

    def optional_child(self, key: str) -> Fields | None:
        return None if self._get(key) is None else self.child(key)

    def _get(self, key: str) -> Any:
        if key not in self.data:
            raise ReportError(f"{self.at(key)}: missing")
        return self.data[key]

    def wrong(self, key: str, expected: str) -> ReportError:
        return ReportError(f"{self.at(key)}: expected {expected}, got {shown(self.data[key])}")

    def text(self, key: str) -> str:
        value = self._get(key)
        if not isinstance(value, str):
            raise self.wrong(key, "text")
        return value

    def optional_text(self, key: str) -> str | None:
        return None if self._get(key) is None else self.text(key)

    def flag(self, key: str) -> bool:
        value = self._get(key)
        if not isinstance(value, bool):
            raise self.wrong(key, "true or false")
        return value

    def optional_flag(self, key: str) -> bool | None:
        return None if self._get(key) is None else self.flag(key)

    def number(self, key: str, kind: Kind) -> Any:
        """The value at ``key`` when it is a number of ``kind`` (an int or a float)."""
        value = self._get(key)
        if not kind.holds(value):
            raise self.wrong(key, kind.said)
        return value

    def optional_number(self, key: str, kind: Kind) -> Any:
        return None if self._get(key) is None else self.number(key, kind)

    def count(self, key: str, kind: Kind = COUNT) -> int:
        value: int = self.number(key, kind)
        return value

    def figure(self, key: str, kind: Kind = FIGURE) -> float:
        return float(self.number(key, kind))

    def optional_figure(self, key: str, kind: Kind = FIGURE) -> float | None:
        return None if self._get(key) is None else self.figure(key, kind)

    def items(self, key: str) -> list[Any]:
        value = self._get(key)
        if not isinstance(value, list):
            raise self.wrong(key, "a list")
        return value

    def names(self, key: str) -> list[str]:
        values = self.items(key)
        if not all(isinstance(v, str) for v in values):
            raise self.wrong(key, "a list of names")
        return list(values)

    def objects(self, key: str) -> list[Fields]:
        return [Fields(v, f"{self.at(key)}[{i}]") for i, v in enumerate(self.items(key))]

    def mapping(self, key: str) -> dict[str, Any]:
        value = self._get(key)
        if not isinstance(value, dict):
            raise self.wrong(key, "an object")
        return value

    def optional_mapping(self, key: str) -> dict[str, Any] | None:
        return None if self._get(key) is None else self.mapping(key)

    def price_source(self, key: str = "price_source") -> str | None:
        """Where a cost came from, in a known form (run/models/price_source.py); null: none.

        Absent from a report written before the field existed, which reads as null.
        """
        if self.data.get(key) is None:
            return None
        return known_source(self.text(key), self.at(key))

    def word(self, key: str, words: tuple[str, ...]) -> str:
        value = self.text(key)
        if value not in words:
            raise self.wrong(key, " or ".join(repr(w) for w in words))
        return value


def known_source(value: str, where: str) -> str:
    """``value`` when it is a price source of a known form; else a :class:`ReportError`."""
    why = source_problem(value)
    if why is not None:
        raise ReportError(f"{where}: {why}, got {shown(value)}")
    return value


def shown(value: object) -> str:
    """A value as an error shows it: its JSON, cut short (a report can hold anything)."""
    return shown_text(json.dumps(value, ensure_ascii=False, default=str))


def shown_text(text: str) -> str:
    return text if len(text) <= 60 else text[:59] + "…"


def check_interval(interval: Fields | None, bound: Kind = SIGNED_RATE) -> None:
    """An interval as :func:`.delta_json.interval_dict` writes it (``null`` allowed): its
    estimate and ends within ``bound`` (a rate, or a signed difference of rates), its
    level, method and count."""
    if interval is None:
        return
    for key in ("estimate", "low", "high"):
        interval.figure(key, bound)
    interval.figure("level", LEVEL)
    interval.text("method")
    interval.count("n", COUNT)
