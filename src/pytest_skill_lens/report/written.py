"""Writing the report files, so that none is ever left half-written or stale.

Each file is written beside its final name as it is rendered (the JSON report and the
page piece by piece, an outcome at a time), and renamed over it once whole
(:func:`~pytest_skill_lens.atomic_file.write_atomically`): a reader never sees a
truncated file, and a crash mid-write leaves the old one whole. When a report cannot be
rendered or written, the old file at that path is removed (an earlier run's green must
not stand in for this one) and the failure is returned as a line; every file written is
named by a line too, as pytest names its JUnit file. A session and ``merge`` both write
through here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic_file import write_atomically

if TYPE_CHECKING:
    from ..gate.record import GateResult, RunRecord

# label, path (None: not asked), render: the text, or its pieces as they are made
Target = tuple[str, Path | None, Callable[[], str | Iterable[str]]]


def report_targets(
    record: RunRecord,
    gate: GateResult,
    *,
    json_path: Path | None = None,
    markdown_path: Path | None = None,
    html_path: Path | None = None,
    markdown_max_chars: int | None = None,
    full_output: bool = False,
) -> list[Target]:
    """The JSON, Markdown and HTML reports of one record (a session's or a merge's), each
    rendered only when it is written; the page's data is made from the same parts as the
    JSON report (``json_report.report_parts``), so the two always agree."""

    # The renderers are imported on first render: a listing without report paths (an
    # IDE's collection) never needs them.
    def json_text() -> Iterable[str]:
        from .json_report import json_chunks

        return json_chunks(record, gate)

    def markdown() -> str:
        from .markdown import render_markdown

        return render_markdown(record, gate, max_chars=markdown_max_chars, full_output=full_output)

    def page() -> Iterable[str]:
        from .html.page import page_chunks

        return page_chunks(record, gate)

    return [
        ("JSON", json_path, json_text),
        ("Markdown", markdown_path, markdown),
        ("HTML", html_path, page),
    ]


@dataclass(frozen=True)
class Writes:
    written: tuple[str, ...]  # "<label> report written: <absolute path>", one per file
    errors: tuple[str, ...]  # one per report that could not be rendered or written


def write_reports(targets: Iterable[Target]) -> Writes:
    """Write every asked-for report; say which were written and which could not be."""
    written: list[str] = []
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
        else:
            written.append(f"{label} report written: {os.path.abspath(path)}")
    return Writes(tuple(written), tuple(errors))


def _remove_stale(path: Path) -> bool:
    """Remove a regular file left at ``path``; True when there was one."""
    try:
        if path.is_symlink() or path.is_file():
            path.unlink()
            return True
    except OSError:
        pass
    return False
