"""The pipeline of one case, called directly (no pytester): run, judge, score, Outcome."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.perform import CaseIdentity, Outcome, errored_outcome, perform
from pytest_skill_lens.perform.calls import DISCARDED
from pytest_skill_lens.perform.outcome import (
    UNRECORDED_IDENTITY_FIELDS,
    UNRECORDED_RUN_FIELDS,
    outcome_of,
)
from pytest_skill_lens.perform.pipeline import TIMED_OUT
from pytest_skill_lens.run.result import Hook, RunResult, ToolCall
from pytest_skill_lens.run.workspace.workspace import Workspace
from pytest_skill_lens.score.check import Score, ScoringContext
from pytest_skill_lens.score.judge import JudgeCheck, JudgeRequest, JudgeVerdict
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill

SKILL = Skill("greet", "Greets", "Say hello.", Path("/skills/greet/SKILL.md"))
IDENTITY = CaseIdentity(
    skill_name="greet",
    case_name="hello",
    runner="stub",
    arm="baseline",
    repeat_index=1,
    nodeid="skills/greet/SKILL.md::hello[stub-baseline-r2]",
    order=7,
)
SETTINGS = Settings()
SHORT = Settings(case_timeout_seconds=0.05)
DONE = [{"kind": "contains", "value": "done"}]


def case(**fields: Any) -> EvalCase:
    return EvalCase.model_validate({"name": "hello", "task": "say hello", **fields})


class Stub:
    """A runner that answers each call with the next of ``answers`` (a value or a callable)."""

    name = "stub"

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.seen: list[tuple[Skill, EvalCase, Path | None]] = []

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        self.seen.append((skill, case, workspace))
        answer = self.answers[len(self.seen) - 1]
        return answer() if callable(answer) else answer  # type: ignore[no-any-return]


class StubJudge:
    name = "stub-judge"

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.requests: list[JudgeRequest] = []

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        self.requests.append(request)
        return self.answer() if callable(self.answer) else self.answer  # type: ignore[no-any-return]


class Fixed:
    def __init__(self, score: Score) -> None:
        self.name = score.evaluator
        self.score = score

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score:
        return self.score


def run_once(the_case: EvalCase, runner: Any, **kwargs: Any) -> Outcome:
    kwargs.setdefault("settings", SETTINGS)
    judge = kwargs.pop("judge", None)
    workspace = kwargs.pop("workspace", None)
    evaluators = kwargs.pop("evaluators", ())
    return perform(
        SKILL, the_case, runner, judge, workspace, evaluators, identity=IDENTITY, **kwargs
    )


def raising(exc: BaseException) -> Callable[[], Any]:
    def answer() -> Any:
        raise exc

    return answer


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = Workspace.create("perform", {"seed.txt": "seeded\n"}, parent=tmp_path)
    yield workspace
    workspace.cleanup()


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at teardown, so a call the deadline abandoned ends its thread."""
    event = threading.Event()
    yield event
    event.set()


# --- a run that is measured and scored -------------------------------------------------------


def test_a_passing_case_records_its_identity_and_every_figure_of_the_run() -> None:
    result = RunResult(
        output="all done",
        tool_calls=[ToolCall("lookup", {"q": 1})],
        input_tokens=10,
        output_tokens=5,
        cost_usd=0.002,
        latency_ms=120.5,
        model="acme-1",
        transcript=[{"role": "user", "content": "say hello"}],
        stop_note="stopped at the end",
        retry_cost_usd=0.001,
    )
    runner = Stub(result)

    outcome = run_once(case(assertions=DONE), runner)

    data = asdict(outcome)
    data["tool_calls"], data["hooks"] = list(data["tool_calls"]), list(data["hooks"])
    assert [s["evaluator"] for s in data.pop("scores")] == [
        "assertion",
        "trajectory",
        "budget",
        "judge",
    ]
    assert data == {
        "skill_name": "greet",
        "case_name": "hello",
        "runner": "stub",
        "status": "passed",
        "arm": "baseline",
        "repeat_index": 1,
        "baseline_kind": None,
        "output": "all done",
        "error": None,
        "tokens": 15,
        "input_tokens": 10,
        "output_tokens": 5,
        "latency_ms": 120.5,
        "cost_usd": 0.002,
        "model": "acme-1",
        "cost_note": None,
        # The stub said nothing of its cost's source, so the outcome says whose word it is.
        "price_source": "reported by runner stub, which did not say how it was priced",
        "usage_note": None,
        "stop_note": "stopped at the end",
        "retry_cost_usd": 0.001,
        "skill_triggered": None,
        "skill_triggered_by_session": None,
        "skill_loaded": None,
        "load_note": None,
        "tool_calls": [{"name": "lookup", "arguments": {"q": 1}}],
        "hooks": [],
        "workspace": None,
        "nodeid": "skills/greet/SKILL.md::hello[stub-baseline-r2]",
        "order": 7,
        "cassette": None,
        "replayed": False,
        "replayed_calls": 0,
        "replayed_usd": 0.0,
        "recorded_at": None,
        "cassette_note": None,
        "cassette_action": None,
        "skills_triggered": None,
        "trigger_expected": None,
        "reused_from": None,
        "reuse_note": None,
    }
    assert outcome.tool_calls is not result.tool_calls  # the outcome owns its lists
    assert runner.seen == [(SKILL, case(assertions=DONE), None)]


