"""Which report files a session writes, each rendered only when it is written.

The writing itself (atomic, never leaving a stale file, each file named) is
:mod:`..report.written`, shared with ``merge``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..report.written import Target

if TYPE_CHECKING:
    from ..gate.record import GateResult, RunRecord


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
