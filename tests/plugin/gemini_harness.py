"""What the Gemini CLI end-to-end modules share: the scripted Gemini server and the
product pointed at it. Import the fixtures into a module (``from gemini_harness import
gemini_as_server, gemini_env``); ``server`` there is the Gemini server, shadowing tests/plugin's
OpenAI-compatible one in that module only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gemini_server import MODEL, GeminiServer

__all__ = [
    "GEMINI_TOML",
    "about",
    "gemini_as_server",
    "gemini_env",
    "point_gemini_at",
    "stop",
]

# The model named, so there is no router side call and the price is that model's.
GEMINI_TOML = f'[runners.gemini-cli]\nargs = ["-m", "{MODEL}"]\n'
# Google credentials Gemini CLI would read besides GEMINI_API_KEY: none of the machine's.
OTHER_CREDENTIALS = ("GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT")


def point_gemini_at(monkeypatch: pytest.MonkeyPatch, url: str, key: str = "dummy") -> None:
    """Gemini CLI talks to ``url`` with ``key``; no credential of the machine's own."""
    monkeypatch.setenv("GEMINI_API_KEY", key)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", url)
    for name in OTHER_CREDENTIALS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(name="server")
def gemini_as_server() -> Iterator[GeminiServer]:
    """The scripted Gemini server; ``stop`` closes its port early (before a replay)."""
    running = GeminiServer().__enter__()
    try:
        yield running
    finally:
        stop(running)


def stop(server: GeminiServer) -> None:
    if getattr(server, "stopped", False):
        return
    server.__exit__(None, None, None)
    server.stopped = True  # type: ignore[attr-defined]


@pytest.fixture
def gemini_env(monkeypatch: pytest.MonkeyPatch, server: GeminiServer) -> None:
    """The scripted server and a placeholder key; no credential of the machine's own."""
    point_gemini_at(monkeypatch, server.url)


def about(server: GeminiServer, phrase: str) -> list[str]:
    """The whole body of every request whose task holds ``phrase``, in order."""
    return [str(request.body) for request in server.requests if phrase in request.task]
