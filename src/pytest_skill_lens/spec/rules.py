"""Authoring rules that span several fields of one case.

Each rule raises :class:`AuthoringError` naming the field and the fix. The
loader runs them on every case as it loads, before anything is spent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .errors import AuthoringError, Where
from .model import EvalCase

PLACEHOLDER = "TODO(skill-lens)"


def find_placeholder(value: Any, path: str = "") -> str | None:
    """The field path of the first ``TODO(skill-lens)`` in keys or values, if any."""
    for field, text in _walk_text(value, path, set()):
        if PLACEHOLDER in text:
            return field or "(top level)"
    return None


def _walk_text(value: Any, path: str, seen: set[int]) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        if id(value) in seen:
            return
        seen.add(id(value))
        for key, item in value.items():
            sub = f"{path}.{key}" if path else str(key)
            yield sub, str(key)
            yield from _walk_text(item, sub, seen)
    elif isinstance(value, list):
        if id(value) in seen:
            return
        seen.add(id(value))
        for i, item in enumerate(value):
            yield from _walk_text(item, f"{path}[{i}]", seen)


def check_placeholder(raw: Any, where: Where) -> None:
    field = find_placeholder(raw)
    if field is not None:
        raise AuthoringError(
            f"still holds the placeholder {PLACEHOLDER}",
            where=Where(where.file, where.line, where.case_name, where.case_index, field),
            fix="replace it with the real value; an unfilled scaffold would check nothing",
        )


def check_case(case: EvalCase, where: Where) -> None:
    """Rules on one case that need more than one field."""

    def fail(problem: str, field: str, fix: str | None = None) -> AuthoringError:
        return AuthoringError(
            problem,
            where=Where(where.file, where.line, case.name, where.case_index, field),
            fix=fix,
        )

    if not case.name.strip():
        raise fail("the case name is blank", "name", "give the case a short descriptive name")
    if case.task is not None and case.sessions is not None:
        raise fail(
            "task and sessions are exclusive",
            "sessions",
            "keep task for one prompt, or sessions for several prompts in one workspace",
        )
    if case.task is None and case.sessions is None:
        raise fail("the case has neither task nor sessions", "task", "add task: <the prompt>")
    if case.task is not None and not case.task.strip():
        raise fail("the task is blank", "task", "write the prompt handed to the agent")
    if case.sessions is not None:
        if len(case.sessions) < 2:
            raise fail(
                "sessions needs at least two entries",
                "sessions",
                "one session is task: spelled longer; use task:",
            )
        for i, text in enumerate(case.sessions):
            if not text.strip():
                raise fail("a session is blank", f"sessions[{i}]", "write that session's prompt")
        if case.workspace is None:
            raise fail(
                "sessions needs a workspace: block",
                "sessions",
                "add workspace: {} - the workspace is the only thing that carries over",
            )
