"""What every product trace reader is told beside the trace: how the process ended,
and what the run was. Shared by every product's trace reader."""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ...suite.model import EvalCase
from ...suite.skill import Skill
from ..process.start import Finished
from .description import delivers_no_skill

STDERR_TAIL = 500  # characters of stderr an error message quotes
LOAD_SAID = 500  # characters of a product's words about a skill it failed to load


@dataclass(frozen=True)
class Ending:
    """How the process ended: its exit code (``None``: the timeout stopped it), whether
    its trace was cut at ``max_output_bytes``, and the end of what it wrote to stderr."""

    exit_code: int | None
    cut: bool = False
    stderr: str = ""
    timeout_seconds: float = 0.0
    max_output_bytes: int = 0

    def stderr_said(self) -> str:
        """The end of what the product wrote to stderr, as an error message quotes it."""
        tail = self.stderr.strip()[-STDERR_TAIL:]
        return f"; stderr ends: {tail}" if tail else "; stderr was empty"

    def stopped(self, product: str) -> str | None:
        """Why a product's run is errored however its trace reads: its trace was cut at
        ``max_output_bytes``, or the timeout stopped it; ``None`` when it ran to its end."""
        key = f"[runners.{product}]"
        if self.cut:
            return (
                f"the {product} trace was cut at max_output_bytes ({self.max_output_bytes:,} "
                f"bytes); raise max_output_bytes in {key} if the run is expected to write more"
            )
        if self.exit_code is None:
            return (
                f"{product} timed out after {self.timeout_seconds:g} s "
                f"(timeout_seconds in {key}, or the case timeout)"
            )
        return None

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
    is the one the product was told to use (:meth:`.description.Preset.told_model`; ``""``:
    its own default, unknown here)."""

    mode: Literal["loaded", "offered"] = "loaded"
    skill: str | None = None
    tools: Sequence[str] = ()
    model: str = ""
    # The other skills delivered beside it (``neighbours:``), by name.
    neighbours: Sequence[str] = ()

    @classmethod
    def of(cls, skill: Skill, case: EvalCase, model: str = "") -> Expect:
        return cls(
            mode=case.mode,
            skill=None if delivers_no_skill(skill) else skill.name,
            tools=[tool.name for tool in case.tools],
            model=model,
            neighbours=() if delivers_no_skill(skill) else [n.name for n in skill.neighbours],
        )


def triggered_skills(expect: Expect, asked: Iterable[str | None]) -> list[str] | None:
    """``mode: offered``: the delivered skills (the case's and its neighbours') among the
    names the model ``asked`` for, each once in the order asked; ``None`` for a loaded case.
    A name no skill-lens delivered (one of the product's own skills) is not counted."""
    if expect.mode != "offered":
        return None
    offered = {*expect.neighbours} | ({expect.skill} if expect.skill is not None else set())
    return list(dict.fromkeys(name for name in asked if name is not None and name in offered))


def load_failed(product: str, skill: str, how: str) -> str:
    """Why a run is errored when ``product`` listed or was given the case's ``skill`` and
    failed to load it; ``how`` says how it showed that, in its own words (:func:`said`).
    Such a run says nothing about the skill: never a verdict on it."""
    return f"{product} failed to load the skill {skill!r}: {how}"


def loaded_by_call(
    expect: Expect, loaded: Container[str], why_not: Callable[[str], str]
) -> tuple[bool | None, str | None]:
    """Whether the case's skill reached the model in a product that loads a skill only when
    the model calls for it (``loaded``: the skills such a call loaded), and why not:
    ``None`` for an arm with no skill; an offered case that left it alone is the measured
    negative (``skill_triggered`` says it), with no note; a loaded case gets
    ``why_not(skill)``."""
    skill = expect.skill
    if skill is None:
        return None, None
    if skill in loaded:
        return True, None
    if expect.mode == "offered":
        return False, None
    return False, why_not(skill)


def said(words: str) -> str:
    """A product's own words as an error quotes them: on one line, bounded, quoted."""
    line = " ".join(words.split())
    if not line:
        return "nothing"
    return repr(line if len(line) <= LOAD_SAID else f"{line[:LOAD_SAID]}…")


def call_arguments(value: Any) -> dict[str, Any]:
    """A tool call's arguments as the trace gave them: an object with text keys as it is,
    anything else kept as text under ``_raw`` (so a check can still read it)."""
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return value
    return {"_raw": value if isinstance(value, str) else json.dumps(value)}


def text_of(body: Mapping[str, Any] | None, key: str) -> str:
    """``body[key]`` when it is text, else ``""`` (a trace's fields are never trusted)."""
    value = body.get(key) if body is not None else None
    return value if isinstance(value, str) else ""


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
