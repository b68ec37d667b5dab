"""The REAL Gemini CLI as a judge, and a Gemini CLI run recorded and replayed, offline.

The fake runner answers the judged cases (``[fake] <skill> handled: <task>``) and
``gemini-cli`` grades them against the scripted Gemini server; a recording of a run
with a mock tool (and of a verdict) is replayed with the server closed and no
``gemini`` on PATH. Controls come in pairs: a passing verdict with a failing one, a
replay with a changed mock tool that misses.
"""

from __future__ import annotations

import json
from functools import partial

import pytest
from gemini_server import GeminiServer, function_calls, text
from product_harness import (  # noqa: F401 (fixtures)
    GEMINI_TOML,
    gemini_as_server,
    gemini_env,
    run_cases,
    stop,
    without_on_path,
)
from product_scenarios import ORDERS, ORDERS_BODY, RUBRIC, judge_score, same, verdict_text

# slow: starts the real Gemini CLI (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "gemini_env")]

# Skill "orders" under ``runner``: the outcomes by case name.
run = partial(run_cases, skill="orders", body=ORDERS_BODY, toml=GEMINI_TOML)


def test_gemini_grades_a_pass_and_a_fail_offered_no_tools_and_priced(
    pytester: pytest.Pytester, server: GeminiServer
) -> None:
    passing = verdict_text(("r1", True, "'order 1234' is named"), ("r2", True, "civil"))
    failing = verdict_text(("r1", True, "'order 1234' is named"), ("r2", False, "it is curt"))
    server.by_content["refund order 1234"] = [text(passing, usage=(300, 40))]
    server.by_content["cancel order 1234"] = [text(failing, usage=(300, 40))]
    cases = [
        {"name": "kind", "task": "refund order 1234", "judge": {"rubric": RUBRIC}},
        {"name": "curt", "task": "cancel order 1234", "judge": {"rubric": RUBRIC}},
    ]
    toml = f'judge = "gemini-cli"\n{GEMINI_TOML}'
    result, outcomes = run(pytester, "fake", cases, toml=toml)
    assert result.ret == 1, result.stdout.str()
    assert outcomes["kind"]["status"] == "passed"
    assert outcomes["curt"]["status"] == "failed"
    checks = [
        (c["id"], c["passed"], c["evidence"]) for c in judge_score(outcomes["curt"])["checks"]
    ]
    assert checks == [("r1", True, "'order 1234' is named"), ("r2", False, "it is curt")]
    score = judge_score(outcomes["kind"])
    assert score["cost_usd"] > 0 and score["price_source"].startswith("list price of google:")
    (request,) = [r for r in server.requests if "refund order 1234" in r.task]
    assert request.tool_names() == []  # the deny-all policy: nothing to act with
    assert "[fake] orders handled: refund order 1234" in request.task
    assert ".gemini/skills" not in json.dumps(request.body)  # no skill delivered to a judge


def test_a_run_with_a_mock_tool_replays_with_no_process_and_a_changed_tool_misses(
    pytester: pytest.Pytester, server: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.by_content["where is order"] = [
        function_calls([("mcp_skill-lens_get_order", {"id": "A-1"})], usage=(200, 10)),
        text("Order A-1 shipped.", usage=(250, 7), thoughts=5),
    ]
    cases = [
        {
            "name": "looks the order up",
            "task": "where is order A-1?",
            "tools": [ORDERS],
            "assertions": [{"kind": "contains", "value": "shipped"}],
            "trajectory": {"call_args": [{"tool": "get_order", "equals": {"id": "A-1"}}]},
        }
    ]
    result, recorded = run(pytester, "gemini-cli", cases, "--skill-lens-record", "once")
    assert result.ret == 0, result.stdout.str()
    first = recorded["looks the order up"]
    # Both requests summed; the 5 thought tokens are billed output.
    assert (first["input_tokens"], first["output_tokens"]) == (450, 22)
    assert first["cost_usd"] > 0
    (path,) = sorted((pytester.path / "skills" / "orders" / "evals").rglob("*.json"))
    assert "dummy" not in path.read_text(encoding="utf-8")  # the key never in a cassette

    stop(server)
    without_on_path(monkeypatch, "gemini")
    result, replayed = run(pytester, "gemini-cli", cases, "--skill-lens-record", "none")
    assert result.ret == 0, result.stdout.str()
    same(first, replayed["looks the order up"])

    changed = [{**cases[0], "tools": [{**ORDERS, "returns": "no such order"}]}]
    result, missed = run(pytester, "gemini-cli", changed, "--skill-lens-record", "none")
    assert result.ret == 1
    assert "the returns: of mock tool get_order changed" in missed["looks the order up"]["error"]


def test_a_gemini_judge_replays_its_verdict(
    pytester: pytest.Pytester, server: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = verdict_text(("r1", True, "order 1234 is named"))
    server.by_content["handled: refund order 1234"] = [text(found, usage=(30, 9))]
    cases = [{"name": "grades", "task": "refund order 1234", "judge": {"rubric": RUBRIC[:1]}}]
    toml = f'judge = "gemini-cli"\n{GEMINI_TOML}'
    result, recorded = run(pytester, "fake", cases, "--skill-lens-record", "once", toml=toml)
    assert result.ret == 0, result.stdout.str()
    first = recorded["grades"]
    assert judge_score(first)["passed"] is True

    stop(server)
    without_on_path(monkeypatch, "gemini")
    result, replayed = run(pytester, "fake", cases, "--skill-lens-record", "none", toml=toml)
    assert result.ret == 0, result.stdout.str()
    same(first, replayed["grades"])
