"""Where each cost figure came from, said wherever the figure is read (issue 30, item 6).

A framework runner pointed at a server of one's own (``--skill-lens-base-url``) with a
hosted model's name is priced at that model's list price; the run says so, and says the
endpoint may bill differently, in the summary, the JSON (``price_source`` per outcome,
``price_sources`` in the summary), Markdown and the page; a merge keeps it. Each test runs
pytest as a user does, against the scripted Chat Completions server on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("langchain_openai")
pytest.importorskip("genai_prices")

import runner_e2e
from model_server import ScriptedModelServer, text
from runner_e2e import RUNNERS, case, checks
from runs import LensRun, Report
from skillfactory import make_skill

from pytest_skill_lens.cli import console

# slow: real framework agents against a local server, and one run of the examples
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("openai_key")]

TABLE = f"genai-prices {version('genai-prices')}"
LISTED = f"list price of openai:gpt-4o-mini ({TABLE})"
REPO = Path(__file__).resolve().parents[2]


# The endpoint is named as yours, never by its address: a URL is a setting, which may hold
# a token, and no report prints one.
CAVEAT = f"{LISTED}; your endpoint may bill differently"


def _report(pytester: pytest.Pytester, name: str = "report.json") -> Report:
    return Report.read(pytester.path / name)


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_hosted_model_at_a_base_url_is_a_list_price_your_endpoint_may_bill_otherwise(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [case("answers", "hello", budget={"max_cost_usd": 1.0})]
    result, outcomes = runner_e2e.run(
        pytester,
        server,
        cases,
        {"hello": [text("hi")]},
        "--skill-lens-markdown",
        "report.md",
        runners=[runner],
    )

    assert result.ret == 0, result.stdout.str()
    said = CAVEAT
    outcome = outcomes["answers"]
    assert outcome["cost_usd"] > 0
    assert outcome["price_source"] == said
    assert _report(pytester)["summary"]["price_sources"] == [said]
    result.stdout.fnmatch_lines(["Total tokens: 15 | Total cost: $0.0000*", f"Cost source: {said}"])
    # The budget compared a list price, and its evidence says so.
    passed, evidence = checks(outcome, "budget")["max_cost_usd"]
    assert passed and f"({said})" in evidence
    markdown = (pytester.path / "report.md").read_text(encoding="utf-8")
    assert f"| Cost source | {said} |" in markdown
    host = server.url.split("//", 1)[1].split("/", 1)[0]
    written = (pytester.path / "report.json").read_text(encoding="utf-8") + markdown
    assert host not in result.stdout.str() + written


def test_openai_base_url_from_the_environment_is_an_endpoint_of_your_own_too(
    pytester: pytest.Pytester, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    server.script["hello"] = [text("hi")]
    make_skill(pytester.path / "skills", "order-support", [case("answers", "hello")])
    result = LensRun(runner="pydantic-ai", json="report.json")(
        pytester, "--skill-lens-model", "openai:gpt-4o-mini"
    )

    assert result.ret == 0, result.stdout.str()
    (outcome,) = _report(pytester)["outcomes"]
    assert outcome["price_source"] == CAVEAT


def test_the_source_survives_a_merge_and_a_doctored_one_is_refused(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [case("answers", "hello")]
    result, _ = runner_e2e.run(
        pytester, server, cases, {"hello": [text("hi")]}, runners=["pydantic-ai"]
    )
    assert result.ret == 0, result.stdout.str()
    merged = pytester.path / "merged.json"

    assert console(["merge", str(pytester.path / "report.json"), "--json", str(merged)]) == 0

    data = _report(pytester, "merged.json")
    assert data["outcomes"][0]["price_source"] == CAVEAT
    assert data["summary"]["price_sources"] == [CAVEAT]
    data["outcomes"][0]["price_source"] = "free, trust me"
    doctored = pytester.path / "doctored.json"
    doctored.write_text(json.dumps(data), encoding="utf-8")
    assert console(["html", str(doctored), "-o", str(pytester.path / "d.html")]) == 2
    assert not (pytester.path / "d.html").exists()


def test_an_unpriced_model_names_each_budget_limit_once_with_its_verdict(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    # The line, reproduced: a local model genai-prices does not know, with three
    # limits, read "2/2 evaluated limits held; not evaluated: max_cost_usd; failed: max_cost_usd".
    budget = {"max_tokens": 1000, "max_latency_ms": 600_000, "max_cost_usd": 1.0}
    cases = [case("local model", "local", budget=budget)]
    script = {"local": [text("hi", model="my-local-llama")]}

    result, outcomes = runner_e2e.run(
        pytester, server, cases, script, runners=["pydantic-ai"], model="openai:my-local-llama"
    )

    assert result.ret == 1
    outcome = outcomes["local model"]
    assert outcome["price_source"] == "not priced"
    (budget_score,) = [s for s in outcome["scores"] if s["evaluator"] == "budget"]
    detail = "max_tokens held, max_cost_usd not evaluated, max_latency_ms held"
    assert budget_score["detail"] == detail
    result.stdout.fnmatch_lines([f"budget: {detail}"])
    assert "failed: max_cost_usd" not in result.stdout.str()


def test_the_examples_say_their_costs_are_scripted(tmp_path: Path) -> None:
    # README command 1, as a user runs it from the repository root.
    report = tmp_path / "examples.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "--skill-lens", "examples"),
            *("-p", "no:cacheprovider", "--skill-lens-json", str(report)),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    data = Report.read(report)
    scripted = "scripted: computed from word counts at nominal prices, not a price"
    assert {o["price_source"] for o in data["outcomes"]} == {scripted}
    assert data["summary"]["price_sources"] == [scripted]
    judged = [s for o in data["outcomes"] for s in o["scores"] if s["cost_usd"]]
    assert judged and {s["price_source"] for s in judged} == {scripted}
    assert data["summary"]["judge_price_sources"] == [scripted]
    assert f"Cost source: {scripted}" in done.stdout
    assert f"Judge cost source: {scripted}" in done.stdout
