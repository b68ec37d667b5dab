"""Shared setup for the plugin's ``pytester`` tests.

The skill builders are in skillfactory.py; the run wrapper and JSON report reader in runs.py.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

# Speed only: hypothesis's pytest plugin imports ``hypothesis`` at every session's
# terminal summary, and pytester's in-process runs drop modules first imported inside
# them, so each inner run would pay that import (about a second) again. Importing it
# once here keeps it in sys.modules for every inner run.
import hypothesis.internal.observability  # noqa: F401
import pytest
from model_server import ScriptedModelServer

# The product end-to-end modules' fixtures, defined with the helpers they share.
from product_harness import anthropic_server, claude_env, copilot_env, product_env  # noqa: F401


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    """A scripted OpenAI-compatible model server on 127.0.0.1 (see model_server.py)."""
    with ScriptedModelServer() as running:
        yield running


@pytest.fixture
def openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A placeholder OpenAI key, and no OPENAI_BASE_URL from the machine that runs the tests.

    The framework tests name it in ``pytestmark`` (``usefixtures``): the preflight refuses
    a run without a key, and a developer's own base URL must never redirect a test.
    """
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


PRODUCTS_BIN = Path(__file__).resolve().parents[2] / "products" / "node_modules" / ".bin"


@pytest.fixture
def products_on_path(monkeypatch: pytest.MonkeyPatch) -> Path:
    """``products/node_modules/.bin`` first on PATH, so inner runs find ``claude`` and ``copilot``.

    A missing binary fails the test rather than skipping it: CI installs them, and a
    skip would read as a product runner tested when it was not.
    """
    path = f"{PRODUCTS_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    pinned = str(PRODUCTS_BIN)
    missing = [
        name for name in ("claude", "copilot", "gemini") if shutil.which(name, path=pinned) is None
    ]
    if missing:
        pytest.fail(
            f"{', '.join(missing)} not installed under {PRODUCTS_BIN}: run "
            "`npm ci --prefix products` (the pinned versions in products/package-lock.json)"
        )
    monkeypatch.setenv("PATH", path)
    return PRODUCTS_BIN
