"""``python -m pytest_skill_lens.merge SHARD.json...``."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
