"""``python -m pytest_skill_lens.cli``: the console script without its entry point."""

from __future__ import annotations

import sys

from . import console

if __name__ == "__main__":  # importing it (a test preloading every module) runs nothing
    sys.exit(console())