def test_a_check_that_does_not_hold_fails_the_case_with_its_evidence() -> None:
    outcome = run_once(case(assertions=DONE), Stub(RunResult(output="nope")))

    assert (outcome.status, outcome.error, outcome.output) == ("failed", None, "nope")
    assertion = outcome.scores[0]
    assert (assertion.evaluator, assertion.passed) == ("assertion", False)
    assert [(c.passed, c.evidence) for c in assertion.checks] == [
        (False, '"done" does not appear in the output: "nope"')
    ]


def test_a_kept_workspace_is_named_and_the_runner_gets_its_root(ws: Workspace) -> None:
    runner = Stub(RunResult(output="done"), RunResult(output="done"))
    kept = run_once(
        case(workspace={}), runner, workspace=ws, settings=Settings(keep_workspace=True)
    )
    dropped = run_once(case(workspace={}), runner, workspace=ws)

    assert (kept.status, kept.workspace, dropped.workspace) == ("passed", str(ws.root), None)
    assert [root for _, _, root in runner.seen] == [ws.root, ws.root]


# --- a runner that does not do its job --------------------------------------------------------


def test_a_runner_that_raises_errors_the_case_and_nothing_is_scored() -> None:
    outcome = run_once(case(assertions=DONE), Stub(raising(RuntimeError("boom"))))

    assert (outcome.status, outcome.error, outcome.scores) == (
        "errored",
        "runner 'stub' raised RuntimeError: boom",
        [],
    )
    assert (outcome.tokens, outcome.cost_usd, outcome.cost_note) == (0, 0.0, None)
    assert outcome.latency_ms >= 0


def test_a_runner_that_returns_another_type_errors_the_case_unmeasured() -> None:
    outcome = run_once(case(), Stub({"output": "done"}))

    assert (outcome.status, outcome.error) == (
        "errored",
        "runner 'stub' returned dict, not a RunResult",
    )
    assert (outcome.cost_note, outcome.usage_note) == (DISCARDED, DISCARDED)


def test_a_malformed_run_result_is_discarded_naming_the_field() -> None:
    garbage = RunResult(output="done", input_tokens="12", cost_usd=5.0)  # type: ignore[arg-type]
    outcome = run_once(case(assertions=DONE), Stub(garbage))

    assert (outcome.status, outcome.error) == (
        "errored",
        "runner 'stub' returned a malformed RunResult: "
        "input_tokens: Input should be a valid integer (got '12')",
    )
    assert (outcome.output, outcome.cost_usd, outcome.cost_note) == ("", 0.0, DISCARDED)


def test_a_runner_past_the_deadline_errors_the_case_and_the_next_case_runs(
    release: threading.Event,
) -> None:
    def hang() -> RunResult:
        release.wait(10)
        return RunResult(output="done", input_tokens=99)

    late = run_once(case(assertions=DONE), Stub(hang), settings=SHORT)
    after = run_once(case(assertions=DONE), Stub(RunResult(output="done")), settings=SHORT)

    assert (late.status, late.error) == (
        "errored",
        "runner 'stub' did not return within 0.05 s (case_timeout_seconds)",
    )
    assert (late.tokens, late.cost_note, late.usage_note) == (0, TIMED_OUT, TIMED_OUT)
    assert late.latency_ms >= 50
    assert after.status == "passed"  # a fresh act thread took over


def test_a_runner_without_a_trigger_decision_errors_an_offered_case() -> None:
    outcome = run_once(case(mode="offered"), Stub(RunResult(output="done")))

    assert (outcome.status, outcome.error) == (
        "errored",
        "runner 'stub' reported no skill-trigger decision for this mode: offered case "
        "(it does not support mode: offered)",
    )


