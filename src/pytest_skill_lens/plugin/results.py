"""What the session measured: outcomes while items run, the gate and record at its end."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # kept out of the import path of a run without --skill-lens
    from ..gate.record import GateResult, RunRecord
    from ..perform.outcome import Outcome


@dataclass
class SessionResults:
    outcomes: dict[str, Outcome] = field(default_factory=dict)  # nodeid -> outcome
    other_failures: int = 0  # failures of ordinary tests in a mixed run
    # Items the spend ledger refused: nodeid -> why (their skip report says it too).
    not_run_reasons: dict[str, str] = field(default_factory=dict)
    # Items auto:N did not run, their skill's questions decided: nodeid -> why.
    stopped_early: dict[str, str] = field(default_factory=dict)
    # Sandboxes a skill_lens_sandbox fixture override put scripts under (labels);
    # an xdist worker sends its own to the controller.
    sandbox_overrides: set[str] = field(default_factory=set)
    # What may end the session without a gate (.aborted): the first line of each
    # collection error; an interruption, pytest.exit or an internal error, and its code.
    collection_error_lines: list[str] = field(default_factory=list)
    stop: str | None = None
    stop_code: int | None = None
    watched: bool = False  # configured: an end without a record rewrites the reports
    # Filled at session end.
    gate: GateResult | None = None
    record: RunRecord | None = None
    written_reports: list[str] = field(default_factory=list)  # a line per report file written
    write_errors: list[str] = field(default_factory=list)
