"""The HTML report: one self-contained page, a pure function of the JSON report's data."""

from __future__ import annotations

from .page import render_html

__all__ = ["render_html"]
