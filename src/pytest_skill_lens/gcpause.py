"""Pause Python's cyclic garbage collector around bulk work.

Loading thousands of eval cases allocates many small, acyclic objects. Each
allocation burst triggers a collection that walks the whole heap, which in a
pytest process holding thousands of items costs more than the work itself.
Reference counting still frees everything; the pause only defers cycle hunting.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
