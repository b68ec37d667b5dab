"""``--skill-lens-reuse DIR`` with a real product: the pinned Claude Code against the
scripted Anthropic server on 127.0.0.1 (docs/reuse.md).

The first run starts the product and adds its outcome to the store; then the server is
stopped, and the second run reuses the outcome: a product started against the stopped
server could not pass, so a passing reused outcome with the recorded output and no new
request is proof that none ran. (The preflight's ``--version`` still runs: the version
is part of the key.)
"""

from __future__ import annotations

from functools import partial

import pytest
from anthropic_server import AnthropicServer, text
from product_harness import (  # noqa: F401 (server)
    CLAUDE_TOML,
    anthropic_as_server,
    point_claude_code_at,
    run_cases,
    stop,
)

# slow: starts the real Claude Code (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "product_env")]


@pytest.fixture
def product_env(monkeypatch: pytest.MonkeyPatch, server: AnthropicServer) -> None:
    point_claude_code_at(monkeypatch, server.url, "sk-skill-lens-test-reuse")


run = partial(run_cases, skill="orders", toml=CLAUDE_TOML)
CASES = [
    {"name": "greets", "task": "say hello", "assertions": [{"kind": "contains", "value": "Hello"}]}
]


def test_claude_code_is_reused_from_the_store_with_no_product_run(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["say hello"] = [text("Hello back.", usage=(10, 5))]
    result, first = run(pytester, "claude-code", CASES, "--skill-lens-reuse", "store")
    assert result.ret == 0, result.stdout.str()
    assert first["greets"]["reused_from"] is None and first["greets"]["replayed"] is False
    assert first["greets"]["reuse_note"] == (
        "not in the reuse store: this item was never recorded there"
    )
    requests = len(server.requests)
    assert requests > 0

    stop(server)
    result, again = run(pytester, "claude-code", CASES, "--skill-lens-reuse", "store", "-v")

    assert result.ret == 0, result.stdout.str()
    reused = again["greets"]
    assert reused["status"] == "passed" and reused["replayed"] is True
    assert reused["reused_from"]["item"]["runner"] == "claude-code"
    assert reused["output"] == first["greets"]["output"]
    assert "PASSED (reused)" in result.stdout.str()
    assert reused["cassette_action"] == "kept"  # the entry stands as main recorded it
    assert len(server.requests) == requests
