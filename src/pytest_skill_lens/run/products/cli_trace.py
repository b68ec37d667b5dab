"""``cli``'s trace is its stdout: the output, and how the command ended.

It reports no tool calls, skill load, tokens or cost: every run that started, failed
or not, carries a note for the last two, so a budget on them fails "not evaluated".
"""

from __future__ import annotations

from ..result import RunResult
from .cli import KEY, NAME
from .trace import Ending, Expect

COST_NOTE = f"the {NAME} runner reports no cost: what the command spent is not measured"
USAGE_NOTE = f"the {NAME} runner reports no token usage: the command's output is plain text"


def read_trace(trace: bytes, left: bytes | None, ending: Ending, expect: Expect) -> RunResult:
    """The run the command's stdout and end describe."""
    # The command ran: however it ended, its spend is unknown, never zero.
    result = RunResult(cost_note=COST_NOTE, usage_note=USAGE_NOTE)
    if ending.exit_code is None:
        result.error = (
            f"{NAME} timed out after {ending.timeout_seconds:g} s "
            f"(timeout_seconds in {KEY}, or the case timeout)"
        )
    elif ending.cut:
        result.error = (
            f"the {NAME} output was cut at max_output_bytes "
            f"({ending.max_output_bytes:,} bytes); raise max_output_bytes in {KEY} "
            "if the command is expected to write more"
        )
    elif ending.exit_code != 0:
        result.error = f"{NAME} exited with code {ending.exit_code}{ending.stderr_said()}"
    else:
        result.output = trace.decode("utf-8", errors="replace")
    return result
