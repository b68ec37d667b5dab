"""Cassettes end to end: record against a scripted model server, replay with it stopped.

Each test runs pytest as a user does, ``--skill-lens-record once`` with the server up,
then ``--skill-lens-record none`` with the server shut down (its port closed), and
reads the JSON report and the cassette files. The framework runners and judges are
real (pydantic-ai, LangChain); nothing leaves the machine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("langchain_openai")
pytest.importorskip("genai_prices")

import replay_checks
import runner_e2e
from model_server import ScriptedModelServer, text, tool_calls
from replay_checks import recorded_day, recording_days
from runner_e2e import RUNNERS, case, tools_block
from runs import LensRun, Report, served_by
from skillfactory import SPY_CALLS_FILE, make_skill, spy_runner_conftest, write_file

# slow: real frameworks against a local server (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("openai_key")]

# What stays the same between a recording and its replay: a framework's retries too.
SAME = (*replay_checks.SAME, "retry_cost_usd")


@pytest.fixture
def stopped() -> Iterator[ScriptedModelServer]:
    """A server to record with inside ``with``; leaving the block stops it, port closed."""
    server = ScriptedModelServer()
    try:
        yield server
    finally:
        server._server.server_close()  # the socket is bound from the start: never left open


def lookup_case(**more: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "tools": tools_block()[:1],
        "assertions": [{"kind": "contains", "value": "45 days"}],
        "trajectory": {"called": ["lookup_order"]},
    }
    return case("looks up the order", "refund 1234", **{**fields, **more})


LOOKUP_SCRIPT = {
    "refund 1234": [
        tool_calls([("lookup_order", '{"order_id": "1234"}')]),
        text("Delivered 45 days ago, so no refund."),
    ]
}


def run(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    cases: Sequence[Mapping[str, Any]],
    mode: str,
    *args: str,
    runner: str = "pydantic-ai",
    script: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    toml: str = "retry_backoff_seconds = 0.0\n",
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    return runner_e2e.run(
        pytester,
        server,
        cases,
        script if script is not None else LOOKUP_SCRIPT,
        "--skill-lens-record",
        mode,
        *args,
        runners=[runner],
        toml=toml,
    )


def cassettes(pytester: pytest.Pytester) -> list[Path]:
    return sorted((pytester.path / "skills").rglob("cassettes/**/*.json"))


def same_figures(recorded: Mapping[str, Any], replayed: Mapping[str, Any]) -> None:
    replay_checks.same_figures(recorded, replayed, SAME)


# --- record, then replay for free ------------------------------------------------------------


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_recorded_case_replays_with_the_server_down_identically_and_for_free(
    pytester: pytest.Pytester, stopped: ScriptedModelServer, runner: str
) -> None:
    with stopped as server:
        result, recorded = run(pytester, server, [lookup_case()], "once", runner=runner)
        assert result.ret == 0, result.stdout.str()
        sent = len(server.requests)
    assert sent == 2
    first = recorded["looks up the order"]
    assert first["replayed"] is False
    (path,) = cassettes(pytester)
    assert path.parent == pytester.path / "skills" / "order-support" / "evals" / "cassettes" / (
        "order-support"
    )
    assert path.name.startswith("looks-up-the-order-") and path.name.endswith(f".{runner}.json")
    assert first["cassette"] == str(path)

    result, replayed = run(pytester, server, [lookup_case()], "none", "-v", runner=runner)

    assert result.ret == 0, result.stdout.str()
    assert len(server.requests) == sent  # nothing reached the (stopped) server
    again = replayed["looks up the order"]
    same_figures(first, again)
    assert again["replayed"] is True
    assert again["recorded_at"] in recording_days()
    assert again["cassette"] == str(path)
    result.stdout.fnmatch_lines(["*looks up the order*PASSED (replayed)*"])


# --- a change that matters is a miss naming it, and never reaches the network ----------------


def recorded(pytester: pytest.Pytester, stopped: ScriptedModelServer, runner: str) -> int:
    """Record ``lookup_case`` under ``runner``; the number of requests it took."""
    with stopped as server:
        result, _ = run(pytester, server, [lookup_case()], "once", runner=runner)
        assert result.ret == 0, result.stdout.str()
        return len(server.requests)


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_changed_skill_md_is_a_miss_naming_it(
    pytester: pytest.Pytester, stopped: ScriptedModelServer, runner: str
) -> None:
    sent = recorded(pytester, stopped, runner)
    make_skill(
        pytester.path / "skills",
        "order-support",
        [lookup_case()],
        frontmatter=runner_e2e.SKILL_FRONTMATTER,
        body="Never look anything up.\n",
    )
    write_file(pytester.path / "skill-lens.toml", "retry_backoff_seconds = 0.0\n")

    result = replay(pytester, stopped.url, runner)

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert len(stopped.requests) == sent
    error = report_of(pytester)["outcomes"][0]["error"]
    assert error.startswith("cassette miss: ")
    assert "was recorded for another version of this case: SKILL.md changed" in error
    assert "record it again with --skill-lens-record once" in error
    result.stdout.fnmatch_lines(["*SKILL.md changed*"])


def replay(
    pytester: pytest.Pytester, url: str, runner: str, *more: str, record: str = "none"
) -> pytest.RunResult:
    """Run the skills under ``runner`` against ``url`` with ``--skill-lens-record <record>``."""
    lens = LensRun(runner=runner, json="report.json")
    return lens(pytester, *served_by(url), "--skill-lens-record", record, *more)


def report_of(pytester: pytest.Pytester) -> Report:
    return Report.read(pytester.path / "report.json")


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_changed_mock_returns_is_a_miss_naming_the_tool(
    pytester: pytest.Pytester, stopped: ScriptedModelServer, runner: str
) -> None:
    sent = recorded(pytester, stopped, runner)
    tools = tools_block()[:1]
    tools[0]["returns"] = '{"id": "1234", "days_since_delivery": 3}'

    result, outcomes = run(pytester, stopped, [lookup_case(tools=tools)], "none", runner=runner)

    assert result.ret == 1
    assert len(stopped.requests) == sent
    error = outcomes["looks up the order"]["error"]
    assert "the returns: of mock tool lookup_order changed" in error
    assert "SKILL.md" not in error  # only what changed is named


def test_a_changed_check_is_no_miss_the_recording_is_scored_by_the_case_as_it_is(
    pytester: pytest.Pytester, stopped: ScriptedModelServer
) -> None:
    sent = recorded(pytester, stopped, "pydantic-ai")
    stricter = lookup_case(assertions=[{"kind": "contains", "value": "refund granted"}])

    result, outcomes = run(pytester, stopped, [stricter], "none")

    assert result.ret == 1
    result.assert_outcomes(failed=1)
    assert len(stopped.requests) == sent
    outcome = outcomes["looks up the order"]
    assert outcome["replayed"] is True and outcome["status"] == "failed"
    assert "refund granted" in result.stdout.str()


def test_replaying_only_with_no_cassette_never_calls_the_model(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    result, outcomes = run(pytester, server, [lookup_case()], "none")

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert server.requests == []  # the server was up, and nothing was sent to it
    error = outcomes["looks up the order"]["error"]
    assert error.startswith("no cassette for this case at ")
    assert "record it first with --skill-lens-record once" in error
    assert cassettes(pytester) == []  # replaying only writes nothing


@pytest.mark.parametrize("runner", RUNNERS)
def test_replaying_only_needs_no_api_key(
    pytester: pytest.Pytester,
    stopped: ScriptedModelServer,
    monkeypatch: pytest.MonkeyPatch,
    runner: str,
) -> None:
    recorded(pytester, stopped, runner)
    monkeypatch.delenv("OPENAI_API_KEY")  # LangChain's client refuses to be built without one

    result = replay(pytester, stopped.url, runner)

    assert result.ret == 0, result.stdout.str()  # no preflight refusal, no provider error
    assert report_of(pytester)["outcomes"][0]["replayed"] is True

    # Recording does need the key: the preflight says so before anything runs.
    result = replay(pytester, stopped.url, runner, record="all")
    assert result.ret == 2
    result.stderr.fnmatch_lines(["*skill-lens: *needs OPENAI_API_KEY*"])


# --- repeats, once, corrupt files ------------------------------------------------------------


@pytest.mark.parametrize("runner", RUNNERS)
def test_each_repeat_replays_its_own_sample(
    pytester: pytest.Pytester, stopped: ScriptedModelServer, runner: str
) -> None:
    script = {"greet": [text("hello"), text("good day")]}  # one reply per conversation
    cases = [case("greets", "greet")]
    with stopped as server:
        result, _ = run(
            pytester,
            server,
            cases,
            "once",
            "--skill-lens-repeat",
            "2",
            runner=runner,
            script=script,
        )
        assert result.ret == 0, result.stdout.str()
    assert [p.name.endswith(f"{runner}.json") for p in cassettes(pytester)] == [True, False]
    assert cassettes(pytester)[1].name.endswith(f"{runner}.r2.json")

    result = replay(pytester, stopped.url, runner, "--skill-lens-repeat", "2")

    assert result.ret == 0, result.stdout.str()
    outcomes = report_of(pytester)["outcomes"]
    assert [(o["repeat_index"], o["output"], o["replayed"]) for o in outcomes] == [
        (0, "hello", True),
        (1, "good day", True),
    ]


def test_once_records_only_what_is_missing(
    pytester: pytest.Pytester, stopped: ScriptedModelServer
) -> None:
    second = case("greets", "greet")
    script = {**LOOKUP_SCRIPT, "greet": [text("hello")]}
    with stopped as server:
        result, _ = run(pytester, server, [lookup_case(), second], "once", script=script)
        assert result.ret == 0, result.stdout.str()
        paths = cassettes(pytester)
        kept = {p: p.read_bytes() for p in paths}
        (greeting,) = [p for p in paths if p.name.startswith("greets-")]
        greeting.unlink()
        before = len(server.requests)

        result, outcomes = run(pytester, server, [lookup_case(), second], "once", script=script)

        assert result.ret == 0, result.stdout.str()
        new = server.requests[before:]
        assert [r.task for r in new] == ["greet"]  # only the missing case reached the model
    assert outcomes["looks up the order"]["replayed"] is True
    assert outcomes["greets"]["replayed"] is False
    assert greeting.is_file()  # recorded again
    # The replayed case's file is left exactly as it was: no churn in a pull request.
    assert all(p.read_bytes() == data for p, data in kept.items() if p != greeting)


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda text: text[: len(text) // 2], "is not valid JSON at line"),
        (
            lambda text: text.replace('"calls"', '"cals"'),
            "has the wrong shape: calls: Field required",
        ),
        (lambda text: text.replace('"cassette": 1', '"cassette": 7'), "is cassette format 7"),
        (lambda text: "", "is not valid JSON"),
    ],
    ids=["truncated", "renamed field", "other format", "empty"],
)
def test_a_corrupt_cassette_is_an_errored_case_naming_the_file_never_a_rerecording(
    pytester: pytest.Pytester, stopped: ScriptedModelServer, damage: Any, said: str
) -> None:
    sent = recorded(pytester, stopped, "pydantic-ai")
    (path,) = cassettes(pytester)
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    broken = path.read_bytes()

    for mode in ("none", "once"):
        result, outcomes = run(pytester, stopped, [lookup_case()], mode)

        assert result.ret == 1
        result.assert_outcomes(errors=1)
        error = outcomes["looks up the order"]["error"]
        assert error.startswith(f"cassette unusable: {path} ")
        assert said in error
        assert "delete it and record it again" in error
    assert len(stopped.requests) == sent
    assert path.read_bytes() == broken  # never silently recorded over


# --- judges --------------------------------------------------------------------------------

JUDGES = ["pydantic-ai", "langchain"]
RUBRIC = ["The reply names the order", "The reply gives a reason"]
VERDICT = tool_calls(
    [
        (
            "JudgeOutput",
            json.dumps(
                {
                    "checks": [
                        {"id": "r1", "passed": True, "evidence": "names 1234"},
                        {"id": "r2", "passed": True, "evidence": "45 days"},
                    ]
                }
            ),
        )
    ],
    usage=(1000, 100),
)


def judged(rubric: Sequence[str] = RUBRIC) -> dict[str, Any]:
    return lookup_case(judge={"rubric": list(rubric)})


def judged_run(
    pytester: pytest.Pytester, server: ScriptedModelServer, judge: str, mode: str, *more: str
) -> tuple[pytest.RunResult, dict[str, Any]]:
    server.by_content.update({"Delivered 45 days ago": [VERDICT]})  # the judge's prompt
    result, outcomes = runner_e2e.run(
        pytester,
        server,
        [judged(*more)] if more else [judged()],
        LOOKUP_SCRIPT,
        "--skill-lens-record",
        mode,
        runners=["pydantic-ai"],
        toml=f'judge = "{judge}"\nretry_backoff_seconds = 0.0\n',
    )
    return result, outcomes["looks up the order"]


@pytest.mark.parametrize("judge", JUDGES)
def test_a_judges_verdict_replays_with_its_recorded_cost(
    pytester: pytest.Pytester, stopped: ScriptedModelServer, judge: str
) -> None:
    with stopped as server:
        result, first = judged_run(pytester, server, judge, "once")
        assert result.ret == 0, result.stdout.str()
        sent = len(server.requests)
    assert sent == 3  # two for the run, one for the verdict
    (path,) = cassettes(pytester)
    seats = [c["seat"] for c in json.loads(path.read_text(encoding="utf-8"))["calls"]]
    assert seats == ["runner", "judge"]

    result, again = judged_run(pytester, stopped, judge, "none")

    assert result.ret == 0, result.stdout.str()
    assert len(stopped.requests) == sent
    same_figures(first, again)
    (score,) = [s for s in again["scores"] if s["evaluator"] == "judge"]
    assert score["cost_usd"] > 0 and score["checks"][1]["evidence"] == "45 days"
    assert again["replayed"] is True and again["replayed_calls"] == 2


def test_a_changed_rubric_under_once_grades_again_and_replays_the_run(
    pytester: pytest.Pytester, stopped: ScriptedModelServer
) -> None:
    with stopped as server:
        result, _ = judged_run(pytester, server, "pydantic-ai", "once")
        assert result.ret == 0, result.stdout.str()
        before = len(server.requests)

        result, again = judged_run(
            pytester, server, "pydantic-ai", "once", ["The reply names the order", "It is kind"]
        )

        assert result.ret == 0, result.stdout.str()
        new = server.requests[before:]
    assert len(new) == 1 and new[0].task != "refund 1234"  # the verdict alone, asked again
    assert again["replayed"] is False and again["replayed_calls"] == 1  # partly replayed
    assert again["replayed_usd"] == pytest.approx(again["cost_usd"])  # the run's, not new
    (path,) = cassettes(pytester)
    calls = json.loads(path.read_text(encoding="utf-8"))["calls"]
    assert [c["seat"] for c in calls] == ["runner", "judge"]

    result, _ = judged_run(
        pytester, stopped, "pydantic-ai", "none", ["The reply names the order", "It is kind"]
    )
    assert result.ret == 0, result.stdout.str()


def test_a_changed_rubric_under_none_is_a_miss_naming_the_judge_block(
    pytester: pytest.Pytester, stopped: ScriptedModelServer
) -> None:
    with stopped as server:
        judged_run(pytester, server, "pydantic-ai", "once")
        sent = len(server.requests)

    result, outcome = judged_run(pytester, stopped, "pydantic-ai", "none", ["Only this"])

    assert result.ret == 1
    assert len(stopped.requests) == sent
    assert "the judge: block changed" in outcome["error"]


# --- honesty: spend, secrets, every report ------------------------------------------------------


def test_replayed_spend_is_reported_and_counts_as_no_new_spend_against_the_ceiling(
    pytester: pytest.Pytester, stopped: ScriptedModelServer
) -> None:
    with stopped as server:
        judged_run(pytester, server, "pydantic-ai", "once")
    ceiling = "0.0000001"  # below what one recorded case cost

    result, outcome = judged_run(pytester, stopped, "pydantic-ai", "none")
    result = replay(pytester, stopped.url, "pydantic-ai", "--skill-lens-max-spend", ceiling)

    report = report_of(pytester)
    assert result.ret == 0, result.stdout.str()  # nothing refused, nothing unpriced
    (replayed,) = report["outcomes"]
    assert replayed["replayed"] is True
    assert replayed["cost_usd"] == outcome["cost_usd"] > 0  # reported as recorded
    assert report["spend_ceiling"]["spent_usd"] == 0  # of it, nothing is new
    assert report["summary"]["replay"]["replayed"] == 1
    assert report["summary"]["replay"]["oldest_recorded_at"] in recording_days()


def test_no_key_header_or_timestamp_reaches_a_cassette(
    pytester: pytest.Pytester, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-0123456789abcdef-SECRET"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    server.by_content.update({"Delivered 45 days ago": [VERDICT]})

    for runner in RUNNERS:
        server._served.clear()  # each runner's conversation starts from the script's top
        toml = f'judge = "{runner}"\n'
        result, _ = run(pytester, server, [judged()], "once", runner=runner, toml=toml)
        assert result.ret == 0, result.stdout.str()

    assert server.requests[0].headers["authorization"] == f"Bearer {secret}"  # it was sent
    files = cassettes(pytester)
    assert len(files) == 2
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert secret not in text and "Bearer" not in text and "authorization" not in text
        assert str(server.port) not in text  # the endpoint is in the key only as a digest
        assert "T" not in "".join(c["recorded_at"] for c in json.loads(text)["calls"])
        assert '"timestamp"' not in text and '"run_id"' not in text


def test_every_report_marks_the_replayed_outcome(
    pytester: pytest.Pytester, stopped: ScriptedModelServer
) -> None:
    recorded(pytester, stopped, "pydantic-ai")
    failing = lookup_case(assertions=[{"kind": "contains", "value": "refund granted"}])

    result, _ = run(
        pytester,
        stopped,
        [failing],
        "none",
        "--junitxml",
        "junit.xml",
        "--skill-lens-markdown",
        "summary.md",
        "-v",
    )

    assert result.ret == 1
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    day, when = recorded_day(junit)
    result.stdout.fnmatch_lines(
        [
            "*looks up the order*FAILED (replayed)*",
            f"Replayed: 1 of 1 outcome(s) from cassettes, the oldest recorded {day} ({when}); "
            "their output, latency and spend are the recording's*",
        ]
    )
    assert '<property name="replayed" value="True"' in junit
    assert '<property name="cassette" value="' in junit
    markdown = (pytester.path / "summary.md").read_text(encoding="utf-8")
    assert "> ⏪ Replayed: 1 of 1 outcome(s) from cassettes" in markdown
    assert f"— failed (replayed, recorded {day})" in markdown


def test_without_the_flag_no_cassette_is_read_or_written(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    result, outcomes = runner_e2e.run(
        pytester, server, [lookup_case()], LOOKUP_SCRIPT, runners=["pydantic-ai"]
    )

    assert result.ret == 0, result.stdout.str()
    assert cassettes(pytester) == []
    outcome = outcomes["looks up the order"]
    assert (outcome["cassette"], outcome["replayed"]) == (None, False)
    assert report_of(pytester)["summary"]["replay"] is None
    assert "Replayed" not in result.stdout.str()


def test_all_records_again_over_an_existing_cassette(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    run(pytester, server, [lookup_case()], "once")
    (path,) = cassettes(pytester)
    path.write_text("{not json", encoding="utf-8")  # never read under all
    before = len(server.requests)
    server._served.clear()  # the conversation starts from the script's top again

    result, outcomes = run(pytester, server, [lookup_case()], "all")

    assert result.ret == 0, result.stdout.str()
    assert len(server.requests) == before + 2
    assert outcomes["looks up the order"]["replayed"] is False
    assert json.loads(path.read_text(encoding="utf-8"))["cassette"] == 1


def test_threads_and_processes_record_each_item_to_its_own_file(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    cases = [case(f"greets {n}", f"greet {n}") for n in range(4)]
    script = {f"greet {n}": [text(f"hello {n}")] for n in range(4)}
    run(pytester, server, cases, "once", "--skill-lens-concurrency", "4", script=script)
    assert len(cassettes(pytester)) == 4

    result = replay(pytester, server.url, "pydantic-ai", "-n", "2", "-p", "xdist")

    assert result.ret == 0, result.stdout.str()
    outcomes = report_of(pytester)["outcomes"]
    assert sorted(o["output"] for o in outcomes) == [f"hello {n}" for n in range(4)]
    assert all(o["replayed"] for o in outcomes)
    assert len(server.requests) == 4


def test_a_cassettes_directory_holds_every_skills_cassettes(
    pytester: pytest.Pytester, stopped: ScriptedModelServer
) -> None:
    with stopped as server:
        result, _ = run(
            pytester, server, [lookup_case()], "once", "--skill-lens-cassettes", "tapes"
        )
        assert result.ret == 0, result.stdout.str()
    (path,) = sorted((pytester.path / "tapes").rglob("*.json"))
    assert path.parent == pytester.path / "tapes" / "order-support"
    assert cassettes(pytester) == []  # nothing beside the eval file

    result = replay(pytester, stopped.url, "pydantic-ai", "--skill-lens-cassettes", "tapes")

    assert result.ret == 0, result.stdout.str()
    assert report_of(pytester)["outcomes"][0]["replayed"] is True


def test_a_runner_that_does_not_record_is_refused_by_replay_only_before_it_runs(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "greet", [case("c", "hi")])
    write_file(pytester.path / "conftest.py", spy_runner_conftest())

    result = LensRun(runner="spy", json="report.json")(pytester, "--skill-lens-record", "none")

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert not (pytester.path / SPY_CALLS_FILE).exists()  # never called
    error = report_of(pytester)["outcomes"][0]["error"]
    assert error.startswith("runner 'spy' cannot be replayed from a cassette")

    result = LensRun(runner="spy", json="report.json")(pytester, "--skill-lens-record", "once")

    assert result.ret == 0, result.stdout.str()  # it runs live, and is never called replayed
    outcome = report_of(pytester)["outcomes"][0]
    assert (outcome["replayed"], outcome["cassette"]) == (False, None)
    assert cassettes(pytester) == []


def test_the_fake_runner_needs_no_cassette(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "greet", [case("c", "hi")])

    result = LensRun(json="report.json")(pytester, "--skill-lens-record", "none")

    assert result.ret == 0, result.stdout.str()
    assert report_of(pytester)["outcomes"][0]["replayed"] is False


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_replay_writes_the_workspace_again_session_by_session(
    pytester: pytest.Pytester, stopped: ScriptedModelServer, runner: str
) -> None:
    cases = [
        {
            "name": "plans then ships",
            "sessions": ["write the plan", "then ship it"],
            "workspace": {"files": {"notes.md": "start"}},
            "assertions": [
                {"kind": "contains", "file": "plan.md", "value": "step 1"},
                {"kind": "contains", "file": "shipped.md", "value": "done"},
            ],
        }
    ]
    script = {
        "write the plan": [
            tool_calls([("write_file", json.dumps({"path": "plan.md", "content": "step 1"}))]),
            text("planned"),
        ],
        "then ship it": [
            tool_calls([("read_file", json.dumps({"path": "plan.md"}))]),
            tool_calls([("write_file", json.dumps({"path": "shipped.md", "content": "done"}))]),
            text("shipped"),
        ],
    }
    with stopped as server:
        result, first = run(pytester, server, cases, "once", runner=runner, script=script)
        assert result.ret == 0, result.stdout.str()
        sent = len(server.requests)
    (path,) = cassettes(pytester)
    calls = json.loads(path.read_text(encoding="utf-8"))["calls"]
    assert [(c["seat"], len(c["exchanges"])) for c in calls] == [("runner", 2), ("runner", 3)]

    result, again = run(pytester, stopped, cases, "none", runner=runner, script=script)

    # The files the checks read were written again by the replayed tool calls.
    assert result.ret == 0, result.stdout.str()
    assert len(stopped.requests) == sent
    same_figures(first["plans then ships"], again["plans then ships"])
    assert again["plans then ships"]["replayed_calls"] == 2
