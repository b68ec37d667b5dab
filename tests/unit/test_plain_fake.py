"""Which runner is trusted as the built-in fake (run/fake.py ``is_plain_fake``): performing
skips the act thread and its deadline for it, its result's field-by-field shape check (it
builds every result from checked case data), and a cassette run needs no tape for it.

Only the class itself is: a subclass a user writes may override ``run`` to wait on
something or call a model, so it gets the deadline and counts as untaped like any
plugin runner.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_skill_lens.perform import CaseIdentity, perform
from pytest_skill_lens.perform.replay import open_tape
from pytest_skill_lens.run.fake import FakeRunner, is_plain_fake
from pytest_skill_lens.run.result import RunResult, problems
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill

SKILL = Skill("greet", "Greets", "Say hello.", Path("/skills/greet/SKILL.md"))
CASE = EvalCase.model_validate({"name": "hello", "task": "say hello"})
IDENTITY = CaseIdentity(skill_name="greet", case_name="hello", runner="mine")


class Waiting(FakeRunner):
    """A user's fake that waits for ``released`` before it answers."""

    def __init__(self, released: threading.Event) -> None:
        self.released = released

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        self.released.wait(10)
        return super().run(skill, case, workspace)


class Mine(FakeRunner):
    """A user's fake, unchanged: still not ours to trust."""


class Negative(FakeRunner):
    """A user's fake whose result is malformed."""

    def run(self, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        return RunResult(output="done", input_tokens=-1)


@pytest.fixture
def released() -> Iterator[threading.Event]:
    """Set at teardown, so a call the deadline abandoned ends its thread."""
    event = threading.Event()
    yield event
    event.set()


def test_only_the_class_itself_is_the_plain_fake(released: threading.Event) -> None:
    assert is_plain_fake(FakeRunner())
    assert not is_plain_fake(Waiting(released))
    assert not is_plain_fake(FakeRunner)  # the class, not a runner
    assert not is_plain_fake(object())


def test_a_subclass_that_waits_is_cut_off_by_the_case_deadline(
    released: threading.Event,
) -> None:
    short = Settings(case_timeout_seconds=0.05)

    outcome = perform(
        SKILL, CASE, Waiting(released), None, None, (), identity=IDENTITY, settings=short
    )

    assert (outcome.status, outcome.error) == (
        "errored",
        "runner 'mine' did not return within 0.05 s (case_timeout_seconds)",
    )


def test_the_plain_fake_runs_on_the_callers_thread_and_a_subclass_on_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[threading.Thread] = []
    original = FakeRunner.run

    def noting(self: FakeRunner, skill: Skill, case: EvalCase, workspace: Path | None) -> RunResult:
        threads.append(threading.current_thread())
        return original(self, skill, case, workspace)

    monkeypatch.setattr(FakeRunner, "run", noting)  # still the class itself

    plain = perform(
        SKILL, CASE, FakeRunner(), None, None, (), identity=IDENTITY, settings=Settings()
    )
    mine = perform(SKILL, CASE, Mine(), None, None, (), identity=IDENTITY, settings=Settings())

    assert plain.status == mine.status == "passed"
    assert threads[0] is threading.current_thread()
    assert threads[1] is not threading.current_thread()  # the act thread, under the deadline


def test_replaying_only_refuses_a_subclass_and_not_the_plain_fake() -> None:
    identity = CaseIdentity("greet", "hello", "mine", cassette="greet/hello.yaml")
    replay_only = Settings(record="none")

    plain = open_tape(SKILL, CASE, FakeRunner(), None, identity, replay_only)
    mine = open_tape(SKILL, CASE, Mine(), None, identity, replay_only)

    assert (plain.tape, plain.refusal, plain.untaped) == (None, None, False)
    assert mine.untaped and mine.refusal is not None
    assert mine.refusal.startswith("runner 'mine' cannot be replayed from a cassette")


@given(
    name=st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
    task=st.text(max_size=60),
    mode=st.sampled_from(["loaded", "offered"]),
)
def test_every_result_of_the_plain_fake_is_well_formed(name: str, task: str, mode: str) -> None:
    # Why its results may skip the shape check: whatever the case, none has a problem.
    skill = Skill(name, "Does things", "Do them.", Path(f"/skills/{name}/SKILL.md"))
    case = EvalCase.model_validate({"name": "c", "task": task, "mode": mode})

    assert problems(FakeRunner().run(skill, case, None)) == []


def test_a_subclass_result_is_still_checked_field_by_field() -> None:
    outcome = perform(
        SKILL, CASE, Negative(), None, None, (), identity=IDENTITY, settings=Settings()
    )

    assert outcome.status == "errored"
    assert outcome.error is not None
    assert outcome.error.startswith("runner 'mine' returned a malformed RunResult: input_tokens")
