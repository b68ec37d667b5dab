"""A session that ends without a gate still rewrites its report files, saying why.

An authoring error, a refused flag or config value, Ctrl-C, ``pytest.exit``, an
internal error or ``--collect-only`` ends a session before any gate is computed.
The JSON and Markdown reports (and a JUnit file pytest could not write) are then
rewritten as "aborted" with the reason and ``gate.passed`` false, so a CI step that
reads them after a broken run never reads the previous run's green.

:class:`AbortWatch` is registered beside the session's hooks and notes what pytest
reports on the way out; :func:`rewrite_reports_before_state` covers a run refused
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
from .results import SessionResults
from .run_config import RunConfig

if TYPE_CHECKING:
    from ..report.written import Target

ABORT_KEY = pytest.StashKey["AbortWatch"]()
WATCH_NAME = "skill-lens-abort-watch"
_ABORTED = "the run was aborted before a gate was computed"
_NEVER_STARTED = "the session never started: a pytest_configure or pytest_sessionstart hook failed"


class AbortWatch:
    """What may end a session without a gate, noted as pytest reports it."""

    def __init__(self, config: pytest.Config, run: RunConfig, results: SessionResults) -> None:
        self.config = config
        self.run = run
        self.results = results
        self.is_worker = hasattr(config, "workerinput")
        self.collection_errors: list[str] = []  # the first line of each
        self.stop: str | None = None  # an interruption, pytest.exit or an internal error
        self.stop_code: int | None = None

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors.append(first_line(report.longreprtext) or report.nodeid)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.stop, self.stop_code = interruption(excinfo.value)

    def pytest_internalerror(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.stop = f"internal error: {excinfo.typename}: {first_line(str(excinfo.value))}"
        self.stop_code = int(pytest.ExitCode.INTERNAL_ERROR)

    @property
    def interrupted(self) -> bool:
        """Ctrl-C, pytest.exit or an internal error (a collection error stops pytest too)."""
        return self.stop is not None and not self.collection_errors

    def reason(self, exitstatus: int, *, listing: bool) -> str:
        if self.collection_errors:
            first, more = self.collection_errors[0], len(self.collection_errors) - 1
            return first + (f" (and {more} more collection error(s))" if more else "")
        if listing:
            return "--collect-only lists the cases; none was run or measured"
        if self.stop is not None:
            return self.stop
        # A UsageError pytest raised during the session is still propagating.
        exc = sys.exc_info()[1]
        if isinstance(exc, pytest.UsageError):
            return f"usage error: {first_line(str(exc))}"
        return f"the session ended with pytest's exit code {exitstatus} and no gate"

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        # Session finish records the run; without one, the session never reached its end.
        if self.is_worker or self.results.record is not None:
            return
        exc = sys.exc_info()[1]
        if self.stop is not None:
            reason, code = self.stop, self.stop_code or int(pytest.ExitCode.INTERRUPTED)
        elif exc is not None:
            reason, code = exception_reason(exc)
        else:
            reason, code = _NEVER_STARTED, int(pytest.ExitCode.INTERNAL_ERROR)
        _rewrite_unstarted(config, self.run.json_path, self.run.markdown_path, reason, code)


def watch_session(config: pytest.Config, run: RunConfig, results: SessionResults) -> AbortWatch:
    watch = AbortWatch(config, run, results)
    config.stash[ABORT_KEY] = watch
    config.pluginmanager.register(watch, WATCH_NAME)
    return watch


def get_watch(config: pytest.Config) -> AbortWatch | None:
    return config.stash.get(ABORT_KEY, None)


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
