"""Where a cost came from (run/models/price_source.py): made by pricing, checked at the runner seam,
written and read back strictly, printed beside the figures, and compared by the budget."""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Any

import pytest

from pytest_skill_lens.gate.record import GateResult, RunRecord, RunSettings
from pytest_skill_lens.perform.outcome import CaseIdentity, Outcome, outcome_of
from pytest_skill_lens.report.json_read import ReportError, read_report
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.report.junit_properties import case_properties
from pytest_skill_lens.report.markdown import totals_block
from pytest_skill_lens.report.terminal import summary_lines
from pytest_skill_lens.run.models.price_source import combined, problem
from pytest_skill_lens.run.models.pricing import ResponseUsage, total_spend
from pytest_skill_lens.run.result import RunResult, problems
from pytest_skill_lens.score.budget import BudgetEvaluator
from pytest_skill_lens.score.check import Score, ScoringContext
from pytest_skill_lens.score.judge import JudgeVerdict
from pytest_skill_lens.score.judges.keyed import spend
from pytest_skill_lens.score.shapes import verdict_problems
from pytest_skill_lens.suite.model import EvalCase

pytest.importorskip("genai_prices")

TABLE = f"genai-prices {version('genai-prices')}"
LISTED = f"list price of openai:gpt-4o-mini ({TABLE})"
LOCAL = "http://localhost:11434/v1"
SCRIPTED = "scripted: computed from word counts at nominal prices, not a price"
USAGE = [ResponseUsage("gpt-4o-mini-2024-07-18", 100, 20)]


@pytest.fixture(autouse=True)
def _no_endpoint_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


# --- pricing says which list price it used, and whether it is your endpoint -------------------


def test_a_hosted_model_at_its_own_endpoint_is_its_list_price() -> None:
    assert total_spend("openai:gpt-4o-mini", USAGE, "no usage").price_source == LISTED


def test_a_hosted_model_at_your_endpoint_may_bill_differently() -> None:
    spend = total_spend("openai:gpt-4o-mini", USAGE, "no usage", LOCAL)
    assert spend.price_source == f"{LISTED}; your endpoint may bill differently"
    assert spend.cost_usd > 0  # still the list price, now said to be one


def test_openai_base_url_is_your_endpoint_and_the_providers_own_url_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", LOCAL)
    said = total_spend("openai:gpt-4o-mini", USAGE, "no usage").price_source
    assert said == f"{LISTED}; your endpoint may bill differently"
    own = total_spend("openai:gpt-4o-mini", USAGE, "no usage", "https://api.openai.com/v1/")
    assert own.price_source == LISTED


