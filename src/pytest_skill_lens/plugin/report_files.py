"""Writing the report files, so that none is ever left half-written or stale.

Each file is rendered first, then written beside its final name and renamed over
it: a reader never sees a truncated file, and a crash mid-write leaves the old one
whole. When a report cannot be rendered or written, the old file at that path is
removed (an earlier run's green must not stand in for this run), and the failure is
returned as a line for the summary.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic_file import write_atomically

if TYPE_CHECKING:
    from ..gate.record import GateResult, RunRecord

Target = tuple[str, Path | None, Callable[[], str]]  # label, path (None: not asked), render


def report_targets(
    record: RunRecord,
    gate: GateResult,
    json_path: Path | None,
    markdown_path: Path | None,
    *,
    markdown_max_chars: int | None = None,
    full_output: bool = False,
    html_path: Path | None = None,
) -> list[Target]:
    """The JSON, Markdown and HTML reports of one record, rendered only when written."""
    return [
        ("JSON", json_path, lambda: _json(record, gate)),
        (
            "Markdown",
            markdown_path,
            lambda: _markdown(record, gate, max_chars=markdown_max_chars, full_output=full_output),
        ),
        # The page is drawn from the JSON report's own text, so the two always agree.
        ("HTML", html_path, lambda: _html(json.loads(_json(record, gate)))),
    ]


# The renderers are imported on first render: a listing without report paths (an
# IDE's collection) never needs them.


def _json(record: RunRecord, gate: GateResult) -> str:
    from ..report.json_report import render_json

    return render_json(record, gate)


def _markdown(
    record: RunRecord, gate: GateResult, *, max_chars: int | None, full_output: bool
) -> str:
    from ..report.markdown import render_markdown

    return render_markdown(record, gate, max_chars=max_chars, full_output=full_output)


def _html(data: dict[str, Any]) -> str:
    from ..report.html import render_html

    return render_html(data)


def write_report_files(targets: Iterable[Target]) -> list[str]:
    """Write every asked-for report; one message per report that could not be written."""
    errors: list[str] = []
    for label, path, render in targets:
        if path is None:
            continue
        try:
            write_atomically(path, render())
        except Exception as exc:  # rendering is ours, but a hostile value must not crash the end
            cause = exc.strerror if isinstance(exc, OSError) and exc.strerror else None
            message = f"Failed to write {label} report to {path}: "
            message += cause or f"{type(exc).__name__}: {exc}"
            if _remove_stale(path):
                message += " (the previous file was removed)"
            errors.append(message)
    return errors


def _remove_stale(path: Path) -> bool:
    """Remove a regular file left at ``path``; True when there was one."""
    try:
        if path.is_symlink() or path.is_file():
            path.unlink()
            return True
    except OSError:
        pass
    return False
