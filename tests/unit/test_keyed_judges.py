"""What the framework judges share: the verdict's shape, pricing, retries, model resolution."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict
from pytest_skill_lens.score.judges.keyed import (
    NO_USAGE_NOTE,
    JudgeAttempt,
    Usage,
    judge_with_retries,
    spend,
)
from pytest_skill_lens.score.judges.output import read_output
from pytest_skill_lens.score.judges.preflight import missing_key, settings_problem
from pytest_skill_lens.score.judges.resolve import (
    judge_base_url,
    judge_model,
    judge_temperature,
)
from pytest_skill_lens.settings import Settings

# --- the structured verdict ---------------------------------------------------------------------


def test_a_verdict_reads_into_checks_and_missing_evidence_is_empty_not_unreadable() -> None:
    checks, error = read_output(
        '{"checks": [{"id": "r1", "passed": true, "evidence": "says 1234"},'
        ' {"id": "r2", "passed": true}, {"id": "r3", "passed": false, "evidence": null}]}'
    )

    assert error is None
    assert checks == [
        JudgeCheck("r1", True, "says 1234"),
        JudgeCheck("r2", True, ""),
        JudgeCheck("r3", False, ""),
    ]


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"checks": [{"id": "r1", "passed": "yes", "evidence": "x"}]}, "checks.0.passed"),
        ({"checks": [{"id": 1, "passed": True, "evidence": "x"}]}, "checks.0.id"),
        ({"checks": [], "score": 0.9}, "score: Extra inputs are not permitted"),
        ({}, "checks: Field required"),
        ('{"checks": [', "Invalid JSON"),
    ],
)
def test_a_verdict_that_does_not_fit_is_unreadable_naming_the_mismatch(
    data: Any, said: str
) -> None:
    checks, error = read_output(data)

    assert checks is None
    assert error is not None
    assert error.startswith(
        'JudgeOutputInvalid: the verdict does not fit {"checks": [{"id", "passed", "evidence"}]}: '
    )
    assert said in error


# --- pricing and retries -------------------------------------------------------------------------


def test_spend_prices_each_response_with_genai_prices() -> None:
    genai_prices = pytest.importorskip("genai_prices")
    expected = float(
        genai_prices.calc_price(
            genai_prices.Usage(input_tokens=1000, output_tokens=100),
            "gpt-4o-mini-2024-07-18",
            provider_id="openai",
        ).total_price
    )

    verdict = spend("openai:gpt-4o-mini", [Usage("gpt-4o-mini-2024-07-18", 1000, 100)])

    assert verdict.cost_usd == pytest.approx(expected)
    assert (verdict.tokens, verdict.model, verdict.cost_note) == (
        1100,
        "gpt-4o-mini-2024-07-18",
        None,
    )


def test_spend_without_usage_is_a_note_never_a_free_zero() -> None:
    verdict = spend("openai:gpt-4o-mini", [Usage("gpt-4o-mini")])

    assert (verdict.cost_usd, verdict.tokens, verdict.cost_note) == (0.0, 0, NO_USAGE_NOTE)
    assert verdict.model == "gpt-4o-mini"


def test_spend_of_an_unknown_model_is_a_note() -> None:
    pytest.importorskip("genai_prices")
    verdict = spend("openai:my-own-model", [Usage("", 10, 5)])

    assert verdict.cost_usd == 0.0
    assert (
        verdict.cost_note
        == "genai-prices has no price for model 'my-own-model' from provider 'openai'"
    )
    assert verdict.model == "my-own-model"  # the name the judge asked for, when none was served


class Busy(Exception):
    pass


def attempts(*outcomes: JudgeAttempt) -> Any:
    queue = list(outcomes)
    calls: list[int] = []

    def attempt() -> JudgeAttempt:
        calls.append(1)
        return queue.pop(0)

    attempt.calls = calls  # type: ignore[attr-defined]
    return attempt


def test_a_transient_failure_is_retried_and_every_attempt_is_paid_for() -> None:
    busy = JudgeAttempt(JudgeVerdict(None, error="Busy: 500", cost_usd=0.5, tokens=10), Busy())
    graded = JudgeAttempt(JudgeVerdict([JudgeCheck("r1", True, "x")], cost_usd=0.25, tokens=5))
    sleeps: list[float] = []

    verdict = judge_with_retries(
        attempts(busy, busy, graded),
        retries=2,
        backoff_seconds=1.0,
        transient=lambda failure: isinstance(failure, Busy),
        sleep=sleeps.append,
    )

    assert verdict.checks == [JudgeCheck("r1", True, "x")] and verdict.error is None
    assert (verdict.cost_usd, verdict.tokens) == (1.25, 25)
    assert sleeps == [1.0, 2.0]


def test_an_unreadable_verdict_or_a_lasting_failure_is_not_retried_forever() -> None:
    unreadable = JudgeAttempt(JudgeVerdict(None, error="JudgeOutputInvalid: prose"))
    call = attempts(unreadable)
    verdict = judge_with_retries(
        call, retries=2, backoff_seconds=0, transient=lambda f: True, sleep=lambda s: None
    )
    assert verdict.error == "JudgeOutputInvalid: prose"
    assert len(call.calls) == 1

    busy = JudgeAttempt(JudgeVerdict(None, error="Busy: 500"), Busy())
    call = attempts(busy, busy, busy)
    verdict = judge_with_retries(
        call, retries=2, backoff_seconds=0, transient=lambda f: True, sleep=lambda s: None
    )
    assert verdict.error == "Busy: 500"
    assert len(call.calls) == 3


def test_a_judge_bug_is_an_errored_verdict_never_an_exception() -> None:
    def attempt() -> JudgeAttempt:
        raise KeyError("boom")

    verdict = judge_with_retries(
        attempt, retries=2, backoff_seconds=0, transient=lambda f: True, sleep=lambda s: None
    )

    assert verdict.checks is None
    assert verdict.error == "the judge failed: KeyError: 'boom'"


# --- which model, which endpoint -----------------------------------------------------------------


def settings(**values: Any) -> Settings:
    return Settings.model_validate({"judge": "pydantic-ai", **values})


def test_the_judge_inherits_model_and_endpoint_together() -> None:
    s = settings(model="openai:gpt-4o", base_url="http://local:1/v1")
    assert (judge_model(s), judge_base_url(s)) == ("openai:gpt-4o", "http://local:1/v1")


def test_a_judge_with_its_own_model_does_not_inherit_the_endpoint() -> None:
    s = settings(model="openai:local", base_url="http://local:1/v1", judge_model="openai:gpt-4o")
    assert (judge_model(s), judge_base_url(s)) == ("openai:gpt-4o", "")


def test_judge_base_url_is_used_either_way() -> None:
    own = settings(judge_model="openai:gpt-4o", judge_base_url="http://judge:2/v1")
    inherited = settings(base_url="http://local:1/v1", judge_base_url="http://judge:2/v1")
    assert judge_base_url(own) == judge_base_url(inherited) == "http://judge:2/v1"


def test_judge_temperature_never_falls_back_to_temperature() -> None:
    assert judge_temperature(settings(temperature=0.9)) == 0.0
    assert judge_temperature(settings(judge_temperature=0.3)) == 0.3
    assert judge_temperature(settings(judge_temperature="unset")) is None


@pytest.mark.parametrize(
    ("judge", "values", "said"),
    [
        ("pydantic-ai", {"model": "gpt-4o"}, "is not of the form provider:name"),
        (
            "pydantic-ai",
            {"judge_model": "groq:llama", "judge_base_url": "http://x:1/v1"},
            "pydantic-ai cannot send groq: models to base_url",
        ),
        ("langchain", {"judge_model": "groq:llama"}, "serves openai: and anthropic: models"),
        ("pydantic-ai", {"judge_model": "  "}, "has a blank model"),
        ("langchain", {"judge_base_url": "ftp://x/v1"}, "judge_base_url cannot be used"),
    ],
)
def test_a_model_or_endpoint_the_judge_cannot_use_is_a_problem(
    judge: str, values: dict[str, Any], said: str
) -> None:
    problem = settings_problem(judge, settings(judge=judge, **values))

    assert problem is not None
    assert said in problem[0]


def test_the_judges_own_models_key_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    s = settings(judge_model="anthropic:claude-sonnet-4-5")

    problem = missing_key("pydantic-ai", s)

    assert problem is not None
    assert problem[0] == (
        "the judge 'pydantic-ai' needs ANTHROPIC_API_KEY for the model "
        "'anthropic:claude-sonnet-4-5', and it is not set"
    )
    assert missing_key("fake", s) is None
