"""The cassette side of performing one case (``--skill-lens-record``, ``docs/replay.md``).

Which seats of the item are taped: a runner or judge that records its model calls
(``records_cassettes``) is, keyed on its own parts where it has them (a product's
table and version, ``cassette_parts``); the fake runner and judge need no cassette, being free
and offline; anything else (a plugin's runner or judge) cannot be replayed, so
replaying only (``none``) refuses the case before anything runs, and otherwise it
acts live and the outcome is never marked replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..labels import Status
from ..run.fake import is_plain_fake
from ..run.runner import Runner
from ..score.check import Score
from ..score.judge import FakeJudge, Judge, judge_name
from ..score.judges.resolve import judge_base_url, judge_model, judge_temperature
from ..settings import Settings
from ..suite.model import EvalCase
from ..suite.skill import Skill
from .outcome import CaseIdentity, Outcome

if TYPE_CHECKING:  # the cassettes are imported only under --skill-lens-record
    from ..run.cassettes import Tape, TapeReport
    from ..run.cassettes.key import KeyPart


@dataclass(frozen=True)
class Taping:
    """One item's cassette, and whether a seat acts live outside it."""

    tape: Tape | None
    refusal: str | None  # why the act must not start at all
    untaped: bool  # a runner or judge that sends requests the cassette never sees
    reusing: bool = False  # the tape is a reuse store's entry (docs/reuse.md)


# Most items: no cassette, nothing refused, nothing live outside one.
UNTAPED = Taping(None, None, False)


def open_tape(
    skill: Skill,
    case: EvalCase,
    runner: Runner,
    judge: Judge | None,
    identity: CaseIdentity,
    settings: Settings,
) -> Taping:
    """The item's tape (None when no seat records), and a refusal when it must not act."""
    mode = settings.record
    store = None if mode else identity.reuse  # the two never meet: configure refuses it
    if store is None and (identity.cassette is None or not mode):
        return UNTAPED
    runner_taped = _records(runner)
    judging = case.judge is not None
    judge_taped = judging and _records(judge)
    untaped = []
    if not runner_taped and not is_plain_fake(runner):
        untaped.append(f"runner {identity.runner!r}")
    if judging and not judge_taped and not isinstance(judge, FakeJudge):
        untaped.append(f"judge {judge_name(judge, settings)!r}")
    if untaped and mode == "none":
        refusal = (
            f"{' and '.join(untaped)} cannot be replayed from a cassette (it does not record "
            "its model calls), and --skill-lens-record none never calls a model; run without "
            "--skill-lens-record none, or use a runner and judge that record (docs/replay.md)"
        )
        return Taping(None, refusal, True)
    if not (runner_taped or judge_taped):
        return Taping(None, None, bool(untaped))
    from ..run.cassettes import Tape
    from ..run.cassettes.files import cassette_root
    from ..run.cassettes.key import judge_parts, runner_parts

    key: list[KeyPart] = []
    if runner_taped:
        key += runner_parts(
            skill, case, identity.runner, settings, identity.repeat_index, own=_own_parts(runner)
        )
    if judge_taped:
        named = judge_name(judge, settings)
        key += judge_parts(case, _judge_settings(named, settings), own=_own_parts(judge))
    item = {
        "skill": identity.skill_name,
        "case": identity.case_name,
        "runner": identity.runner,
        "arm": identity.arm,
        "repeat": identity.repeat_index + 1,
    }
    if store is not None:
        from ..run.cassettes.store import StoreTape

        entry = StoreTape(Path(store), key, item)
        return Taping(entry, entry.refusal, bool(untaped), reusing=True)
    assert identity.cassette is not None and mode  # else UNTAPED above
    path = Path(identity.cassette)
    # Never read or written through a link below the directory you chose (or the skill's).
    root = cassette_root(path, named=bool(settings.cassettes))
    tape = Tape(path, mode, key, item, root=root)
    return Taping(tape, tape.refusal, bool(untaped))


def _records(seat: object) -> bool:
    return getattr(seat, "records_cassettes", False) is True


def _own_parts(seat: object) -> list[KeyPart]:
    """A product's own key parts (its table and version), standing in for the framework
    settings it never reads; none for a framework runner or judge."""
    parts = getattr(seat, "cassette_parts", None)
    return list(parts()) if callable(parts) else []


def _judge_settings(name: str, settings: Settings) -> dict[str, Any]:
    return {
        "judge": name,
        "model": judge_model(settings),
        "base_url": judge_base_url(settings),
        "temperature": judge_temperature(settings),
    }


def with_replay(outcome: Outcome, taping: Taping, report: TapeReport | None) -> Outcome:
    """``outcome`` saying what its cassette did: replayed, when recorded, new spend or not."""
    if report is None:
        outcome.cassette = None if taping.refusal is None else outcome.cassette
        return outcome
    outcome.cassette = report.cassette
    # A seat outside the cassette sent requests of its own: nothing is "all replayed".
    outcome.replayed = report.replayed and not taping.untaped
    outcome.replayed_calls = report.replayed_calls
    outcome.replayed_usd = report.replayed_usd
    outcome.recorded_at = report.recorded_at
    outcome.cassette_note = report.note
    outcome.cassette_action = report.action
    if taping.reusing:
        from ..run.cassettes.store import StoreTape

        assert isinstance(taping.tape, StoreTape)
        if outcome.replayed:
            outcome.reused_from = taping.tape.reused_from()
        else:  # ran (or errored): why it was not reused, when the store can say
            outcome.reuse_note = taping.tape.note or taping.tape.rerecorded
    return outcome


def finish_tape(
    tape: Tape, status: Status, error: str | None, scores: Sequence[Score]
) -> TapeReport:
    """What the item's cassette did once it was scored: an errored item is never kept,
    and the first words of why it errored go in its marker (``run/cassettes/marker.py``)."""
    if status != "errored":
        return tape.finish(keep=True)
    why = error or next((s.detail for s in scores if s.errored), None)
    return tape.finish(keep=False, error=why or "errored")
