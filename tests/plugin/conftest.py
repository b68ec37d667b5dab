"""Shared setup for the plugin's ``pytester`` tests (the skill builders are in skillfactory.py)."""

from __future__ import annotations

from collections.abc import Iterator

# Speed only: hypothesis's pytest plugin imports ``hypothesis`` at every session's
# terminal summary, and pytester's in-process runs drop modules first imported inside
# them, so each inner run would pay that import (about a second) again. Importing it
# once here keeps it in sys.modules for every inner run.
import hypothesis.internal.observability  # noqa: F401
import pytest
from model_server import ScriptedModelServer


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
