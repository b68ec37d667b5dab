"""The items: one run of one eval case (a pytest Function acting in its setup), and the
stand-in item for a skill without cases."""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import pytest

from ..labels import Arm, case_label
from ..suite.loaded import LoadedCase
from ..suite.skill import Skill
from .isolation import SkillHooks  # hooks as the directory above the skill sees them
from .state import SESSION_KEY, SessionState, get_session

# Performing, its verdicts and the JUnit properties are imported where an item first
# runs: collecting thousands of items (an IDE, --collect-only) never needs them.
if TYPE_CHECKING:
    from ..perform.outcome import CaseIdentity, Outcome
    from .caches import SessionCaches

NO_CASES = "(no eval cases)"
# Markers that change how pytest runs an item. A case tag spelled like one must
# stay a plain keyword, or `tags: [skip]` would silently skip the case.
_BEHAVIOUR_MARKERS = frozenset(
    {"skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings", "skill_lens"}
)


class CaseItem(SkillHooks, pytest.Function):
    """One run of one eval case: the act in setup, the verdict in call.

    A :class:`pytest.Function`, so its fixtures are real pytest fixtures that a
    ``conftest.py`` can override or wrap, per directory.
    """

    # Its own attributes in slots: with them in the instance dict, pytest's Function
    # has too many for Python to share the dict's keys between items (1.5 KiB each).
    __slots__ = (
        "_loaded",
        "_skill_lens_ihook",
        "acting_skill",
        "arm",
        "case_name",
        "eval_file",
        "eval_line",
        "not_run_reason",
        "order",
        "outcome",
        "position",
        "properties_due",
        "repeat_index",
        "report_keywords",
        "runner_name",
        "skill",
        "stopped_reason",
        "trigger_expected",
    )

    def __init__(
        self,
        *,
        skill: Skill,
        loaded: LoadedCase,
        runner: str,
        arm: str,
        repeat_index: int,
        position: int,
        baseline_kind: str = "",
        arm_named: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        _parse_runner_params(self)
        self.skill = skill
        self._loaded: LoadedCase | None = loaded
        # What the item says of itself after its case is let go (another plugin's report
        # may ask reportinfo at session end).
        self.case_name = loaded.name
        self.eval_file, self.eval_line = loaded.file, loaded.line
        trajectory = loaded.case.trajectory
        self.trigger_expected = trajectory.skill_triggered if trajectory is not None else None
        self.runner_name = runner
        self.arm = arm
        self.baseline_kind = baseline_kind  # which baseline arm ("" for the candidate)
        # Several baseline arms: the kind is part of the item's label and cassette.
        self.arm_named = arm_named
        self.repeat_index = repeat_index
        self.position = position
        self.order = 0
        self.outcome: Outcome | None = None
        # What the run acts with: the skill itself, or its baseline (set once the
        # session knows it, see collecting.prepare_baseline).
        self.acting_skill = skill
        self.not_run_reason: str | None = None  # why the spend ledger refused it
        self.stopped_reason: str | None = None  # auto:N: why its skill needs it no more
        self.properties_due = False  # the outcome's JUnit properties, added at teardown
        self.report_keywords: Mapping[str, Literal[1]] | None = None  # see share_report_keywords
        session = get_session(self.config)
        assert session is not None
        self.add_marker(_SKILL_LENS_MARK)
        for tag in loaded.case.tags:
            self.extra_keyword_matches.add(tag)
            mark = _tag_marker(tag, self.config, session.caches)
            if mark is not None:
                self.add_marker(mark)

    @property
    def loaded(self) -> LoadedCase:
        """The case this item runs, until its run is over (see :meth:`release_case`)."""
        if self._loaded is None:
            raise CaseReleased(
                f"{self.nodeid} already ran in this session, and its case was let go "
                "once its run was over; run it again in a new pytest session"
            )
        return self._loaded

    def release_case(self) -> None:
        """Let the case go once the item's run is over (its outcome stays).

        Every item would otherwise keep its parsed case, models and strings to the end
        of the session, about 2 KiB each; a report never reads them again. Called after
        the whole run protocol, so a plugin that reruns an item within it
        (pytest-rerunfailures) still finds the case.
        """
        self._loaded = None
        self._skill_lens_ihook = None  # the kept hook proxy (SkillHooks.ihook) too

    def share_report_keywords(self, report: pytest.TestReport) -> None:
        """Let the item's three reports hold one keywords dict while their keywords agree.

        pytest gives each report its own copy of the item's keywords (a 9-key dict,
        272 bytes), and its terminal reporter keeps every report to the session's end.
        Nothing in pytest or xdist writes to a report's keywords; a copy that differs
        (a marker added between phases) is kept as it is.
        """
        kept = self.report_keywords
        if kept is not None and report.keywords == kept:
            report.keywords = kept
        else:
            self.report_keywords = report.keywords

    def sort_key(self) -> tuple[str, int, int, int, int]:
        """Skill, case, arm, runner, repeat; under ``auto:N`` the repeat (the round) comes
        right after the skill, so a skill's rounds run one after the other."""
        session = get_session(self.config)
        runners = session.run.runner_names if session else (self.runner_name,)
        runner = runners.index(self.runner_name)
        if session is not None and session.run.settings.repeat_auto:
            return (self.skill.name, self.repeat_index, self.position, self.arm_rank, runner)
        return (self.skill.name, self.position, self.arm_rank, runner, self.repeat_index)

    def reportinfo(self) -> tuple[Path, int, str]:
        # The case's line in its eval file, so an IDE jumps to the YAML.
        more = [self.arm_label.replace("-", " ")] if self.is_baseline else []
        repeats = self.config.stash[SESSION_KEY].run.settings.repeat_count
        if repeats > 1:
            more.append(f"run {self.repeat_index + 1}/{repeats}")
        label = case_label(self.skill.name, self.case_name, self.runner_name, *more)
        return self.eval_file, self.eval_line - 1, label

    @cached_property
    def location(self) -> tuple[str, int | None, str]:
        """pytest's ``(relfspath, lineno, label)``, its path worked out once per eval file.

        pytest's own makes the path absolute and looks it up again for every item, a
        real part of a fake case's cost; every case of one file has the same path.
        """
        path, line, label = self.reportinfo()
        session = get_session(self.config)
        known = session.caches.report_paths if session is not None else {}
        relative = known.get(path)
        if relative is None:
            relative = known[path] = _PYTEST_LOCATION(self)[0]
        return relative, line, label

    def identity(self) -> CaseIdentity:
        """Which run of which case this item is (its order is known once collected)."""
        from ..perform.outcome import CaseIdentity

        return CaseIdentity(
            skill_name=self.skill.name,
            case_name=self.case_name,
            runner=self.runner_name,
            arm=cast(Arm, self.arm),  # collection makes only the two arms
            baseline_kind=self.baseline_kind or None,
            repeat_index=self.repeat_index,
            nodeid=self.nodeid,
            order=self.order,
            cassette=self.cassette(),
            trigger_expected=self.trigger_expected,
            reuse=self.reuse_store(),
        )

    def cassette(self) -> str | None:
        """This item's cassette file under ``--skill-lens-record`` (docs/replay.md).

        By default the cassettes sit in ``cassettes/`` beside the case's eval file, or in
        the run's directory for them (``RunConfig.cassette_dir``). One file per item, so no
        two items, on threads or in xdist processes, ever write the same one.
        """
        session = get_session(self.config)
        if session is None or not session.run.settings.record:
            return None
        from ..run.cassettes import cassette_path

        directory = session.run.cassette_dir or self.eval_file.parent / "cassettes"
        name, runner = self.case_name, self.runner_name
        arm, repeat = self.arm_label, self.repeat_index
        path = cassette_path(directory, self.skill.name, name, runner, arm, repeat)
        return str(path.absolute())

    def reuse_store(self) -> str | None:
        """The store this item is reused from and added to (``--skill-lens-reuse``)."""
        session = get_session(self.config)
        store = session.run.reuse_dir if session is not None else None
        return str(store.absolute()) if store is not None else None

    def setup(self) -> None:
        state = get_session(self.config)
        assert state is not None, "pytest-skill-lens items need --skill-lens"
        from .act import performed, spent  # an item that runs: never a collection
        from .equip import equip

        if state.prefetch is not None:  # --skill-lens-concurrency: this and the next overlap
            state.prefetch.advance(self)
            started = state.prefetch.take(self)
            if started is not None:  # started ahead: its outcome is spent already
                if started.workspace is not None and not state.run.settings.keep_workspace:
                    self.addfinalizer(started.workspace.cleanup)
                self._settle(started.future.result())
                return
        self.stopped_reason = stopped_early(state, self)
        if self.stopped_reason is not None:  # skipped, and counted as not spent
            pytest.skip(self.stopped_reason)
        if state.ledger is not None:
            self.not_run_reason = state.ledger.refusal()
            if self.not_run_reason is not None:  # skipped, and a not-run item of the gate
                pytest.skip(f"not run: {self.not_run_reason}")
        try:
            super().setup()  # pytest fills the fixtures the signature names, and autouse ones
            case = self.loaded.case  # a released case errors here, as a fixture would
            identity = self.identity()
            kit = equip(state, case, identity, self.funcargs)
        except Exception as exc:  # a fixture that cannot be set up: errored, never failed
            from ..perform import errored_outcome
            from .equip import fixture_failure

            self._settle(spent(state, errored_outcome(self.identity(), fixture_failure(exc))), exc)
            return
        made = kit.workspace if kit.made_workspace else None
        if made is not None and not state.run.settings.keep_workspace:
            self.addfinalizer(made.cleanup)
        self._settle(performed(state, self.acting_skill, case, kit, identity))

    def _settle(self, outcome: Outcome, cause: Exception | None = None) -> None:
        """Take ``outcome`` as the item's: an errored one raises here, so pytest reports an
        ERROR (a baseline's never does: it is data for the delta, not a failure)."""
        self.outcome = outcome
        errored = outcome.status == "errored" and not self.is_baseline
        # A fixture that failed leaves no case properties on a case it errors.
        self.properties_due = not (errored and cause is not None)
        if errored:
            from .act import CaseErrored

            if cause is None:
                raise CaseErrored(outcome)
            raise CaseErrored(outcome) from cause

    def teardown(self) -> None:
        # pytest copies user_properties into every report made after they are added,
        # and --junitxml reads them from the teardown report only: added here, they
        # are carried once per item instead of three times (and sent once under xdist).
        if self.properties_due and self.outcome is not None:
            from ..report.junit_properties import case_properties

            self.properties_due = False
            self.user_properties.extend(case_properties(self.outcome))
        super().teardown()

    @property
    def is_baseline(self) -> bool:
        return self.arm == "baseline"

    @property
    def arm_label(self) -> str:
        """``candidate``, ``baseline``, or ``baseline-<kind>`` when several arms ran."""
        return f"baseline-{self.baseline_kind}" if self.arm_named and self.is_baseline else self.arm

    @property
    def arm_rank(self) -> int:
        """The candidate first, then each baseline arm in the order asked."""
        if not self.is_baseline:
            return 0
        session = get_session(self.config)
        kinds = session.run.settings.baselines if session else ()
        return 1 + (kinds.index(self.baseline_kind) if self.baseline_kind in kinds else 0)

    def runtest(self) -> None:
        # A baseline never fails the run by its own verdict: it shows under its own word
        # (CaseReports.pytest_report_teststatus) and feeds the delta.
        if self.outcome is not None and self.outcome.status == "failed" and not self.is_baseline:
            from .act import CaseFailed

            raise CaseFailed(self.outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        from .act import CaseErrored, CaseFailed, failure_text

        if isinstance(excinfo.value, CaseFailed | CaseErrored):
            return failure_text(self, excinfo.value.outcome)
        return super().repr_failure(excinfo)


def stopped_early(state: SessionState, item: CaseItem) -> str | None:
    """Under ``auto:N``, why the item's skill needs it no more (:mod:`.rounds`); else None."""
    if not state.run.settings.repeat_auto:
        return None
    if state.rounds is None:
        from .rounds import RoundWatch

        state.rounds = RoundWatch(state)
    return state.rounds.stop_reason(item)


_SKILL_LENS_MARK = pytest.mark.skill_lens
# pytest's Item.location, asked once per eval file (CaseItem.location).
_PYTEST_LOCATION: Callable[[pytest.Item], tuple[str, int | None, str]] = pytest.Item.location.func  # type: ignore[attr-defined]


class CaseReleased(RuntimeError):
    """An item asked to run again after its case was let go: an error, never a verdict."""


def _parse_runner_params(item: pytest.Item) -> None:
    """Give the item the id ``<case>[<runner>]`` *with* ``<runner>`` as its params.

    pytest >= 9.2 compares structured node ids, and the ids ``--lf``/``--ff`` read
    back from the cache are parsed with the bracket as params; a Function without
    a parametrize call would keep the bracket in its name and never match them.
    """
    node_id = getattr(item, "_id", None)
    if node_id is not None and getattr(node_id, "params", "") is None and "[" in item.name:
        item._id = type(node_id).parse(str(node_id))


def _tag_marker(
    tag: str, config: pytest.Config, caches: SessionCaches
) -> pytest.MarkDecorator | None:
    """The marker for a case tag, or ``None`` when the tag must stay a plain keyword."""
    if tag in caches.tag_markers:
        return caches.tag_markers[tag]
    mark: pytest.MarkDecorator | None = None
    if tag.isidentifier() and not keyword.iskeyword(tag) and tag not in _BEHAVIOUR_MARKERS:
        foreign = caches.foreign_markers
        if foreign is None:
            lines = config.getini("markers")
            foreign = {line.split(":")[0].split("(")[0].strip() for line in lines}
            caches.foreign_markers = foreign
        # Another plugin's marker has behaviour that is not ours to trigger.
        if tag not in foreign:
            config.addinivalue_line("markers", f"{tag}: skill-lens case tag")
            mark = getattr(pytest.mark, tag)
    caches.tag_markers[tag] = mark
    return mark


class SkippedSkillItem(SkillHooks, pytest.Item):
    """Stands for a skill with no eval cases, so it shows as skipped everywhere."""

    def __init__(self, *, skill_name: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.skill_name = skill_name
        # A skip marker (not a skip() call) so the report points at SKILL.md.
        self.add_marker(pytest.mark.skip(reason=f"skill {skill_name!r} has no eval cases"))

    def runtest(self) -> None:  # pragma: no cover - always skipped by its marker
        pass

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.skill_name} :: {NO_CASES}"
