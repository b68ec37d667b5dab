"""Shared setup for the plugin's ``pytester`` tests (the skill builders are in skillfactory.py)."""

from __future__ import annotations

# Speed only: hypothesis's pytest plugin imports ``hypothesis`` at every session's
# terminal summary, and pytester's in-process runs drop modules first imported inside
# them, so each inner run would pay that import (about a second) again. Importing it
# once here keeps it in sys.modules for every inner run.
import hypothesis.internal.observability  # noqa: F401