def test_anthropic_base_url_is_your_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Anthropic SDK (under pydantic-ai and LangChain) calls ANTHROPIC_BASE_URL when
    no base_url is set: a list price there is said to be one."""
    usage = [ResponseUsage("claude-3-5-haiku-latest", 100, 20)]
    hosted = total_spend("anthropic:claude-3-5-haiku-latest", usage, "x").price_source
    assert hosted is not None and not hosted.endswith("may bill differently")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:8080")
    said = total_spend("anthropic:claude-3-5-haiku-latest", usage, "x").price_source
    assert said == f"{hosted}; your endpoint may bill differently"


def test_a_model_with_no_price_is_not_priced_and_no_response_says_nothing() -> None:
    unknown = [ResponseUsage("my-local-llama", 10, 5)]
    assert total_spend("openai:my-local-llama", unknown, "x").price_source == "not priced"
    assert total_spend("openai:gpt-4o-mini", [], "x").price_source is None


def test_several_models_in_one_run_are_each_named() -> None:
    usages = [*USAGE, ResponseUsage("gpt-4o", 10, 5)]
    said = total_spend("openai:gpt-4o-mini", usages, "x").price_source
    assert said == f"list price of openai:gpt-4o-mini, openai:gpt-4o ({TABLE})"


# --- the forms: known ones pass, anything else is refused where it enters ---------------------


@pytest.mark.parametrize(
    "value",
    [
        LISTED,
        f"{LISTED}; your endpoint may bill differently",
        "reported by the product: claude-code's total_cost_usd",
        SCRIPTED,
        "not priced",
        f"mixed: {LISTED} | not priced",
    ],
)
def test_a_known_form_is_a_price_source(value: str) -> None:
    assert problem(value) is None
    assert problems(RunResult(price_source=value)) == []


@pytest.mark.parametrize(
    "value",
    ["free", "", "list price of gpt", "scripted: a\nb", "not priced | not priced", "x" * 2000],
)
def test_anything_else_errors_the_run_naming_the_field(value: str) -> None:
    assert problem(value) is not None
    (found,) = problems(RunResult(price_source=value))
    assert found.startswith("price_source: ")


def test_a_judge_says_it_too_and_a_bad_one_is_a_malformed_verdict() -> None:
    said = spend("openai:gpt-4o-mini", USAGE, LOCAL).price_source
    assert said == f"{LISTED}; your endpoint may bill differently"
    (found,) = verdict_problems(JudgeVerdict(checks=None, price_source="on the house"))
    assert found.startswith("price_source: ")


def test_parts_of_one_run_agree_or_are_mixed() -> None:
    assert combined([LISTED, LISTED, None]) == LISTED
    assert combined([LISTED, "not priced", LISTED]) == f"mixed: {LISTED} | not priced"
    assert combined([None]) is None


def test_a_cost_with_no_word_of_its_source_is_the_runners_word() -> None:
    identity = CaseIdentity("greet", "c", "acme")
    said = outcome_of(identity, "passed", [], RunResult(cost_usd=0.5)).price_source
    assert said == "reported by runner acme, which did not say how it was priced"
    unpriced = RunResult(cost_note="no price for acme-1")
    assert outcome_of(identity, "passed", [], unpriced).price_source == "not priced"
    assert outcome_of(identity, "passed", [], RunResult()).price_source is None


# --- the reports: written, read back strictly, printed beside the figure -----------------------


def _record(source: str | None = f"{LISTED}; your endpoint may bill differently") -> Any:
    outcome = Outcome(
        skill_name="greet",
        case_name="c",
        runner="pydantic-ai",
        status="passed",
        cost_usd=0.0025,
        price_source=source,
        tokens=10,
        scores=[Score("judge", True, 1.0, "held", cost_usd=0.001, price_source=SCRIPTED)],
        nodeid="skills/greet/SKILL.md::c[pydantic-ai]",
    )
    return RunRecord(outcomes=[outcome], run=RunSettings(runners=("pydantic-ai",)))


GATE = GateResult(passed=True, exit_code=0)


def test_the_json_report_says_it_per_outcome_and_in_the_summary_and_reads_it_back() -> None:
    record = _record()
    data = json.loads(render_json(record, GATE))
    said = f"{LISTED}; your endpoint may bill differently"
    assert data["outcomes"][0]["price_source"] == said
    assert data["outcomes"][0]["scores"][0]["price_source"] == SCRIPTED
    assert data["summary"]["price_sources"] == [said]
    assert data["summary"]["judge_price_sources"] == [SCRIPTED]
    assert read_report(render_json(record, GATE)).outcomes == record.outcomes


@pytest.mark.parametrize(
    ("where", "message"),
    [
        (("outcomes", 0, "price_source"), "outcomes[0].price_source: a price source starts"),
        (("outcomes", 0, "scores", 0, "price_source"), "outcomes[0].scores[0].price_source: a"),
        (("summary", "price_sources", 0), "summary.price_sources[0]: a price source starts"),
        (("summary", "judge_price_sources", 0), "summary.judge_price_sources[0]: a price"),
    ],
)
def test_an_unknown_source_in_a_report_is_refused(where: tuple[Any, ...], message: str) -> None:
    data = json.loads(render_json(_record(), GATE))
    target = data
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = "measured, honestly"
    with pytest.raises(ReportError) as refused:
        read_report(json.dumps(data))
    assert refused.value.message.startswith(message)


def test_a_report_written_before_the_field_reads_as_no_source() -> None:
    data = json.loads(render_json(_record(), GATE))
    del data["outcomes"][0]["price_source"], data["summary"]["price_sources"]
    assert read_report(json.dumps(data)).outcomes[0].price_source is None


def test_the_summary_and_markdown_say_where_each_cost_came_from() -> None:
    said = f"{LISTED}; your endpoint may bill differently"
    lines = summary_lines(_record(), GATE)
    assert f"Cost source: {said}" in lines
    assert f"Judge cost source: {SCRIPTED}" in lines
    block = totals_block(_record()) or ""
    assert f"| Cost source | {said} |" in block
    assert f"| Judge cost source | {SCRIPTED} |" in block


def test_junit_gives_the_source_beside_the_cost() -> None:
    properties = case_properties(_record().outcomes[0])
    names = [name for name, _ in properties]
    assert names[names.index("cost_usd") + 1] == "price_source"
    said = f"{LISTED}; your endpoint may bill differently"
    assert ("price_source", said) in properties


def test_not_priced_is_said_by_the_cost_itself_not_twice() -> None:
    record = _record("not priced")
    record.outcomes[0].cost_usd, record.outcomes[0].cost_note = 0.0, "no price for acme-1"
    lines = summary_lines(record, GATE)
    assert not any(line.startswith("Cost source") for line in lines)
    assert any("Total cost: not priced" in line for line in lines)


def test_a_markdown_source_is_escaped() -> None:
    block = totals_block(_record("scripted: | **bold** <b>")) or ""
    assert "| Cost source | scripted: \\| \\*\\*bold\\*\\* \\<b\\> |" in block


# --- the budget: each limit once, with its verdict; a cost compared says its source ----------

CONTEXT = ScoringContext(runner="pydantic-ai")


def _budget(budget: dict[str, Any], **result: Any) -> Score:
    case = EvalCase.model_validate({"name": "c", "task": "t", "budget": budget})
    return BudgetEvaluator().evaluate(case, RunResult(**result), CONTEXT)


def test_each_limit_is_named_once_with_its_verdict() -> None:
    limits = {"max_tokens": 100, "max_cost_usd": 0.01, "max_latency_ms": 1000}
    unpriced = _budget(limits, input_tokens=10, latency_ms=5.0, cost_note="no price")
    assert unpriced.detail == "max_tokens held, max_cost_usd not evaluated, max_latency_ms held"
    assert not unpriced.passed and unpriced.score == 1.0
    over = _budget(limits, input_tokens=200, cost_usd=0.5, latency_ms=5.0, price_source=SCRIPTED)
    assert over.detail == "max_tokens exceeded, max_cost_usd exceeded, max_latency_ms held"


def test_a_cost_compared_says_where_it_came_from() -> None:
    said = f"{LISTED}; your endpoint may bill differently"
    result = _budget({"max_cost_usd": 0.01}, cost_usd=0.002, price_source=said)
    (check,) = result.checks
    assert check.evidence == f"cost $0.002 ({said}), limit is $0.01"
