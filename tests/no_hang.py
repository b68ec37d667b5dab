"""A call that must return: for the tests of reads that a FIFO would block for ever.

Importable from any test module (``pythonpath = ["tests"]`` in pyproject.toml).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def within(seconds: float, call: Callable[[], Any], blocked: str = "the call blocked") -> Any:
    """``call()``'s result or exception, failing the test with ``blocked`` if it has not
    returned in time: it runs in a daemon thread, so a regression fails instead of hanging."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), blocked
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
