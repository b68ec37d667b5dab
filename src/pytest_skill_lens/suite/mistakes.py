"""Gathering a file's independent mistakes, so one run reports them all.

What counts as independent is written down in docs/authoring-errors.md ("Every
mistake in one run"); in short: a mistake that stops reading the file stops there,
each case is checked on its own, and within a case each block is. :class:`Mistakes`
keeps one message per place: a mistake at a field that already has one, or below
it, is the same mistake seen again (an obscure schema error under a ``returns:``
list already explained), so it is dropped.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from .errors import AuthoringError


def _under(field: str, other: str) -> bool:
    """Whether ``field`` is ``other`` or a part of it (``tools[0].returns[1]`` of ``tools[0]``)."""
    return field == other or field.startswith((other + ".", other + "["))


class Mistakes:
    """The mistakes found so far, in the order found."""

    def __init__(self) -> None:
        self.found: list[AuthoringError] = []
        self._messages: set[str] = set()
        # The fields with a mistake, per (file, case): a case has a handful at most.
        self._fields: dict[tuple[Path | None, int | None], list[str]] = {}

    def add(self, error: AuthoringError) -> None:
        for one in error.each:
            where = one.where
            fields = self._fields.setdefault((where.file, where.case_index), [])
            if one.message in self._messages or (
                where.field is not None and any(_under(where.field, f) for f in fields)
            ):
                continue
            self._messages.add(one.message)
            if where.field is not None:
                fields.append(where.field)
            self.found.append(one)

    def __bool__(self) -> bool:
        return bool(self.found)


class gather:  # lower case: used as a function, `with gather(errors):`
    """A block whose mistake, if it raises one, is appended to ``errors``.

    A class, not a generator: it wraps every rule of every case, so it is kept to two
    plain method calls."""

    __slots__ = ("_errors",)

    def __init__(self, errors: list[AuthoringError]) -> None:
        self._errors = errors

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if isinstance(exc, AuthoringError):
            self._errors.extend(exc.each)
            return True
        return False
