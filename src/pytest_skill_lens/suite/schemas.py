"""JSON Schema checks, with ``jsonschema`` imported only when a schema is met.

Most suites declare no schema, and importing jsonschema costs a tenth of a
second at every pytest start-up.

A schema is data from the eval file, checked against output from the agent, so
it is held to two rules jsonschema does not keep by itself:

* a ``$ref`` is resolved only inside the schema the author wrote; nothing is
  ever fetched, from the network or from a file (jsonschema's default fetches
  any remote reference it meets, so every validator here gets a registry whose
  retrieval refuses);
* its regexes (``pattern``, ``patternProperties``) are searched under a time
  budget (:mod:`.schema_bounds`). Two shapes would slip past that budget into
  jsonschema's own ``re`` searches, so they are refused: a ``$schema`` below the
  root (it switches that part to a stock validator) and ``unevaluatedProperties``
  beside ``patternProperties`` (jsonschema matches those itself).

:func:`unsafe_part` names the first part breaking a rule; the loader turns it
into an authoring error, and :func:`violations` refuses to validate with one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .quoting import shown

if TYPE_CHECKING:
    from referencing import Registry, Resource
    from referencing.jsonschema import Schema

Reason = Literal["outside", "nowhere", "dialect", "unbounded"]


class NotEvaluated(Exception):
    """Validation stopped before a verdict; the message says why."""


@dataclass(frozen=True)
class UnsafePart:
    """A part of a schema that cannot be checked within the rules above."""

    path: str  # the keyword's field path in the schema, e.g. ``properties.order.$ref``
    reason: Reason  # outside: needs fetching; nowhere: points at nothing; see describe()
    value: str  # the reference, the $schema URI, or the keyword

    def describe(self) -> str:
        if self.reason == "outside":
            return (
                f"$ref {shown(self.value)} points outside the schema; references are resolved "
                "only inside it and never fetched, from the network or a file"
            )
        if self.reason == "nowhere":
            return f"$ref {shown(self.value)} points at nothing in the schema"
        if self.reason == "dialect":
            return (
                f"$schema {shown(self.value)} below the root of the schema would validate that "
                "part outside the time bound on its patterns"
            )
        return (
            "unevaluatedProperties beside patternProperties would match those patterns "
            "outside the time bound"
        )

    @property
    def fix(self) -> str:
        if self.reason == "outside":
            return "inline it under $defs and refer to it as '#/$defs/<name>'"
        if self.reason == "nowhere":
            return "point it at a part of this schema, e.g. '#/$defs/<name>' under $defs"
        if self.reason == "dialect":
            return "drop the inner $schema; the whole schema is read as Draft 2020-12"
        return "use additionalProperties instead, or list the keys under properties"


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a valid Draft 2020-12 schema, or ``None``."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    return None


def unsafe_part(schema: Any) -> UnsafePart | None:
    """The first part of ``schema`` that breaks the rules above, or ``None``.

    The walk follows the schema keywords (``referencing`` knows which ones hold
    subschemas), so a ``$ref``-shaped value under ``const`` or ``enum`` is data;
    and it walks every reference's target too, as the validator would. Call it on
    a schema :func:`schema_problem` accepted.
    """
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    paths = {id(value): path for value, path in _containers(schema)}

    def at(contents: Any, keyword: str) -> str:
        where = paths.get(id(contents), "")
        return f"{where}.{keyword}" if where else keyword

    keywords: dict[str, str] = {}
    asked: list[str] = []
    root = DRAFT202012.create_resource(schema)
    seen: set[int] = set()
    pending = [(root, _refusing_registry(asked).resolver_with_root(root))]
    while pending:
        resource, resolver = pending.pop()
        contents = resource.contents
        if not isinstance(contents, dict) or id(contents) in seen:
            continue
        seen.add(id(contents))
        if "$schema" in contents and contents is not schema:
            return UnsafePart(at(contents, "$schema"), "dialect", str(contents["$schema"]))
        for keyword in ("patternProperties", "unevaluatedProperties"):
            if keyword in contents:
                keywords.setdefault(keyword, at(contents, keyword))
        for keyword in ("$ref", "$dynamicRef"):
            ref = contents.get(keyword)
            if not isinstance(ref, str):
                continue
            asked.clear()
            try:
                resolved = resolver.lookup(ref)
            except Unresolvable:
                return UnsafePart(at(contents, keyword), "outside" if asked else "nowhere", ref)
            pending.append((DRAFT202012.create_resource(resolved.contents), resolved.resolver))
        for sub in resource.subresources():
            pending.append((sub, resolver.in_subresource(sub)))
    if len(keywords) == 2:
        where = keywords["unevaluatedProperties"]
        return UnsafePart(where, "unbounded", "unevaluatedProperties")
    return None


def violations(
    schema: dict[str, Any], document: Any, *, timeout: float = 1.0
) -> tuple[int, str | None, str]:
    """How many violations, where the most relevant one is (None: the root), and its message.

    Raises :class:`NotEvaluated` for a schema with an :func:`unsafe_part`, or once its
    pattern searches have taken ``timeout`` seconds in all.
    """
    from jsonschema.exceptions import best_match
    from referencing.exceptions import Unresolvable

    from .schema_bounds import PatternTimeout, bounded_validator, searching_within

    part = unsafe_part(schema)
    if part is not None:
        raise NotEvaluated(f"the schema's {part.describe()}")
    # The root's own $schema would only pick a stock validator again on a $ref to '#'.
    root = {key: value for key, value in schema.items() if key != "$schema"}
    validator = bounded_validator()(root, registry=_refusing_registry([]))
    try:
        with searching_within(timeout):
            errors = list(validator.iter_errors(document))
    except PatternTimeout as exc:
        raise NotEvaluated(str(exc)) from None
    except Unresolvable as exc:  # unsafe_part found every reference; kept as a backstop
        ref = getattr(exc, "ref", exc)
        raise NotEvaluated(f"the schema's $ref {ref!r} did not resolve") from None
    if not errors:
        return 0, None, ""
    first = best_match(errors)
    return len(errors), (first.json_path if first.absolute_path else None), first.message


def _refusing_registry(asked: list[str]) -> Registry[Schema]:
    """A registry that never retrieves: each URI it is asked for is noted, then refused."""
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str) -> Resource[Schema]:
        asked.append(uri)
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs fields: untyped init

    return Registry(retrieve=refuse)  # type: ignore[call-arg]


def _containers(schema: Any) -> Iterator[tuple[Any, str]]:
    """Every mapping and list in the schema with its field path, each once (first place met)."""
    seen: set[int] = set()
    pending: list[tuple[Any, str]] = [(schema, "")]
    while pending:
        value, path = pending.pop()
        if not isinstance(value, dict | list) or id(value) in seen:
            continue  # a shared part is walked once: a schema built in code may repeat one
        seen.add(id(value))
        yield value, path
        if isinstance(value, dict):
            for key, item in value.items():
                pending.append((item, f"{path}.{key}" if path else str(key)))
        else:
            for i, item in enumerate(value):
                pending.append((item, f"{path}[{i}]"))
