"""What ``convert`` makes of an ``evals.json``: cases, and notes on what no case field says."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ABSENT: Any = object()
"""A note about a key that is missing rather than holding something unusable."""


@dataclass(frozen=True)
class Note:
    """Something the ``evals.json`` said that the converted case cannot say exactly.

    It is written as a comment beside the case, and the case is marked with the
    placeholder so the run refuses the file until the author has read it.
    """

    key: str  # where it was, as a field path of the entry: ``category``, ``assertions[2]``
    value: Any  # the JSON value as found, or ABSENT
    hint: str  # what an author usually does with it


@dataclass(frozen=True)
class ConvertedCase:
    """One case of the YAML file, with where it came from."""

    origin: str  # the entry's place in the evals.json: ``evals[3]``, ``[0]``, ``triggers[1]``
    fields: dict[str, Any]  # the case's keys in writing order; a Todo where a value is missing
    notes: tuple[Note, ...] = ()
    info: tuple[str, ...] = ()  # plain comments that need no decision (the id a name replaced)
    generated: bool = False  # the entry gave no name: one is numbered for it

    @property
    def name(self) -> str:
        name: str = self.fields["name"]
        return name

    @property
    def judged(self) -> bool:
        return "judge" in self.fields


@dataclass(frozen=True)
class Conversion:
    """The whole file: its cases, and what its top level held besides them."""

    cases: tuple[ConvertedCase, ...]
    header_notes: tuple[Note, ...] = ()
    declared_skill: str | None = None  # ``skill_name`` (or ``skill``) as the file gives it

    @property
    def marked(self) -> int:
        """How many cases carry the placeholder the author must resolve."""
        return sum(1 for case in self.cases if case.notes)
