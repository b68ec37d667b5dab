"""A session that ends without a gate still rewrites its report files, saying why.

An authoring error, a refused flag or config value, Ctrl-C, ``pytest.exit``, an
internal error or ``--collect-only`` ends a session before any gate is computed.
The JSON and Markdown reports (and a JUnit file pytest could not write) are then
rewritten as "aborted" with the reason and ``gate.passed`` false, so a CI step that
reads them after a broken run never reads the previous run's green.

What may end a session so is noted in its results as pytest reports it (the collection
errors by :mod:`.collecting`, an interruption or internal error by :mod:`.controller`);
:func:`abort_reason` words it at the finish, :func:`rewrite_unfinished` covers a session
that never reached its finish, and :func:`rewrite_reports_before_state` a run refused
while its state was still being built (``pytest_configure``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..gate.record import GateResult, RunRecord
from .configure import html_report_path, report_paths

if TYPE_CHECKING:
    from ..report.written import Target
    from .results import SessionResults
    from .run_config import RunConfig

_ABORTED = "the run was aborted before a gate was computed"
_NEVER_STARTED = "the session never started: a pytest_configure or pytest_sessionstart hook failed"


def note_interruption(
    results: SessionResults, excinfo: pytest.ExceptionInfo[BaseException]
) -> None:
    """Ctrl-C or ``pytest.exit``, as pytest reports it."""
    results.stop, results.stop_code = interruption(excinfo.value)


def note_internal_error(
    results: SessionResults, excinfo: pytest.ExceptionInfo[BaseException]
) -> None:
    results.stop = f"internal error: {excinfo.typename}: {first_line(str(excinfo.value))}"
    results.stop_code = int(pytest.ExitCode.INTERNAL_ERROR)


def interrupted(results: SessionResults) -> bool:
    """Ctrl-C, pytest.exit or an internal error (a collection error stops pytest too)."""
    return results.stop is not None and not results.collection_error_lines


def abort_reason(results: SessionResults, exitstatus: int, *, listing: bool) -> str:
    """Why a session that reached its finish has no gate."""
    errors = results.collection_error_lines
    if errors:
        first, more = errors[0], len(errors) - 1
        return first + (f" (and {more} more collection error(s))" if more else "")
    if listing:
        return "--collect-only lists the cases; none was run or measured"
    if results.stop is not None:
        return results.stop
    # A UsageError pytest raised during the session is still propagating.
    exc = sys.exc_info()[1]
    if isinstance(exc, pytest.UsageError):
        return f"usage error: {first_line(str(exc))}"
    return f"the session ended with pytest's exit code {exitstatus} and no gate"


def rewrite_unfinished(config: pytest.Config, run: RunConfig, results: SessionResults) -> None:
    """At unconfigure, for a session that never reached its finish (no record): the
    reports say why, from what pytest reported or the exception still propagating."""
    exc = sys.exc_info()[1]
    if results.stop is not None:
        reason, code = results.stop, results.stop_code or int(pytest.ExitCode.INTERRUPTED)
    elif exc is not None:
        reason, code = exception_reason(exc)
    else:
        reason, code = _NEVER_STARTED, int(pytest.ExitCode.INTERNAL_ERROR)
    _rewrite_unstarted(config, run.json_path, run.markdown_path, reason, code)


def aborted_gate(reason: str, code: int) -> GateResult:
    return GateResult(passed=False, exit_code=code, reasons=(f"{_ABORTED}: {reason}",))


def aborted_code(exitstatus: int) -> int:
    """pytest's code, except that a run without a gate is never 0 (it would read green)."""
    return exitstatus if exitstatus else int(pytest.ExitCode.INTERRUPTED)


def interruption(exc: BaseException) -> tuple[str, int]:
    """Why pytest stopped (the hook's exception), and the code pytest exits with."""
    if isinstance(exc, pytest.exit.Exception):
        code = exc.returncode if exc.returncode is not None else pytest.ExitCode.INTERRUPTED
        return f"pytest.exit(): {first_line(exc.msg)}", int(code)
    # Ctrl-C is a bare KeyboardInterrupt; pytest's and xdist's own stops carry a message.
    name, text = type(exc).__name__, first_line(str(exc))
    reason = f"interrupted ({name}: {text})" if text else f"interrupted ({name})"
    return reason, int(pytest.ExitCode.INTERRUPTED)


def exception_reason(exc: BaseException) -> tuple[str, int]:
    """The reason and exit code for ``exc`` ending a run before its session started."""
    if isinstance(exc, pytest.exit.Exception) and exc.returncode:
        return first_line(exc.msg), exc.returncode  # the refusal's own message (ours: exit 2)
    if isinstance(exc, (KeyboardInterrupt, pytest.exit.Exception)):
        return interruption(exc)
    if isinstance(exc, pytest.UsageError):
        return f"usage error: {first_line(str(exc))}", int(pytest.ExitCode.USAGE_ERROR)
    text = first_line(str(exc))
    return f"internal error: {type(exc).__name__}: {text}", int(pytest.ExitCode.INTERNAL_ERROR)


def rewrite_reports_before_state(config: pytest.Config) -> None:
    """Called while an exception from building the state propagates (exit 2 from a bad
    flag or ``skill-lens.toml``): the paths come straight from the command line."""
    exc = sys.exc_info()[1]
    if hasattr(config, "workerinput") or exc is None:
        return
    json_path, markdown_path = report_paths(config)
    reason, code = exception_reason(exc)
    _rewrite_unstarted(config, json_path, markdown_path, reason, code)


def _rewrite_unstarted(
    config: pytest.Config,
    json_path: Path | None,
    markdown_path: Path | None,
    reason: str,
    code: int,
) -> None:
    """Nothing ran and pytest wrote no JUnit: every report asked for says aborted."""
    # Imported here: a run that reaches its end (or a listing) never takes this path.
    from ..report.junit_gate import aborted_junit
    from ..report.printable import one_line
    from ..report.written import report_targets, write_reports

    record = RunRecord(aborted=reason)
    gate = aborted_gate(reason, aborted_code(code))
    targets: list[Target] = report_targets(
        record,
        gate,
        json_path=json_path,
        markdown_path=markdown_path,
        html_path=html_report_path(config),
    )
    xml = getattr(config.option, "xmlpath", None)
    if xml:  # resolved as pytest's junitxml resolves it
        junit_path = config.invocation_params.dir / os.path.expanduser(os.path.expandvars(xml))
        targets.append(("JUnit", junit_path, lambda: aborted_junit(gate.reasons)))
    writes = write_reports(targets)
    for line in (*writes.written, *writes.errors):
        sys.stderr.write(one_line(line) + "\n")  # no terminal summary runs now


def first_line(text: Any) -> str:
    """The first non-blank line of ``text``, stripped (a message's headline)."""
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""
