"""Scoring end to end: a scripted runner returns chosen outputs, tool calls and usage, and
the verdicts, check ids and evidence come back through pytest and the JSON report."""

from __future__ import annotations

from typing import Any

import pytest
from runs import run_scripted_skill

# Declared once and reused with a YAML alias: a trajectory may only name declared tools.
_TOOLS = """
    tools: &tools
      - name: lookup
        description: Look up an order
        parameters:
          order_id: string
      - name: refund
        description: Refund an order
        parameters:
          order_id: string
          amount: number
      - name: notify
        description: Tell the customer
        parameters:
          text: string
"""


def _run_skill(
    pytester: pytest.Pytester, cases_yaml: str, script: dict[str, dict[str, Any]]
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """Run one skill ``scoring`` under the scripted runner; the outcomes by case name."""
    result, outcomes = run_scripted_skill(pytester, "scoring", cases_yaml, script)
    assert outcomes, "the run wrote no JSON report"
    return result, outcomes


def _checks(outcome: dict[str, Any], evaluator: str) -> dict[str, tuple[bool, str]]:
    (score,) = [s for s in outcome["scores"] if s["evaluator"] == evaluator]
    return {c["id"]: (c["passed"], c["evidence"]) for c in score["checks"]}


def _verdicts(outcome: dict[str, Any], evaluator: str) -> dict[str, bool]:
    return {check_id: passed for check_id, (passed, _) in _checks(outcome, evaluator).items()}


_ASSERTION_CASES = """
cases:
  - name: contains-pass
    task: t
    assertions:
      - {kind: contains, value: Hello}
  - name: contains-fail
    task: t
    assertions:
      - {kind: contains, value: Goodbye}
  - name: not-contains-pass
    task: t
    assertions:
      - {kind: not_contains, value: secret}
  - name: not-contains-fail
    task: t
    assertions:
      - {kind: not_contains, value: secret}
  - name: regex-pass
    task: t
    assertions:
      - {kind: regex, value: 'order \\d{4}\\b'}
  - name: regex-fail
    task: t
    assertions:
      - {kind: regex, value: '^order \\d{4}$'}
  - name: equals-pass-after-strip
    task: t
    assertions:
      - {kind: equals, value: Hello! Who would you like me to greet?}
  - name: equals-fail
    task: t
    assertions:
      - {kind: equals, value: Hello! Who would you like me to greet?}
  - name: schema-pass
    task: t
    assertions:
      - kind: json-schema
        json_schema:
          type: object
          properties:
            to: {type: string}
            count: {type: integer}
          required: [to, count]
  - name: schema-fail
    task: t
    assertions:
      - kind: json-schema
        json_schema:
          type: object
          properties:
            to: {type: string}
          required: [to]
  - name: schema-not-json
    task: t
    assertions:
      - kind: json-schema
        json_schema: {type: object}
  - name: second-of-two-fails
    task: t
    assertions:
      - {kind: contains, value: Hello}
      - {kind: regex, value: 'bye$'}
"""

_ASSERTION_SCRIPT: dict[str, dict[str, Any]] = {
    "contains-pass": {"output": "Hello, Ada!"},
    "contains-fail": {"output": "Hello, Ada!"},
    "not-contains-pass": {"output": "nothing to hide"},
    "not-contains-fail": {"output": "the secret is out"},
    "regex-pass": {"output": "Your order 1234 has shipped."},
    "regex-fail": {"output": "Your order 1234 has shipped."},
    "equals-pass-after-strip": {"output": "  \n Hello! Who would you like me to greet?\n\n"},
    "equals-fail": {"output": "Hello! Who would you like me to greet? Anyone?"},
    "schema-pass": {"output": '{"to": "Ada", "count": 2}'},
    "schema-fail": {"output": '{"to": 5}'},
    "schema-not-json": {"output": "Sure! Here is your JSON:"},
    "second-of-two-fails": {"output": "Hello and welcome"},
}


def test_each_assertion_kind_passes_and_fails_on_the_output(pytester: pytest.Pytester) -> None:
    result, outcomes = _run_skill(pytester, _ASSERTION_CASES, _ASSERTION_SCRIPT)
    statuses = {name: o["status"] for name, o in outcomes.items()}
    assert statuses == {
        "contains-pass": "passed",
        "contains-fail": "failed",
        "not-contains-pass": "passed",
        "not-contains-fail": "failed",
        "regex-pass": "passed",
        "regex-fail": "failed",
        "equals-pass-after-strip": "passed",
        "equals-fail": "failed",
        "schema-pass": "passed",
        "schema-fail": "failed",
        "schema-not-json": "failed",
        "second-of-two-fails": "failed",
    }
    result.assert_outcomes(passed=5, failed=7)
    assert result.ret == 1

    evidence = {name: _checks(o, "assertion") for name, o in outcomes.items()}
    assert evidence["contains-fail"]["contains[0]"] == (
        False,
        '"Goodbye" does not appear in the output: "Hello, Ada!"',
    )
    assert evidence["not-contains-fail"]["not_contains[0]"][1].startswith(
        '"secret" appears at character 4'
    )
    assert "found no match in the output" in evidence["regex-fail"]["regex[0]"][1]
    assert evidence["regex-pass"]["regex[0]"][0] is True
    assert 'matched "order 1234"' in evidence["regex-pass"]["regex[0]"][1]
    assert evidence["equals-pass-after-strip"]["equals[0]"] == (
        True,
        'the stripped output equals "Hello! Who would you like me to greet?"',
    )
    assert evidence["equals-fail"]["equals[0]"][1].startswith("expected exactly")
    assert evidence["schema-pass"]["json-schema[0]"][0] is True
    assert evidence["schema-fail"]["json-schema[0]"][1].startswith("schema violation at $.to")
    assert evidence["schema-not-json"]["json-schema[0]"][1].startswith("not valid JSON")
    # Positional ids: the second entry is regex[1], and only it failed.
    assert _verdicts(outcomes["second-of-two-fails"], "assertion") == {
        "contains[0]": True,
        "regex[1]": False,
    }

    text = result.stdout.str()
    assert "Traceback" not in text
    result.stdout.fnmatch_lines(
        [
            "*scoring :: second-of-two-fails (scripted)*",
            "assertion: 1/2 checks held; failed: regex[[]1[]]",
            "  regex[[]1[]]: /bye$/ found no match in the output: *",
            "output: Hello and welcome",
        ]
    )


_TRAJECTORY_CASES = (
    """
cases:
  - name: all-rules-hold
    task: t"""
    + _TOOLS
    + """
    trajectory:
      called: [lookup, refund]
      forbidden: [notify]
      order: [lookup, refund]
      max_calls: 3
      call_args:
        - tool: lookup
          contains: {order_id: "1"}
          every: true
        - tool: refund
          equals: {order_id: "1", amount: 5}
  - name: called-missing
    task: t
    tools: *tools
    trajectory:
      called: [lookup]
  - name: forbidden-called
    task: t
    tools: *tools
    trajectory:
      forbidden: [notify]
  - name: out-of-order
    task: t
    tools: *tools
    trajectory:
      order: [lookup, refund]
  - name: too-many-calls
    task: t
    tools: *tools
    trajectory:
      max_calls: 2
  - name: args-contains-and-equals
    task: t
    tools: *tools
    trajectory:
      call_args:
        - tool: refund
          contains: {order_id: "1"}
        - tool: refund
          equals: {order_id: "1"}
        - tool: lookup
          contains: {order_id: "9"}
  - name: args-every
    task: t
    tools: *tools
    trajectory:
      call_args:
        - tool: lookup
          contains: {order_id: "1"}
        - tool: lookup
          contains: {order_id: "1"}
          every: true
  - name: raw-arguments
    task: t
    tools: *tools
    trajectory:
      call_args:
        - tool: lookup
          contains: {order_id: "1"}
        - tool: lookup
          equals: {_raw: '{"order_id": "1"'}
"""
)

_TRAJECTORY_SCRIPT: dict[str, dict[str, Any]] = {
    "all-rules-hold": {
        "output": "refunded",
        "tool_calls": [
            ["lookup", {"order_id": "1"}],
            ["refund", {"order_id": "1", "amount": 5}],
            ["lookup", {"order_id": "1"}],
        ],
    },
    "called-missing": {"output": "I did nothing"},
    "forbidden-called": {"output": "told them", "tool_calls": [["notify", {"text": "hi"}]]},
    "out-of-order": {
        "output": "oops",
        "tool_calls": [["refund", {"order_id": "1", "amount": 5}], ["lookup", {"order_id": "1"}]],
    },
    "too-many-calls": {
        "output": "busy",
        "tool_calls": [["lookup", {"order_id": str(n)}] for n in range(3)],
    },
    "args-contains-and-equals": {
        "output": "refunded",
        "tool_calls": [
            ["lookup", {"order_id": "1"}],
            ["refund", {"order_id": "1", "amount": 5}],
        ],
    },
    "args-every": {
        "output": "looked twice",
        "tool_calls": [["lookup", {"order_id": "1"}], ["lookup", {"order_id": "2"}]],
    },
    "raw-arguments": {
        "output": "garbled",
        "tool_calls": [["lookup", {"_raw": '{"order_id": "1"'}]],
    },
}


def test_each_trajectory_rule_passes_and_fails_on_the_tool_calls(
    pytester: pytest.Pytester,
) -> None:
    result, outcomes = _run_skill(pytester, _TRAJECTORY_CASES, _TRAJECTORY_SCRIPT)
    verdicts = {name: _verdicts(o, "trajectory") for name, o in outcomes.items()}
    assert verdicts == {
        "all-rules-hold": {
            "called:lookup": True,
            "called:refund": True,
            "forbidden:notify": True,
            "order": True,
            "max_calls": True,
            "call_args[0]": True,
            "call_args[1]": True,
        },
        "called-missing": {"called:lookup": False},
        "forbidden-called": {"forbidden:notify": False},
        "out-of-order": {"order": False},
        "too-many-calls": {"max_calls": False},
        # contains ignores the extra amount; equals does not.
        "args-contains-and-equals": {
            "call_args[0]": True,
            "call_args[1]": False,
            "call_args[2]": False,
        },
        # One matching call is enough, unless every call must match.
        "args-every": {"call_args[0]": True, "call_args[1]": False},
        # Unparsed arguments kept under _raw never match, not even an equals naming _raw.
        "raw-arguments": {"call_args[0]": False, "call_args[1]": False},
    }
    statuses = {name: o["status"] for name, o in outcomes.items()}
    assert statuses == {
        name: "passed" if name == "all-rules-hold" else "failed" for name in statuses
    }
    result.assert_outcomes(passed=1, failed=7)

    evidence = {name: _checks(o, "trajectory") for name, o in outcomes.items()}
    assert evidence["called-missing"]["called:lookup"][1] == (
        "lookup was never called; no tool was called"
    )
    assert evidence["forbidden-called"]["forbidden:notify"][1].startswith("notify was called once")
    assert evidence["out-of-order"]["order"][1].startswith("expected lookup -> refund")
    assert evidence["too-many-calls"]["max_calls"][1].startswith(
        "3 tool calls, over the limit of 2"
    )
    assert "kept under _raw" in evidence["raw-arguments"]["call_args[0]"][1]

    # The failure text shows the calls the agent made, in order, with their arguments.
    result.stdout.fnmatch_lines(
        [
            "*scoring :: out-of-order (scripted)*",
            "trajectory: 0/1 checks held; failed: order",
            "  order: expected lookup -> refund*",
            "output: oops",
            "tool calls:",
            '  refund(order_id="1", amount=5)',
            '  lookup(order_id="1")',
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_third_party_runner_is_not_held_to_declared_tool_names(
    pytester: pytest.Pytester,
) -> None:
    # The declared-name rule is for runners that know every tool the agent has (fake and
    # the framework runners); a conftest's runner may have tools no eval file lists, so a
    # name nobody declared runs, and a misspelt one fails called: as never called.
    cases = """
    cases:
      - name: own-tools
        task: t
        trajectory:
          called: [Bash, lookup_ordr]
    """
    script = {"own-tools": {"output": "ok", "tool_calls": [["Bash", {"command": "ls"}]]}}

    result, outcomes = _run_skill(pytester, cases, script)

    assert result.ret == 1
    assert "authoring error" not in result.stdout.str()
    assert _checks(outcomes["own-tools"], "trajectory") == {
        "called:Bash": (True, "Bash was called once, first as call #1"),
        "called:lookup_ordr": (False, "lookup_ordr was never called; calls made: Bash"),
    }


_BUDGET_CASES = """
cases:
  - name: at-the-limit
    task: t
    budget: {max_tokens: 100, max_cost_usd: 0.01, max_latency_ms: 250}
  - name: over-the-limit
    task: t
    budget: {max_tokens: 100, max_cost_usd: 0.01, max_latency_ms: 250}
  - name: usage-not-reported
    task: t
    budget: {max_tokens: 1000, max_latency_ms: 250}
  - name: cost-not-priced
    task: t
    budget: {max_tokens: 1000, max_cost_usd: 1.0}
"""

_BUDGET_SCRIPT: dict[str, dict[str, Any]] = {
    "at-the-limit": {
        "output": "ok",
        "input_tokens": 60,
        "output_tokens": 40,
        "cost_usd": 0.01,
        "latency_ms": 250.0,
    },
    "over-the-limit": {
        "output": "ok",
        "input_tokens": 60,
        "output_tokens": 41,
        "cost_usd": 0.0101,
        "latency_ms": 250.5,
    },
    "usage-not-reported": {
        "output": "ok",
        "latency_ms": 10.0,
        "usage_note": "the provider reported no token usage",
    },
    "cost-not-priced": {
        "output": "ok",
        "input_tokens": 10,
        "output_tokens": 10,
        "cost_note": "no price is known for model acme-1",
    },
}


def test_budget_limits_hold_at_the_limit_and_fail_over_it(pytester: pytest.Pytester) -> None:
    result, outcomes = _run_skill(pytester, _BUDGET_CASES, _BUDGET_SCRIPT)
    assert outcomes["at-the-limit"]["status"] == "passed"
    assert _verdicts(outcomes["at-the-limit"], "budget") == {
        "max_tokens": True,
        "max_cost_usd": True,
        "max_latency_ms": True,
    }
    over = outcomes["over-the-limit"]
    assert over["status"] == "failed"
    assert _checks(over, "budget") == {
        "max_tokens": (False, "used 101 tokens, limit is 100"),
        "max_cost_usd": (False, "cost $0.0101, limit is $0.01"),
        "max_latency_ms": (False, "took 250.5 ms, limit is 250 ms"),
    }
    assert over["tokens"] == 101 and over["cost_usd"] == 0.0101 and over["latency_ms"] == 250.5
    result.stdout.fnmatch_lines(
        [
            "*scoring :: over-the-limit (scripted)*",
            "budget: max_tokens exceeded, max_cost_usd exceeded, max_latency_ms exceeded",
            "  max_tokens: used 101 tokens, limit is 100",
        ]
    )


def test_unmeasured_usage_or_cost_fails_its_limit_as_not_evaluated(
    pytester: pytest.Pytester,
) -> None:
    result, outcomes = _run_skill(pytester, _BUDGET_CASES, _BUDGET_SCRIPT)
    usage = outcomes["usage-not-reported"]
    assert usage["status"] == "failed"
    assert usage["usage_note"] == "the provider reported no token usage"
    assert _checks(usage, "budget") == {
        "max_tokens": (
            False,
            "token budget not evaluated: the provider reported no token usage",
        ),
        "max_latency_ms": (True, "took 10 ms, limit is 250 ms"),
    }
    cost = outcomes["cost-not-priced"]
    assert cost["status"] == "failed"
    assert cost["cost_note"] == "no price is known for model acme-1"
    assert _checks(cost, "budget") == {
        "max_tokens": (True, "used 20 tokens, limit is 1000"),
        "max_cost_usd": (
            False,
            "cost budget not evaluated: no price is known for model acme-1",
        ),
    }
    result.stdout.fnmatch_lines(
        [
            "*scoring :: cost-not-priced (scripted)*",
            "budget: max_tokens held, max_cost_usd not evaluated",
            "  max_cost_usd: cost budget not evaluated: no price is known for model acme-1",
        ]
    )
