"""The pytest side of an item's act: the case performed and its spend recorded, its
verdict as exceptions, its text.

The case itself is performed by :func:`pytest_skill_lens.perform.perform`, called once
per item by :func:`performed` with what :func:`.equip.equip` gave it (the runner, the
judge, the evaluators, the workspace), in the item's setup or on the prefetcher's pool;
every outcome, a fixture's failure's too, goes through :func:`spent` to the spend
ledger. An infrastructure failure (a fixture that could not be set up; a
runner, a judge or an evaluator that could not do its job) raises
:class:`CaseErrored` in setup, so pytest reports an ERROR. A check that did not
hold raises :class:`CaseFailed` in call, so pytest reports a FAILURE whose text is
the failing checks with their evidence, never a traceback.

The verdict is computed at the end of setup, because only scoring can tell an
errored case (say, a judge verdict that does not match the rubric) from a
failed one; scoring is pure and free, so where it runs costs nothing. A case's
workspace is deleted at teardown by its fixture, unless it is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..perform import Outcome
from ..report.excerpt import failure_lines
from ..report.printable import scrub
from .state import get_session

if TYPE_CHECKING:
    from ..perform.outcome import CaseIdentity
    from ..suite.model import EvalCase
    from ..suite.skill import Skill
    from .equip import Equipment
    from .state import SessionState


def performed(
    state: SessionState, skill: Skill, case: EvalCase, kit: Equipment, identity: CaseIdentity
) -> Outcome:
    """``case`` performed by ``skill`` with ``kit``, its spend recorded; never raises."""
    from ..perform import errored_outcome, perform

    try:
        outcome = perform(
            skill,
            case,
            kit.runner,
            kit.judge,
            kit.workspace,
            kit.evaluators,
            identity=identity,
            settings=state.run.settings,
        )
    except Exception as exc:  # perform never raises; if it did, errored
        outcome = errored_outcome(identity, f"{type(exc).__name__}: {exc}")
    return spent(state, outcome)


def spent(state: SessionState, outcome: Outcome) -> Outcome:
    """``outcome``, its spend recorded against the run's ceiling (when there is one)."""
    if state.ledger is not None:
        state.ledger.record(outcome)
    return outcome


class CaseErrored(Exception):
    """The case could not be measured: an infrastructure failure, not a verdict."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.error or "errored")
        self.outcome = outcome


class CaseFailed(AssertionError):
    """At least one declared check did not hold."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__("failed")
        self.outcome = outcome


def failure_text(item: Any, outcome: Outcome) -> str:
    session = get_session(item.config)
    full = bool(session and session.run.settings.full_output) or item.config.get_verbosity() >= 2
    # A lone surrogate would reach the console as an invalid UTF-8 byte: U+FFFD instead.
    return scrub("\n".join(failure_lines(outcome, full)))
