"""Scenarios every product runner must pass alike: each is a test body that a product's
end-to-end module calls with its own :class:`~product_harness.ProductRun` (and the name
of the product's own skill tool), so the products are held to one standard."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic_server import AnthropicServer, text, tool_use
from product_harness import ProductRun, seen

# The task every product's scripted model answers "Hello team, warmly." (or not) to.
GREETS_WARMLY: dict[str, Any] = {
    "name": "greets warmly",
    "task": "greet the team",
    "assertions": [{"kind": "contains", "value": "warmly"}],
}


def a_wrong_answer_fails_showing_it(
    pytester: pytest.Pytester, server: AnthropicServer, run: ProductRun
) -> pytest.RunResult:
    """A loaded case whose answer lacks the expected text fails, and the failure shows the
    real answer; the result, for what the product says besides."""
    server.by_content["greet the team"] = [text("Go away.")]
    result, outcomes = run(pytester, [GREETS_WARMLY])
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    assert outcomes["greets warmly"]["status"] == "failed"
    assert "Go away." in result.stdout.str()  # the failure excerpt shows the real answer
    return result


def an_offered_skill_called_is_loaded(
    pytester: pytest.Pytester, server: AnthropicServer, run: ProductRun, skill_tool: str
) -> None:
    """Offered, the model calls the product's ``skill_tool``: triggered and loaded, and the
    skill's text reached the model only after the call."""
    server.by_content["welcome the guest"] = [
        tool_use([(skill_tool, {"skill": "greet"})]),
        text("Hello, guest."),
    ]
    cases = [
        {
            "name": "reaches for the skill",
            "task": "welcome the guest",
            "mode": "offered",
            "trajectory": {"skill_triggered": True, "called": [skill_tool]},
        }
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["reaches for the skill"]
    assert (outcome["skill_triggered"], outcome["skill_loaded"]) == (True, True)
    first, second = seen(server, "welcome the guest")
    assert "GREET-INSTRUCTIONS" not in first  # offered: only the listing, never the text
    assert "GREET-INSTRUCTIONS" in second  # the skill tool put it in front of the model


def an_offered_skill_not_called_is_a_measured_negative(
    pytester: pytest.Pytester, server: AnthropicServer, run: ProductRun
) -> None:
    """Offered and never called: a case expecting that passes, one expecting a call fails."""
    server.by_content["what is two plus two"] = [text("Four.")]
    cases = [
        {
            "name": "leaves the skill alone",
            "task": "what is two plus two",
            "mode": "offered",
            "trajectory": {"skill_triggered": False},
        },
        {
            "name": "was expected to use it",
            "task": "what is two plus two",
            "mode": "offered",
            "trajectory": {"skill_triggered": True},
        },
    ]
    result, outcomes = run(pytester, cases)
    assert result.ret == 1
    assert outcomes["leaves the skill alone"]["status"] == "passed"
    assert outcomes["was expected to use it"]["status"] == "failed"
    assert outcomes["leaves the skill alone"]["skill_loaded"] is False