# --- the judge ---------------------------------------------------------------------------------


JUDGED = {"judge": {"rubric": ["It says done"], "expected": "done"}}


def test_a_judge_verdict_is_scored_and_its_cost_recorded() -> None:
    verdict = JudgeVerdict([JudgeCheck("r1", True, "it says done")], cost_usd=0.01, model="j")
    judge = StubJudge(verdict)

    outcome = run_once(case(**JUDGED), Stub(RunResult(output="done")), judge=judge)

    assert outcome.status == "passed"
    score = outcome.scores[-1]
    assert (score.evaluator, score.passed, score.cost_usd) == ("judge", True, 0.01)
    assert [(c.id, c.evidence) for c in score.checks] == [("r1", "it says done")]
    assert outcome.judge_cost_usd == 0.01
    assert judge.requests == [
        JudgeRequest(["say hello"], "done", "done", [("r1", "It says done")], [])
    ]


def test_a_judge_is_not_asked_about_an_errored_run() -> None:
    judge = StubJudge(JudgeVerdict([JudgeCheck("r1", True, "x")]))

    outcome = run_once(case(**JUDGED), Stub(RunResult(error="provider down")), judge=judge)

    assert (outcome.status, outcome.error, judge.requests) == ("errored", "provider down", [])


@pytest.mark.parametrize(
    ("answer", "detail"),
    [
        (raising(ValueError("no key")), "judge failed: judge raised ValueError: no key"),
        ("PASS", "judge failed: judge returned str, not a JudgeVerdict"),
        (
            JudgeVerdict([JudgeCheck("r1", True, "x")], cost_usd=-1.0),
            "judge failed: judge 'stub-judge' returned a malformed JudgeVerdict: "
            "cost_usd: Input should be greater than or equal to 0 (got -1.0)",
        ),
    ],
)
def test_a_judge_that_cannot_grade_errors_the_case_but_the_run_is_measured(
    answer: Any, detail: str
) -> None:
    run = RunResult(output="done", input_tokens=3, output_tokens=4)

    outcome = run_once(case(**JUDGED), Stub(run), judge=StubJudge(answer))

    assert (outcome.status, outcome.error, outcome.tokens) == ("errored", None, 7)
    assert outcome.scores[-1].detail == detail


def test_a_judge_past_the_deadline_is_named_and_the_run_kept(release: threading.Event) -> None:
    def hang() -> JudgeVerdict:
        release.wait(10)
        return JudgeVerdict([JudgeCheck("r1", True, "x")])

    run = RunResult(output="done", input_tokens=3)
    outcome = run_once(case(**JUDGED), Stub(run), judge=StubJudge(hang), settings=SHORT)

    assert (outcome.status, outcome.tokens, outcome.output) == ("errored", 3, "done")
    score = outcome.scores[-1]
    assert (score.detail, score.cost_note) == (
        "judge failed: judge 'stub-judge' did not return within 0.05 s (case_timeout_seconds)",
        TIMED_OUT,
    )


# --- added evaluators ------------------------------------------------------------------------


def test_an_added_evaluator_scores_after_the_built_ins() -> None:
    words = Fixed(Score("words", False, 0.0, "too long"))

    outcome = run_once(case(), Stub(RunResult(output="done")), evaluators=[words])

    assert outcome.status == "failed"
    assert [s.evaluator for s in outcome.scores][-2:] == ["judge", "words"]
    assert outcome.scores[-1] == words.score


def test_evaluators_handed_over_lazily_are_asked_for_after_the_run() -> None:
    calls: list[str] = []

    def run() -> RunResult:
        calls.append("run")
        return RunResult(output="done")

    def supply() -> list[Fixed]:
        calls.append("evaluators")
        return [Fixed(Score("extra", True, 1.0, "ok"))]

    outcome = run_once(case(), Stub(run), evaluators=supply)

    assert (outcome.status, calls) == ("passed", ["run", "evaluators"])


def test_evaluators_that_cannot_be_handed_over_error_the_case_as_scoring() -> None:
    outcome = run_once(
        case(), Stub(RunResult(output="done")), evaluators=raising(KeyError("conftest"))
    )

    assert (outcome.status, outcome.error, outcome.scores) == (
        "errored",
        "scoring failed: KeyError: 'conftest'",
        [],
    )


# --- sessions ----------------------------------------------------------------------------------


