"""The words for how a case ended and which arm ran it.

Top level, next to settings.py, because both are shared from score/ (which
decides a status) up to gate/ and plugin/ (which read arms), and neither
belongs to any one layer.
"""

from __future__ import annotations

from typing import Literal

Status = Literal["passed", "failed", "errored"]
Arm = Literal["candidate", "baseline"]


def case_label(skill: str, case: str, runner: str, *more: str) -> str:
    """How every report names one run of a case: ``<skill> :: <case> (<runner>[, more])``,
    ``more`` being ``baseline`` or ``run 2/3``."""
    return f"{skill} :: {case} ({', '.join((runner, *more))})"


def names_in_label(label: str) -> tuple[str, str, str] | None:
    """The skill, case and runner a :func:`case_label` names, read back (a name holding
    a separator may read back otherwise: compare before relying on it)."""
    skill, sep, rest = label.partition(" :: ")
    case, paren, detail = rest.rpartition(" (")
    if not (sep and paren and detail.endswith(")")):
        return None
    return skill, case, detail[:-1].split(", ")[0]
