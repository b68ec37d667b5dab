"""The structured verdict a judge must return, and how it becomes :class:`JudgeCheck`s.

Validation is strict (``passed`` is a JSON boolean, never ``"yes"``; no key
beyond ``checks`` and ``id``/``passed``/``evidence``): a verdict that does not
fit is unreadable, which is errored, never a low score. ``evidence`` may be
missing or null: that is not unreadable, it is a pass without evidence, which
the judge evaluator records as a failure.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..judge import JudgeCheck

# The tool (function) name a framework judge asks the model to call with its verdict.
OUTPUT_NAME = "JudgeOutput"
OUTPUT_DESCRIPTION = "Your verdict: exactly one entry per rubric check, in rubric order."
INVALID = "JudgeOutputInvalid"


class JudgeOutputCheck(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(description="The rubric check's id, as given: r1, r2, ...")
    passed: bool = Field(description="Whether the check holds")
    evidence: str | None = Field(
        default=None,
        description="The exact words of the response or an artifact that decide the check",
    )


class JudgeOutput(BaseModel):
    """Your verdict: exactly one entry per rubric check, in rubric order."""

    model_config = ConfigDict(extra="forbid", strict=True, title=OUTPUT_NAME)

    checks: list[JudgeOutputCheck]


def to_checks(output: JudgeOutput) -> list[JudgeCheck]:
    return [JudgeCheck(c.id, c.passed, c.evidence or "") for c in output.checks]


def read_output(data: Any) -> tuple[list[JudgeCheck] | None, str | None]:
    """``(checks, None)`` from tool-call arguments (a dict or JSON text), or ``(None, why)``."""
    try:
        if isinstance(data, str | bytes):
            output = JudgeOutput.model_validate_json(data)
        else:
            output = JudgeOutput.model_validate(data)
    except ValidationError as exc:
        return None, invalid(exc)
    return to_checks(output), None


def invalid(problem: ValidationError | str) -> str:
    """The error of an unreadable verdict, naming the mismatch."""
    if isinstance(problem, ValidationError):
        shown = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'verdict'}: {e['msg']}"
            for e in problem.errors(include_url=False)[:5]
        )
        problem = f"the verdict does not fit {OUTPUT_SHAPE_NAME}: {shown}"
    return f"{INVALID}: {problem}"


OUTPUT_SHAPE_NAME = '{"checks": [{"id", "passed", "evidence"}]}'
