"""The Gemini CLI end-to-end helpers, now in product_harness.py with every product's;
these names stay for the modules that import them from here."""

from __future__ import annotations

from product_harness import (
    GEMINI_TOML,
    gemini_as_server,
    gemini_env,
    point_gemini_at,
    stop,
)
from product_harness import seen as about

__all__ = ["GEMINI_TOML", "about", "gemini_as_server", "gemini_env", "point_gemini_at", "stop"]
