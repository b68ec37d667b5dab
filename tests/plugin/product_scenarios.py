"""Scenarios every product runner must pass alike: each is a test body that a product's
end-to-end module calls with its own :class:`~product_harness.ProductRun` (and the name
of the product's own skill tool), so the products are held to one standard."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
import replay_checks
from anthropic_server import AnthropicServer, text, tool_use
from product_harness import ProductRun, seen

# The skill "greet"'s text: a request that holds the marker had the skill put before it.
GREET_BODY = "Say GREET-INSTRUCTIONS, then hello.\n"
# The task every product's scripted model answers "Hello team, warmly." (or not) to.
GREETS_WARMLY: dict[str, Any] = {
    "name": "greets warmly",
    "task": "greet the team",
    "assertions": [{"kind": "contains", "value": "warmly"}],
}
# Two sessions in one working directory: the second answers "warmly" and notes.txt, which
# the first wrote, is still there.
TWO_VISITS: dict[str, Any] = {
    "name": "two visits",
    "workspace": {"files": {"seed.txt": "seeded\n"}},
    "sessions": ["first visit", "second visit"],
    "assertions": [
        {"kind": "contains", "value": "warmly"},
        {"kind": "file-produced", "file": "notes.txt"},
    ],
}
# A case whose product is asked to tidy: it passes when inside.txt lands in its directory.
TIDIES: dict[str, Any] = {
    "name": "tidies",
    "task": "tidy the files",
    "workspace": {},
    "assertions": [{"kind": "file-produced", "file": "inside.txt"}],
}
# The skill "orders"'s text, and a mock tool answering order A-1 one way, any other another.
ORDERS_BODY = "Answer order questions.\n"
ORDERS: dict[str, Any] = {
    "name": "get_order",
    "description": "Fetch one order by its id",
    "parameters": {"id": "string"},
    "returns": [{"when": {"id": "A-1"}, "value": "order A-1 shipped"}, {"value": "no such order"}],
}
# A product judge's rubric, and its reply: the one JSON object, in a fence between prose.
RUBRIC = ["The reply names order 1234", "The reply is polite"]


def reaches_for_the_skill(called: str) -> dict[str, Any]:
    """An offered case "welcome the guest" that expects the skill triggered by ``called``."""
    return {
        "name": "reaches for the skill",
        "task": "welcome the guest",
        "mode": "offered",
        "trajectory": {"skill_triggered": True, "called": [called]},
    }


# Offered, on a task the model answers without the skill: one case expects exactly that,
# the other a trigger that never comes.
NOT_CALLED: list[dict[str, Any]] = [
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


def offered_outcomes_hold(result: pytest.RunResult, outcomes: Mapping[str, Any]) -> None:
    """:func:`reaches_for_the_skill` and :data:`NOT_CALLED` run together: the call
    triggered and loaded the skill, its absence is a pass where expected and a fail where
    not, and the run exits 1."""
    assert result.ret == 1, result.stdout.str()
    reached = outcomes["reaches for the skill"]
    assert reached["status"] == "passed", result.stdout.str()
    assert (reached["skill_triggered"], reached["skill_loaded"]) == (True, True)
    assert outcomes["leaves the skill alone"]["status"] == "passed"
    assert outcomes["leaves the skill alone"]["skill_loaded"] is False
    assert outcomes["was expected to use it"]["status"] == "failed"


def looks_up_order(tools: Sequence[Mapping[str, Any]] = (ORDERS,)) -> dict[str, Any]:
    """A case that asks about order A-1 with ``tools``: ``get_order`` must be called, and
    ``call_args`` holds only when it was called for A-1."""
    return {
        "name": "looks the order up",
        "task": "where is order A-1?",
        "tools": list(tools),
        "trajectory": {
            "called": ["get_order"],
            "call_args": [{"tool": "get_order", "equals": {"id": "A-1"}}],
        },
    }


def call_args_held(result: pytest.RunResult, outcome: Mapping[str, Any], passes: bool) -> None:
    """:func:`looks_up_order`'s outcome: ``called`` held either way, ``call_args`` only
    when ``passes``, and the call is reported under its declared name."""
    assert outcome["status"] == ("passed" if passes else "failed"), result.stdout.str()
    assert checks(outcome) == {"called:get_order": True, "call_args[0]": passes}
    assert [call["name"] for call in outcome["tool_calls"]] == ["get_order"]


def verdict_text(*checks: tuple[str, bool, str], prose: str | None = "Grading now.") -> str:
    """A judge's reply giving ``(id, passed, evidence)`` for each check; ``prose`` before
    the fenced object (and "Done." after), or the bare object when ``None``."""
    body = json.dumps({"checks": [{"id": i, "passed": p, "evidence": e} for i, p, e in checks]})
    return body if prose is None else f"{prose}\n```json\n{body}\n```\nDone."


# What stays the same between a recording and its replay: whether a product loaded the skill too.
SAME = (*replay_checks.SAME, "skill_loaded", "load_note")


def same(recorded: Mapping[str, Any], replayed: Mapping[str, Any]) -> None:
    """``replayed`` is ``recorded``'s outcome again, from a cassette of this session."""
    replay_checks.same_figures(recorded, replayed, SAME)
    assert replayed["replayed"] is True and recorded["replayed"] is False
    assert replayed["recorded_at"] in replay_checks.recording_days()


def ask(name: str, arguments: Mapping[str, Any], call_id: str) -> dict[str, Any]:
    """An Anthropic reply asking for one tool under an id of its own (a product keys calls
    by id)."""
    reply = tool_use([(name, arguments)])
    reply["content"][0]["id"] = call_id
    return reply


def checks(outcome: Mapping[str, Any]) -> dict[str, bool]:
    """Every check of every score of ``outcome``: passed or not, by id."""
    return {c["id"]: c["passed"] for score in outcome["scores"] for c in score["checks"]}


def judge_score(outcome: Mapping[str, Any]) -> dict[str, Any]:
    """``outcome``'s one judge score."""
    (score,) = [s for s in outcome["scores"] if s["evaluator"] == "judge"]
    return score  # type: ignore[no-any-return]


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
    result, outcomes = run(pytester, [reaches_for_the_skill(skill_tool)])
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
    result, outcomes = run(pytester, NOT_CALLED)
    assert result.ret == 1
    assert outcomes["leaves the skill alone"]["status"] == "passed"
    assert outcomes["was expected to use it"]["status"] == "failed"
    assert outcomes["leaves the skill alone"]["skill_loaded"] is False
