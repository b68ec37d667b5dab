"""Is what a plugin handed back shaped as its type promises? Every bad field, named.

A runner, a judge or an evaluator is code the plugin does not own; a result whose
fields hold the wrong types or impossible figures must error its own case, never
crash the run or be read as a measurement. Each checked type gets a :class:`Shape`
(a strict pydantic model read off the object's attributes), and
:func:`problems_of` lists what does not fit, one line per field with a bounded
picture of the bad value.
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from .suite.validation import field_path

# The largest integer every JSON reader keeps exactly: a count past it measures nothing.
MAX_COUNT = 2**53
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
# Cost and latency: a negative, NaN or infinite figure is impossible, not a measurement.
Figure = Annotated[float, Field(ge=0, allow_inf_nan=False)]

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4
_REPR.maxlevel = 3


class Shape(BaseModel):
    """The fields one type must have. Strict: ``"12"`` is no int, ``True`` no count."""

    model_config = ConfigDict(strict=True, from_attributes=True, frozen=True)


def instance_of(cls: type) -> BeforeValidator:
    """A field that must hold an instance of ``cls`` (its own fields are then checked)."""

    def check(value: object) -> object:
        if not isinstance(value, cls):
            raise PydanticCustomError(
                "instance_of",
                "Input should be a {expected}, not {got}",
                {"expected": cls.__name__, "got": type(value).__name__},
            )
        return value

    return BeforeValidator(check)


def tuple_as_list(value: object) -> object:
    """A tuple where a sequence is declared reads as the list it is (not for lists of calls)."""
    return list(value) if isinstance(value, tuple) else value


AS_LIST = BeforeValidator(tuple_as_list)


def problems_of(shape: type[Shape], value: object) -> list[str]:
    """``field: what is wrong (got <value>)`` for every field of ``value`` that does not fit."""
    try:
        shape.model_validate(value)
    except ValidationError as exc:
        return [
            f"{_path(error['loc'])}: {error['msg']} (got {bounded_repr(error.get('input'))})"
            for error in exc.errors(include_url=False)
        ]
    return []


def summary(found: Sequence[str], shown: int = 3) -> str:
    """The first ``shown`` problems, and how many more there are."""
    text = "; ".join(found[:shown])
    if len(found) > shown:
        text += f"; and {len(found) - shown} more"
    return text


def bounded_repr(value: object) -> str:
    """A short picture of any value: long text is cut, and a ``repr`` that raises is survived."""
    return _REPR.repr(value)


def _path(loc: Sequence[int | str]) -> str:
    # pydantic marks a bad dict key with a "[key]" step after the key itself.
    return field_path([part for part in loc if part != "[key]"])
