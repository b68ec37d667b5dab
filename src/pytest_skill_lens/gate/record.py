"""Everything a session recorded, in the shape the gate and the reports read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: a listing's aborted record imports no run-phase module
    from ..perform.outcome import Outcome
    from ..run.sandbox.product_sandbox import ProductEntry
    from .arm_rows import ArmRow
    from .changed_skills import ChangedSelection
    from .delta import BaselineNote, Delta
    from .figures import RunFigures
    from .fingerprint import Selection
    from .matrix import Matrix
    from .multiplicity import Multiplicity
    from .sequential_record import SequentialRecord
    from .spend import SpendCeiling

EXIT_FAILED = 1  # the gate's code for a failed verdict (verdict.py holds the rules)


@dataclass(frozen=True)
class GateResult:
    passed: bool
    exit_code: int
    reasons: tuple[str, ...] = ()

    def adding(self, reasons: Sequence[str]) -> GateResult:
        """This verdict with more reasons after its own (none: the same verdict)."""
        if not reasons:
            return self
        return GateResult(False, EXIT_FAILED, (*self.reasons, *reasons))


@dataclass(frozen=True)
class GateSettings:
    """What the gate was asked to hold: the settings its verdict is a function of."""

    min_pass_rate: float = 1.0
    fail_on_error: bool = True
    per_skill_min: Mapping[str, float] = field(default_factory=dict)  # in the order given
    min_delta: float | None = None
    min_delta_confidence: float | None = None
    min_case_pass_rate: float | None = None
    max_spend_usd: float | None = None
    # "holm": the interval decisions (one per runner's delta) are corrected as a family.
    multiplicity: str = "none"
    # Also hold each per_skill_min by the lower end of the skill's interval at this level.
    per_skill_min_confidence: float | None = None


@dataclass(frozen=True)
class RunSettings:
    """How the run was made, as far as judging its outcomes again needs (a merge of shards)."""

    gate: GateSettings = field(default_factory=GateSettings)
    runners: tuple[str, ...] = ()  # in the order given: the planned order's runner rank
    repeat: int = 1  # under repeat_auto: the most rounds
    # --skill-lens-repeat auto:N: rounds that stop once the gate's question is decided.
    repeat_auto: bool = False
    shard: str | None = None  # "K/N" under --skill-lens-shard
    # Each setting's digest by name (gate/fingerprint.py): shards of one run agree on all.
    fingerprint: Mapping[str, str] = field(default_factory=dict)


@dataclass
class RunRecord:
    """Outcomes in planned order (skill, case, arm, runner, repeat), both arms."""

    outcomes: list[Outcome] = field(default_factory=list)
    skipped_skills: list[str] = field(default_factory=list)  # no eval cases
    tag_filtered_skills: list[str] = field(default_factory=list)  # -m removed every case
    case_filtered_skills: list[str] = field(default_factory=list)  # -k removed every case
    deselected_skills: list[str] = field(default_factory=list)  # any selection emptied it
    skills_found: int = 0
    # Items collected and selected but never run to an outcome (-x, a crash, a ceiling).
    not_run: list[dict[str, object]] = field(default_factory=list)
    full_output: bool = False
    # {sandbox, detail, hardening[, overridden_by_fixture]} when scripts are on.
    scripts: dict[str, Any] | None = None
    # Skills whose scripts stayed idle because execution is off: {skill_name, script_count, ...}.
    script_notes: list[dict[str, object]] = field(default_factory=list)
    # Why the session ended without computing a gate (an authoring error, Ctrl-C, ...);
    # None for a run the gate judged.
    aborted: str | None = None
    # The comparison: the baseline asked for ("" when none), why some skills or cases
    # have no baseline arm, and the paired delta (None without baseline outcomes).
    baseline_kind: str = ""
    baseline_notes: list[BaselineNote] = field(default_factory=list)
    delta: Delta | None = None
    # Every arm's delta, in the order asked (one for a one-arm run; delta is the first),
    # and with several arms their side-by-side rows (gate/arms.py).
    deltas: tuple[Delta, ...] = ()
    arm_rows: tuple[ArmRow, ...] = ()
    # The gate's interval decisions, one family per criterion asked, raw and adjusted.
    multiplicity: tuple[Multiplicity, ...] = ()
    # Each case's verdict under every runner, candidate arm (None under fewer than two).
    matrix: Matrix | None = None
    # Where each skill's previous version came from: {skill_name, commit, path, version}.
    baseline_sources: list[dict[str, str]] = field(default_factory=list)
    # The spend ceiling's figures, when one was set (see spend.spend_ceiling).
    spend_ceiling: SpendCeiling | None = None
    # The settings the gate was computed with (None when the run never got that far).
    run: RunSettings | None = None
    # Every product the run named (runner or judge, once each) and the sandbox it ran under.
    products: list[ProductEntry] = field(default_factory=list)
    # Under a shard: each skill's selected cases in eval-file order, every shard's
    # included (a merge orders by it); empty for a whole run and a merge.
    case_order: dict[str, list[str]] = field(default_factory=dict)
    # Under a shard: what every shard selected together (None for a whole run and a merge).
    selection: Selection | None = None
    # Each departure of a SKILL.md from the Agent Skills specification (a warning, the run
    # went on): {file, line, field, problem, fix}, by file, in each file's order.
    skill_md_warnings: list[dict[str, object]] = field(default_factory=list)
    # --skill-lens-changed: the commit compared with, the changed and unchanged skills.
    changed: ChangedSelection | None = None
    # --skill-lens-repeat auto:N: items not run because their skill's questions were
    # decided (not spent, never "not run": they owe the gate nothing), and each decision.
    stopped_early: list[dict[str, object]] = field(default_factory=list)
    sequential: SequentialRecord | None = None

    @property
    def baseline_kinds(self) -> tuple[str, ...]:
        """The baseline arms asked for, in order: ``none,placebo`` is two."""
        return arm_kinds(self.baseline_kind)

    @property
    def candidates(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.arm == "candidate"]

    @cached_property
    def figures(self) -> RunFigures:
        """The candidate arm's counts and rates (:mod:`.figures`), computed on first read:
        the gate's verdict and every report read this one computation. A record is whole
        before it is read (a session's end, a merge, a report read back); one changed
        after would keep its first figures."""
        from .figures import run_figures

        return run_figures(self.outcomes, self.not_run)

    @property
    def filtered_skills(self) -> list[str]:
        """Skills whose every case the -k/-m selection removed, without duplicates."""
        lists = (self.deselected_skills, self.tag_filtered_skills, self.case_filtered_skills)
        return list(dict.fromkeys(name for names in lists for name in names))


def arm_kinds(baseline_kind: str) -> tuple[str, ...]:
    """``none,placebo`` as its arms, in the order asked ("" has none)."""
    return tuple(kind for kind in baseline_kind.split(",") if kind)