def test_sessions_run_in_order_against_one_workspace_into_one_outcome(ws: Workspace) -> None:
    runner = Stub(
        RunResult(output="planned", tool_calls=[ToolCall("a")], input_tokens=2, cost_usd=0.1),
        RunResult(output="done", tool_calls=[ToolCall("b")], input_tokens=3, cost_usd=0.2),
    )
    sessions = case(task=None, sessions=["plan it", "do it"], workspace={}, assertions=DONE)

    outcome = run_once(sessions, runner, workspace=ws)

    assert (outcome.status, outcome.output, outcome.tokens) == ("passed", "done", 5)
    assert outcome.cost_usd == pytest.approx(0.3)
    assert [c.name for c in outcome.tool_calls] == ["a", "b"]
    assert outcome.skill_triggered_by_session == [None, None]
    assert [(one.task, root) for _, one, root in runner.seen] == [
        ("plan it", ws.root),
        ("do it", ws.root),
    ]


def test_an_errored_session_ends_the_sequence_and_errors_the_case(ws: Workspace) -> None:
    runner = Stub(RunResult(output="x", input_tokens=2), raising(OSError("gone")), None)
    sessions = case(task=None, sessions=["one", "two", "three"], workspace={})

    outcome = run_once(sessions, runner, workspace=ws)

    assert (outcome.status, outcome.error) == (
        "errored",
        "session 2 of 3: runner 'stub' raised OSError: gone",
    )
    assert (outcome.input_tokens, len(runner.seen)) == (2, 2)


# --- the Outcome's shape -------------------------------------------------------------------------


def test_an_item_that_could_not_act_is_errored_with_its_identity() -> None:
    outcome = errored_outcome(IDENTITY, "WorkspaceError: disk full")

    assert outcome == Outcome(
        skill_name="greet",
        case_name="hello",
        runner="stub",
        status="errored",
        arm="baseline",
        repeat_index=1,
        error="WorkspaceError: disk full",
        nodeid=IDENTITY.nodeid,
        order=7,
    )


def test_every_field_of_a_run_and_an_identity_is_recorded_by_name() -> None:
    run_fields = {f.name for f in fields(RunResult)}
    identity_fields = {f.name for f in fields(CaseIdentity)} - UNRECORDED_IDENTITY_FIELDS
    outcome_fields = {f.name for f in fields(Outcome)}
    recorded = (run_fields - UNRECORDED_RUN_FIELDS) | {"tokens"}

    # A field added to RunResult must be recorded under its name or declared unrecorded.
    assert recorded | identity_fields <= outcome_fields
    # What only the pipeline knows: the verdict, the kept workspace, what a cassette did.
    replay = {"replayed", "replayed_calls", "replayed_usd", "recorded_at", "cassette_note"}
    replay |= {"cassette_action", "reused_from", "reuse_note"}
    assert outcome_fields - recorded - identity_fields == {"status", "scores", "workspace"} | replay
    outcome = outcome_of(IDENTITY, "passed", [], RunResult(output="x", model="m"))
    assert (outcome.output, outcome.model, outcome.order) == ("x", "m", 7)


def test_no_list_of_the_outcome_is_the_runs_own() -> None:
    calls, hooks = [ToolCall("lookup", {"q": 1})], [Hook("Stop", "Stop", "success")]
    run = RunResult(
        tool_calls=calls,
        hooks=hooks,
        skill_triggered_by_session=[True, None],
        skills_triggered=["refunds"],
    )
    outcome = outcome_of(IDENTITY, "passed", [], run)
    assert outcome.tool_calls == tuple(calls) and outcome.hooks[0]["name"] == "Stop"
    by_session = outcome.skill_triggered_by_session
    assert by_session == [True, None] and by_session is not run.skill_triggered_by_session
    triggered = outcome.skills_triggered
    assert triggered == ["refunds"] and triggered is not run.skills_triggered
    run.tool_calls.append(ToolCall("later", {}))
    assert len(outcome.tool_calls) == 1
    # A list field added to RunResult must be copied too: these are all the run's lists.
    lists = {f.name for f in fields(RunResult) if str(f.type).startswith("list[")}
    copied = {"tool_calls", "hooks", "skill_triggered_by_session", "skills_triggered"}
    assert lists - UNRECORDED_RUN_FIELDS == copied


def test_concurrent_callers_each_get_their_own_deadline_thread() -> None:
    gate = threading.Barrier(2, timeout=5)

    def meet() -> RunResult:
        gate.wait()  # both acts are running at once, or this times out
        return RunResult(output="done")

    outcomes: list[Outcome] = []
    threads = [
        threading.Thread(target=lambda: outcomes.append(run_once(case(), Stub(meet))))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)

    assert [o.status for o in outcomes] == ["passed", "passed"]
