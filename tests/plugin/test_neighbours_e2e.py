"""neighbours: end to end: the skill offered among others, and which one the agent took.

The framework runners run against the scripted Chat Completions server on 127.0.0.1,
which plays an agent that reaches for a neighbour: the tests assert on what the server
was offered (one tool per skill, in the order of their names), on the verdict and its
evidence, and on ``skills_triggered`` in the JSON report. The authoring mistakes are
exit 2 before anything runs; under ``fake`` it is wiring only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

from model_server import ScriptedModelServer, text, tool_calls
from skillfactory import QUIET_PLUGINS, make_skill, scripted_runner_conftest, write_file

REFUND = "I want a refund for order 1234"
PARCEL = "Where is my parcel?"
EGYPT = "What's the capital of Egypt?"
NEIGHBOURS = ["../../neighbours/*"]


def offered(name: str, task: str, expected: bool, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "mode": "offered",
        "task": task,
        "neighbours": NEIGHBOURS,
        "trajectory": {"skill_triggered": expected},
        **more,
    }


def write_suite(pytester: pytest.Pytester, cases: Sequence[Mapping[str, Any]]) -> None:
    """Skill ``refunds`` under skills/, its neighbours outside the collected root."""
    make_skill(pytester.path / "skills", "refunds", cases, body="Refund within 30 days.\n")
    for name, about in (("shipping", "Tracks parcels."), ("billing", "Explains invoices.")):
        frontmatter = f"name: {name}\ndescription: {about}\n"
        make_skill(pytester.path / "neighbours", name, frontmatter=frontmatter, body=f"{name}!\n")
    write_file(pytester.path / "skill-lens.toml", "retry_backoff_seconds = 0.0\n")


def outcomes(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    data = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    return {o["case_name"]: o for o in data["outcomes"]}


def trigger_check(outcome: Mapping[str, Any]) -> tuple[bool, str]:
    (score,) = [s for s in outcome["scores"] if s["evaluator"] == "trajectory"]
    (check,) = [c for c in score["checks"] if c["id"] == "skill_triggered"]
    return check["passed"], check["evidence"]


def run_fake(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--skill-lens", "skills", "--skill-lens-json", "report.json", *QUIET_PLUGINS, *args
    )


# --- authoring: exit 2 before anything runs -----------------------------------------------------


def test_neighbours_on_a_loaded_case_is_an_authoring_error(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [{"name": "plain", "task": REFUND, "neighbours": ["../x"]}])

    result = run_fake(pytester)

    assert result.ret == 2
    result.stdout.fnmatch_lines(
        [
            "*cases.yaml:*case 'plain'*field 'neighbours'*neighbours needs mode: offered*",
            "*fix: add mode: offered, or drop neighbours*",
        ]
    )
    assert "matches nothing" not in result.stdout.str()  # one mistake, said once


def test_a_neighbour_that_is_no_skill_is_an_authoring_error_naming_it(
    pytester: pytest.Pytester,
) -> None:
    case = offered("reaches", REFUND, True)
    case["neighbours"] = ["../../neighbours/shipping", "../../docs"]
    write_suite(pytester, [case])
    (pytester.path / "docs").mkdir()

    result = run_fake(pytester)

    assert result.ret == 2
    result.stdout.fnmatch_lines(
        [
            "*cases.yaml:*case 'reaches'*field 'neighbours[[]1[]]'*'../../docs' names *docs, "
            "which holds no SKILL.md*",
        ]
    )
    result.stdout.fnmatch_lines(["*Run aborted*"])


def test_a_runner_that_cannot_say_which_skill_it_took_errors_the_case(
    pytester: pytest.Pytester,
) -> None:
    # A third-party runner that reports skill_triggered but not skills_triggered: a
    # neighbour it may have loaded is unknown, so the negative control is not measured.
    write_suite(pytester, [offered("leaves", EGYPT, False)])
    step = {"output": "Cairo.", "skill_triggered": False}
    write_file(pytester.path / "conftest.py", scripted_runner_conftest({"leaves": step}))

    result = run_fake(pytester, "--skill-lens-runner", "scripted")

    result.assert_outcomes(errors=1)
    outcome = outcomes(pytester)["leaves"]
    assert outcome["status"] == "errored"
    assert outcome["error"] == (
        "runner 'scripted' reported no skills_triggered for this case with neighbours: "
        "(it does not support neighbours)"
    )


# --- fake: wiring only ---------------------------------------------------------------------------


def test_under_fake_nothing_is_triggered_and_the_json_says_so(pytester: pytest.Pytester) -> None:
    write_suite(pytester, [offered("reaches", REFUND, True), offered("leaves", EGYPT, False)])

    result = run_fake(pytester)

    assert result.ret == 1
    result.assert_outcomes(passed=1, failed=1)
    found = outcomes(pytester)
    assert found["reaches"]["skills_triggered"] == [] and found["leaves"]["skills_triggered"] == []
    assert (found["reaches"]["trigger_expected"], found["leaves"]["trigger_expected"]) == (
        True,
        False,
    )


# --- framework runners against the scripted server -----------------------------------------------


@pytest.fixture(params=["pydantic-ai", "langchain"])
def runner(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run_framework(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    runner: str,
    script: Mapping[str, Sequence[Mapping[str, Any]]],
) -> pytest.RunResult:
    server.script.update({task: list(replies) for task, replies in script.items()})
    return pytester.runpytest(
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        runner,
        "--skill-lens-base-url",
        server.url,
        "--skill-lens-model",
        "openai:gpt-4o-mini",
        "--skill-lens-json",
        "report.json",
        *QUIET_PLUGINS,
    )


@pytest.mark.slow
@pytest.mark.usefixtures("openai_key")
def test_a_neighbour_taking_the_case_fails_it_naming_the_neighbour(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    write_suite(
        pytester,
        [
            offered("reaches for refunds", REFUND, True),
            offered("routes a parcel elsewhere", PARCEL, False),
            offered("leaves egypt alone", EGYPT, False),
        ],
    )
    script = {
        REFUND: [tool_calls([("shipping", "{}")]), text("Your parcel is on its way.")],
        PARCEL: [tool_calls([("shipping", "{}")]), text("It is on its way.")],
        EGYPT: [text("Cairo.")],
    }

    result = run_framework(pytester, server, runner, script)

    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(passed=1, failed=2)
    found = outcomes(pytester)
    refund = found["reaches for refunds"]
    assert (refund["status"], refund["skill_triggered"], refund["skills_triggered"]) == (
        "failed",
        False,
        ["shipping"],
    )
    assert trigger_check(refund) == (
        False,
        "the agent loaded the neighbour 'shipping' instead; the agent did not load the skill; "
        "expected to load it",
    )
    parcel = found["routes a parcel elsewhere"]
    assert parcel["status"] == "failed" and parcel["skills_triggered"] == ["shipping"]
    assert trigger_check(parcel)[1].startswith("the agent loaded the neighbour 'shipping';")
    egypt = found["leaves egypt alone"]
    assert (egypt["status"], egypt["skills_triggered"]) == ("passed", [])
    # Every skill offered as a tool of its own, in the order of the names, the skill's
    # own not first; calling the neighbour answers with the neighbour's instructions.
    first, second = server.for_task(REFUND)
    assert [(t["function"]["name"], t["function"]["description"]) for t in first.body["tools"]] == [
        ("billing", "Explains invoices."),
        ("refunds", "The refunds test skill."),
        ("shipping", "Tracks parcels."),
    ]
    (answer,) = second.messages("tool")
    assert answer["content"] == "# shipping\n\nshipping!"
    result.stdout.fnmatch_lines(["*loaded the neighbour 'shipping' instead*"])
    # The suite's confusion matrix: written for x taken first, and the pair that confuses.
    triggering = json.loads((pytester.path / "report.json").read_text())["triggering"]
    assert triggering["labels"] == ["refunds", "shipping", "none"]
    assert triggering["cells"] == [
        {"written_for": "refunds", "took": "shipping", "runs": 1},
        {"written_for": "none", "took": "shipping", "runs": 1},
        {"written_for": "none", "took": "none", "runs": 1},
    ]
    rates = {s["skill_name"]: s for s in triggering["skills"]}
    assert rates["refunds"]["recall"]["estimate"] == 0.0 and rates["refunds"]["precision"] is None
    assert rates["shipping"]["precision"]["estimate"] == 0.0
    result.stdout.fnmatch_lines(
        [
            "Triggering among neighbours (candidate arm): 3 run(s) over 2 skill(s)",
            "  refunds: precision none counted, recall 0% (0/1, 95% interval [[]0%, 79%[]])",
            "    refunds <-> shipping: 1 run(s); shipping took 1 written for refunds, *",
        ]
    )


@pytest.mark.slow
@pytest.mark.usefixtures("openai_key")
def test_the_placebo_arm_is_offered_the_same_neighbours(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    write_suite(pytester, [offered("reaches for refunds", REFUND, True)])
    server.script[REFUND] = [text("Please contact support."), text("Please contact support.")]

    result = pytester.runpytest(
        *("--skill-lens", "skills", "--skill-lens-runner", "pydantic-ai"),
        *("--skill-lens-base-url", server.url, "--skill-lens-model", "openai:gpt-4o-mini"),
        *("--skill-lens-baseline", "placebo", *QUIET_PLUGINS),
    )

    assert result.ret == 1, result.stdout.str()
    candidate, placebo = server.for_task(REFUND)
    offered_tools = [[t["function"]["name"] for t in r.body["tools"]] for r in (candidate, placebo)]
    # The placebo keeps the skill's name, so the same three tools are offered in both arms.
    assert offered_tools == [["billing", "refunds", "shipping"]] * 2
    descriptions = [
        {t["function"]["description"] for t in r.body["tools"]} for r in (candidate, placebo)
    ]
    assert {"Tracks parcels.", "Explains invoices."} <= descriptions[1]
    assert "The refunds test skill." not in descriptions[1]


# --- skill-lens.toml: neighbours = "suite" or a list, for every offered case -------------------


def write_siblings(
    pytester: pytest.Pytester, cases: Sequence[Mapping[str, Any]], toml: str
) -> None:
    """Skill refunds with ``cases``, shipping and billing beside it under skills/, no cases."""
    make_skill(pytester.path / "skills", "refunds", cases, body="Refund within 30 days.\n")
    for name, about in (("shipping", "Tracks parcels."), ("billing", "Explains invoices.")):
        make_skill(
            pytester.path / "skills", name, frontmatter=f"name: {name}\ndescription: {about}\n"
        )
    write_file(pytester.path / "skill-lens.toml", "retry_backoff_seconds = 0.0\n" + toml)


def plain_offered(name: str, task: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "mode": "offered", "task": task, **more}


@pytest.mark.slow
@pytest.mark.usefixtures("openai_key")
@pytest.mark.parametrize("toml", ['neighbours = "suite"\n', 'neighbours = ["skills/*"]\n'])
def test_the_config_offers_the_suite_to_every_offered_case_without_neighbours_of_its_own(
    pytester: pytest.Pytester, server: ScriptedModelServer, toml: str
) -> None:
    cases = [
        plain_offered("from the config", REFUND, trajectory={"skill_triggered": True}),
        plain_offered("opted out", PARCEL, neighbours=[], trajectory={"skill_triggered": False}),
        {"name": "loaded", "task": EGYPT},
    ]
    write_siblings(pytester, cases, toml)
    server.script[REFUND] = [tool_calls([("billing", "{}")]), text("Here is your invoice.")]
    server.script[PARCEL] = [text("On its way.")]
    server.script[EGYPT] = [text("Cairo.")]

    result = run_framework(pytester, server, "pydantic-ai", {})

    assert result.ret == 1, result.stdout.str()
    found = outcomes(pytester)
    assert found["from the config"]["skills_triggered"] == ["billing"]
    assert trigger_check(found["from the config"])[1].startswith(
        "the agent loaded the neighbour 'billing' instead;"
    )
    assert found["opted out"]["status"] == "passed"
    (config_case,) = server.for_task(REFUND)[:1]
    (opted_out,) = server.for_task(PARCEL)
    (loaded,) = server.for_task(EGYPT)
    names = [
        [t["function"]["name"] for t in r.body.get("tools", [])]
        for r in (config_case, opted_out, loaded)
    ]
    assert names == [["billing", "refunds", "shipping"], ["refunds"], []]


def test_the_suite_with_a_skill_that_has_no_description_is_an_authoring_error(
    pytester: pytest.Pytester,
) -> None:
    write_siblings(pytester, [plain_offered("reaches", REFUND)], 'neighbours = "suite"\n')
    make_skill(pytester.path / "skills", "silent", frontmatter="name: silent\n")

    result = run_fake(pytester)

    assert result.ret == 2
    result.stdout.fnmatch_lines(
        [
            "*skill-lens.toml, case 'reaches', field 'neighbours': the neighbour 'silent' has "
            "no description*",
        ]
    )


def test_a_config_neighbour_that_is_no_skill_names_the_config_file(
    pytester: pytest.Pytester,
) -> None:
    write_siblings(pytester, [plain_offered("reaches", REFUND)], 'neighbours = ["nowhere"]\n')

    result = run_fake(pytester)

    assert result.ret == 2
    result.stdout.fnmatch_lines(
        ["*skill-lens.toml, field 'neighbours[[]0[]]': the neighbour 'nowhere' matches nothing*"]
    )


@pytest.mark.slow
@pytest.mark.usefixtures("openai_key")
def test_a_neighbour_called_beside_the_skill_passes_the_case_and_counts_against_it(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    # The agent calls shipping first, then refunds: the case passes on the intended skill,
    # and shipping's call is its false positive in the matrix, named in every report.
    write_suite(pytester, [offered("reaches for refunds", REFUND, True)])
    script = {
        REFUND: [tool_calls([("shipping", "{}"), ("refunds", "{}")]), text("Refund issued.")],
    }

    result = run_framework(pytester, server, runner, script)

    assert result.ret == 0, result.stdout.str()
    refund = outcomes(pytester)["reaches for refunds"]
    assert (refund["status"], refund["skills_triggered"]) == ("passed", ["shipping", "refunds"])
    assert trigger_check(refund) == (
        True,
        "the agent loaded the skill; expected to load it (it also loaded the neighbour 'shipping')",
    )
    triggering = json.loads((pytester.path / "report.json").read_text())["triggering"]
    assert triggering["cells"] == [{"written_for": "refunds", "took": "refunds", "runs": 1}]
    assert triggering["also"] == [{"written_for": "refunds", "called": "shipping", "runs": 1}]
    rates = {s["skill_name"]: s for s in triggering["skills"]}
    assert rates["refunds"]["recall"]["estimate"] == rates["refunds"]["precision"]["estimate"] == 1
    assert (rates["shipping"]["taken"], rates["shipping"]["also"]) == (0, 1)
    assert rates["shipping"]["precision"]["estimate"] == 0.0
    result.stdout.fnmatch_lines(
        [
            "  refunds: precision 100% (1/1, *), recall 100% (1/1, *)",
            "  shipping: precision 0% (0/1, 95% interval [[]0%, 79%[]]; called beside the skill "
            "taken in 1), recall none counted",
            "  Called beside the skill taken (each a false positive of the skill called):",
            "    shipping in 1 run(s) written for refunds",
        ]
    )
