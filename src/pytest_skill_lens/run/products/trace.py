"""What every product trace reader is told beside the trace: how the process ended,
and what the run was. Shared by the Claude Code and Copilot readers."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..scripts import Finished
from .description import delivers_no_skill


@dataclass(frozen=True)
class Ending:
    """How the process ended: its exit code (``None``: the timeout stopped it), whether
    its trace was cut at ``max_output_bytes``, and the end of what it wrote to stderr."""

    exit_code: int | None
    cut: bool = False
    stderr: str = ""
    timeout_seconds: float = 0.0
    max_output_bytes: int = 0

    @classmethod
    def of(cls, finished: Finished, *, timeout_seconds: float, max_output_bytes: int) -> Ending:
        return cls(
            exit_code=finished.exit_code,
            cut=finished.stdout.omitted > 0,
            stderr=finished.stderr.data.decode("utf-8", errors="replace"),
            timeout_seconds=timeout_seconds,
            max_output_bytes=max_output_bytes,
        )


@dataclass(frozen=True)
class Expect:
    """What the run was: the mode, the skill's name (``None`` when the arm has none) and
    the case's declared tool names (their bridge spelling maps back to them); ``model``
    is the one the product was told to use (``""``: its own default, unknown here)."""

    mode: Literal["loaded", "offered"] = "loaded"
    skill: str | None = None
    tools: Sequence[str] = ()
    model: str = ""

    @classmethod
    def of(cls, skill: Skill, case: EvalCase, model: str = "") -> Expect:
        return cls(
            mode=case.mode,
            skill=None if delivers_no_skill(skill) else skill.name,
            tools=[tool.name for tool in case.tools],
            model=model,
        )


def json_events(data: bytes) -> Iterator[dict[str, Any]]:
    """Every line of a trace that is one JSON object.

    Anything else (a warning, a cut line, garbage) is skipped: it never stops the reading.
    """
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # garbage, a cut line, absurd nesting
            continue
        if isinstance(event, dict):
            yield event


def declared_names(prefix: str, declared: Sequence[str]) -> dict[str, str]:
    """Product spelling -> declared name, for the case's tools; exact spelling only.

    A call under any other name (a product's own tool, a near miss in case or
    punctuation) is not in the map and keeps the product's name.
    """
    return {f"{prefix}{name}": name for name in declared}
