"""Shared pieces of the framework runners' end-to-end tests (pydantic-ai and langchain).

Import it from a test module in ``tests/plugin`` with ``from runner_e2e import ...``. A
test runs pytest the way a user does, ``--skill-lens-runner <runner>`` against a
scripted model server on 127.0.0.1, and reads the JSON report; nothing leaves the machine.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import pytest
from runs import LensRun, served_by
from skillfactory import make_skill, write_file

__all__ = [
    "LOOKUP_SCHEMA",
    "ORDER",
    "PULL_REQUEST_SCHEMA",
    "RUNNERS",
    "SKILL_BODY",
    "SKILL_FRONTMATTER",
    "SYSTEM_PROMPT",
    "case",
    "checks",
    "ordered",
    "price",
    "run",
    "tools_block",
]

RUNNERS = ["pydantic-ai", "langchain"]

SKILL_FRONTMATTER = "name: order-support\ndescription: Handles refund requests.\n"
SKILL_BODY = "Always look up the order before you answer.\n"
SYSTEM_PROMPT = (
    "# order-support\n\nHandles refund requests.\n\n"
    "# order-support\n\nAlways look up the order before you answer."
)

# A real server's schema: optional keys, a $ref into $defs, a title, a default, a format.
PULL_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "GetPullRequest",
    "$defs": {"Label": {"type": "string", "enum": ["bug", "docs"], "default": "bug"}},
    "properties": {
        "owner": {"type": "string", "title": "Owner", "minLength": 1},
        "pull_number": {"type": "integer"},
        "labels": {"type": "array", "items": {"$ref": "#/$defs/Label"}},
        "since": {"type": "string", "format": "date-time"},
    },
    "required": ["owner", "pull_number"],
}
# What ``parameters: {order_id: string}`` declares: a closed schema, keys in this order.
LOOKUP_SCHEMA = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}},
    "required": ["order_id"],
    "additionalProperties": False,
}
ORDER = '{"id": "1234", "days_since_delivery": 45}'


class Server(Protocol):
    url: str
    script: dict[str, list[Mapping[str, Any]]]


def tools_block() -> list[dict[str, Any]]:
    return [
        {
            "name": "lookup_order",
            "description": "Look up an order by its id",
            "parameters": {"order_id": "string"},
            "returns": ORDER,
        },
        {
            "name": "issue_refund",
            "description": "Issue a refund for an order",
            "parameters": {"order_id": "string"},
            "returns": '{"ok": true}',
        },
        {
            "name": "get-pull-request",
            "description": "Get details of a specific pull request",
            "input_schema": PULL_REQUEST_SCHEMA,
            "returns": '{"number": 1}',
        },
    ]


def case(name: str, task: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "task": task, **more}


def run(
    pytester: pytest.Pytester,
    server: Server,
    cases: Sequence[Mapping[str, Any]],
    script: Mapping[str, Sequence[Mapping[str, Any]]],
    *args: str,
    runners: Sequence[str],
    model: str = "openai:gpt-4o-mini",
    toml: str = "retry_backoff_seconds = 0.0\n",
    subprocess: bool = False,
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """Run skill ``order-support`` under ``runners`` against ``server``.

    The outcomes are keyed by case name with one runner, by ``"<case> (<runner>)"``
    with several; a repeat after the first adds ``" #<repeat index>"``.
    """
    server.script.update({task: list(replies) for task, replies in script.items()})
    make_skill(
        pytester.path / "skills",
        "order-support",
        cases,
        frontmatter=SKILL_FRONTMATTER,
        body=SKILL_BODY,
    )
    write_file(pytester.path / "skill-lens.toml", toml)
    lens = LensRun(runner=runners, json="report.json", subprocess=subprocess)
    result = lens(pytester, *served_by(server.url, model), *args)
    if not (pytester.path / "report.json").is_file():
        return result, {}
    outcomes: dict[str, dict[str, Any]] = {}
    for outcome in lens.report(pytester).outcomes:
        key = outcome["case_name"]
        key += f" ({outcome['runner']})" if len(runners) > 1 else ""
        key += f" #{outcome['repeat_index']}" if outcome["repeat_index"] else ""
        assert key not in outcomes, f"two outcomes are {key!r}"
        outcomes[key] = outcome
    return result, outcomes


def checks(outcome: Mapping[str, Any], evaluator: str) -> dict[str, tuple[bool, str]]:
    (score,) = [s for s in outcome["scores"] if s["evaluator"] == evaluator]
    return {c["id"]: (c["passed"], c["evidence"]) for c in score["checks"]}


def price(
    model: str, input_tokens: int, output_tokens: int, provider: str = "openai", **cache: int
) -> float:
    import genai_prices

    usage = genai_prices.Usage(input_tokens=input_tokens, output_tokens=output_tokens, **cache)
    return float(genai_prices.calc_price(usage, model, provider_id=provider).total_price)


def ordered(value: Any) -> str:
    """``value`` as JSON text with its keys in the order they arrived: byte-for-byte equality
    up to whitespace, which a plain ``==`` on dicts (order-blind) is not."""
    return json.dumps(value)
