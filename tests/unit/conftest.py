"""Fixtures a few tests/unit modules share; each module names the ones it uses."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_skill_lens.run.sandbox.product_sandbox import adopt, adopted


@pytest.fixture
def no_adopted_decision() -> Iterator[None]:
    """No product sandbox decision adopted while the test runs, and the one before put
    back after it: the decision is process state (``product_sandbox.adopt``).

    A module names it in ``pytestmark``; a fixture that adopts a decision of its own
    requests it, so it is set up first and never resets that fixture's choice.
    """
    before = adopted()
    adopt(None)
    yield
    adopt(before)
