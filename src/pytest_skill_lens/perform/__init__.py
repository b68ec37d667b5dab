"""The pipeline of one case: run, judge, score into an Outcome; pure and typed.

The plugin's items, and any future concurrency or replay, call :func:`perform`;
nothing here imports pytest, gate/, report/ or plugin/.
"""

from __future__ import annotations

from .outcome import CaseIdentity, Outcome, errored_outcome
from .pipeline import perform

__all__ = ["CaseIdentity", "Outcome", "errored_outcome", "perform"]
