"""A Draft 2020-12 validator whose regex keywords search under a time budget.

jsonschema's ``pattern``, ``patternProperties`` and ``additionalProperties``
search with ``re``, which cannot be stopped: a schema pattern that backtracks
catastrophically on the agent's output would hang the run. This validator
searches with the ``regex`` package instead, all of one validation's searches
sharing one budget; past it, :class:`PatternTimeout` ends the validation.
Everything else is jsonschema's own.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .regex_search import bounded_search

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator


class PatternTimeout(Exception):
    """A schema pattern search ran past the validation's time budget."""

    def __init__(self, pattern: str, budget: float) -> None:
        super().__init__(
            f"the schema's pattern {pattern!r} did not finish within {budget:g} s on the "
            "output; rewrite it without nested repeats such as (a+)+"
        )


# (deadline on the monotonic clock, budget) of the validation in progress, per thread
# or task: jsonschema hands a keyword function no argument of ours.
_BUDGET: contextvars.ContextVar[tuple[float, float]] = contextvars.ContextVar("schema_budget")


@contextlib.contextmanager
def searching_within(seconds: float) -> Iterator[None]:
    """Every pattern search inside shares ``seconds`` in all."""
    token = _BUDGET.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def search(pattern: str, text: str) -> bool:
    """``re.search``'s answer, from the regex package, within what is left of the budget."""
    import regex

    deadline, budget = _BUDGET.get((time.monotonic() + 1.0, 1.0))
    left = deadline - time.monotonic()
    if left <= 0:
        raise PatternTimeout(pattern, budget)
    try:
        return bounded_search(regex.compile(pattern), text, left) is not None
    except TimeoutError:
        raise PatternTimeout(pattern, budget) from None


@functools.cache
def bounded_validator() -> type[Validator]:
    """Draft 2020-12, its three regex keywords searching through :func:`search`."""
    from jsonschema import Draft202012Validator, validators

    stock_additional = Draft202012Validator.VALIDATORS["additionalProperties"]

    def pattern(
        validator: Validator, patrn: str, instance: Any, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        from jsonschema.exceptions import ValidationError

        if validator.is_type(instance, "string") and not search(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(
        validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        # (validator is Any: descend() is missing from jsonschema's Validator protocol.)
        for patrn, subschema in patterns.items():
            for key, value in instance.items():
                if search(patrn, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    def additional_properties(
        validator: Validator, allowed: Any, instance: Any, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        patterns = schema.get("patternProperties")
        if not patterns or not validator.is_type(instance, "object"):
            yield from stock_additional(validator, allowed, instance, schema)
            return
        # jsonschema's own keyword, handed only the keys no pattern matched (found here,
        # under the budget) and the schema without the patterns it would search with re.
        unmatched = {k: v for k, v in instance.items() if not any(search(p, k) for p in patterns)}
        rest = {k: v for k, v in schema.items() if k != "patternProperties"}
        yield from stock_additional(validator, allowed, unmatched, rest)

    extended: type[Validator] = validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        {
            "pattern": pattern,
            "patternProperties": pattern_properties,
            "additionalProperties": additional_properties,
        },
    )
    return extended
