"""The page around the data: inline CSS and script, allowed by hash and nothing else.

The Content-Security-Policy says ``default-src 'none'``: no network, no frames, no
plugins, and only the one stylesheet and the one script whose SHA-256 it names can
run. Untrusted text never reaches the markup: the script reads it from the data block
(:mod:`.embed`) and inserts it with ``textContent``, so even markup that slipped into
the DOM could not run.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Iterable, Iterator
from importlib import resources
from typing import TYPE_CHECKING, Any

from .embed import DATA_ID, data_chunks

if TYPE_CHECKING:
    from ...gate.record import GateResult, RunRecord

# The script is these files concatenated in this order, inside one function scope.
SCRIPT_PARTS = (
    "core.js",
    "summary.js",
    "charts.js",
    "delta.js",
    "arms.js",
    "multiplicity.js",
    "portability.js",
    "triggering.js",
    "evidence.js",
    "outcomes.js",
    "main.js",
)
STYLE_FILE = "report.css"


def render_html(report: dict[str, Any]) -> str:
    """The whole page for ``report`` (a JSON report's data, as ``json.loads`` gives it)."""
    return "".join(_page(data_chunks(report.items())))


def page_chunks(record: RunRecord, gate: GateResult) -> Iterator[str]:
    """The page of a record, in pieces, its data made from the record as the JSON report's
    is (never by reading that text back): the same page :func:`render_html` draws of it."""
    from ..json_report import report_parts

    return _page(data_chunks(report_parts(record, gate)))


def _page(data: Iterable[str]) -> Iterator[str]:
    style, script = _style(), _script()
    yield "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{csp(style, script)}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="referrer" content="no-referrer">',
            '<link rel="icon" href="data:,">',  # no favicon request from file://
            "<title>skill-lens report</title>",
            f"<style>{style}</style>",
            "</head>",
            "<body>",
            '<main id="report" aria-live="polite">',
            "<noscript><p>This report needs JavaScript to show its data; the JSON report "
            "holds the same.</p></noscript>",
            "</main>",
            f'<script type="application/json" id="{DATA_ID}">',
        ]
    )
    yield from data
    yield "\n".join(["</script>", f"<script>{script}</script>", "</body>", "</html>", ""])


def csp(style: str, script: str) -> str:
    """The policy allowing exactly this ``style`` and ``script`` text, and no network."""
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src '{digest(script)}'",
            f"style-src '{digest(style)}'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def digest(text: str) -> str:
    """A CSP source expression for ``text``: ``sha256-`` and the base64 of its digest."""
    hashed = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(hashed).decode("ascii")


def asset(name: str) -> str:
    return (resources.files(__package__) / "assets" / name).read_text(encoding="utf-8")


@functools.cache
def _style() -> str:
    return _checked(asset(STYLE_FILE))


@functools.cache
def _script() -> str:
    body = "\n".join(asset(name) for name in SCRIPT_PARTS)
    return _checked(f'(function () {{\n"use strict";\n{body}\n}})();\n')


def _checked(text: str) -> str:
    # Our own files, but an end tag inside them would cut the element short.
    if "</" in text.lower():
        raise ValueError("an inline asset holds '</', which could end its element")
    return text
