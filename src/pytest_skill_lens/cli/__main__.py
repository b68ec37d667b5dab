"""``python -m pytest_skill_lens.cli``: the console script without its entry point."""

from __future__ import annotations

import sys

from . import console

sys.exit(console())
