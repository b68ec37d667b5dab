"""JSON Schema checks, with ``jsonschema`` imported only when a schema is met.

Most suites declare no schema, and importing jsonschema costs a tenth of a
second at every pytest start-up.
"""

from __future__ import annotations

from typing import Any


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a valid Draft 2020-12 schema, or ``None``."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    return None


def violations(schema: dict[str, Any], document: Any) -> tuple[int, str | None, str]:
    """How many violations, where the most relevant one is (None: the root), and its message."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    errors = list(Draft202012Validator(schema).iter_errors(document))
    if not errors:
        return 0, None, ""
    first = best_match(errors)
    return len(errors), (first.json_path if first.absolute_path else None), first.message
