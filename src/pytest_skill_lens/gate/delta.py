"""The paired delta: does the candidate arm pass more often than the baseline arm?

Outcomes are grouped by (skill, case, runner), each arm's repetitions summarised, and a
case is *comparable* when both arms have at least one scored (non-errored) repetition,
nothing of it was cut short and a baseline ran at all. Only comparable cases feed the
figures, so an excluded case drops from both halves. The figures follow the reference
(candidate − baseline, pooled means over scored outcomes); the intervals and the
confidence label (``intervals``) are ours, with the case as the unit of evidence.

Nothing here depends on the order outcomes arrive in: they are sorted into the planned
order first, and every sum is exactly rounded, so a plain run and ``-n 2`` agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from ..labels import Arm
from ..perform.outcome import Outcome
from .intervals import (
    DEFAULT_LEVEL,
    Confidence,
    Interval,
    KEstimate,
    case_rate_interval,
    confidence_label,
    k_estimates,
    paired_delta_interval,
    wilson_interval,
)

NoteKind = Literal["unavailable", "skipped"]

# Exclusion reasons, first that applies. Upstream's first reads "the spend ceiling
# stopped the run ..."; here -x or an interruption can cut a case short too.
CUT_SHORT = "the run stopped before every repetition of both arms ran"
NO_BASELINE = "no baseline run"
NO_CANDIDATE = "no candidate run"
CANDIDATE_ERRORED = "every candidate repetition errored"
BASELINE_ERRORED = "every baseline repetition errored"


@dataclass(frozen=True)
class BaselineNote:
    """Why a skill (or one case of it, ``case_name`` set) has no baseline arm."""

    skill_name: str
    kind: NoteKind
    reason: str
    case_name: str = ""
    arm: str = ""  # the baseline arm's kind when several ran side by side ("" for one)

    @property
    def text(self) -> str:
        arm = f"baseline {self.arm}" if self.arm else "baseline"
        if self.kind == "skipped":
            return f"{self.skill_name} :: {self.case_name}: {arm} skipped — {self.reason}"
        return f"{self.skill_name}: {arm} unavailable — {self.reason}"


@dataclass(frozen=True)
class ArmStats:
    """One arm of one case across its repetitions; rates read scored repetitions only."""

    runs: int
    errored: int
    passed: int
    pass_rate: float | None  # None when every repetition errored (nothing was scored)
    stddev: float  # population std-dev of the 1/0 verdicts; 0 for one scored run
    mean_tokens: float
    mean_cost_usd: float
    mean_latency_ms: float
    interval: Interval | None  # Wilson over this case's scored repetitions
    k_estimates: tuple[KEstimate, ...] = ()  # pass@k and pass^k when scored > 1

    @property
    def scored(self) -> int:
        return self.runs - self.errored


@dataclass(frozen=True)
class CaseStats:
    skill_name: str
    case_name: str
    runner: str
    candidate: ArmStats
    baseline: ArmStats | None
    comparable: bool
    exclusion_reason: str | None
    low_signal: tuple[str, ...]  # check ids that held in every repetition of both arms
    high_variance: bool


@dataclass(frozen=True)
class LowSignalCheck:
    skill_name: str
    case_name: str
    runner: str
    evaluator: str
    check_id: str


@dataclass(frozen=True)
class HighVarianceCase:
    skill_name: str
    case_name: str
    runner: str
    arm: Arm
    pass_rate: float
    stddev: float


@dataclass(frozen=True, kw_only=True)
class DeltaFigures:
    """Candidate − baseline over comparable cases; None throughout when there is none."""

    comparable_cases: int
    pass_rate_candidate: float | None
    pass_rate_baseline: float | None
    pass_rate_delta: float | None
    tokens_delta: float | None
    cost_usd_delta: float | None
    latency_ms_delta: float | None
    pass_rate_candidate_interval: Interval | None
    pass_rate_baseline_interval: Interval | None
    pass_rate_delta_interval: Interval | None
    confidence: Confidence  # of the delta: see intervals.confidence_label
    # (candidate rate, baseline rate) per comparable case, to recompute the interval.
    pairs: tuple[tuple[float, float], ...] = field(default=(), repr=False)

    def delta_interval(self, level: float = DEFAULT_LEVEL) -> Interval | None:
        return paired_delta_interval(self.pairs, level)


@dataclass(frozen=True, kw_only=True)
class RunnerDelta(DeltaFigures):
    runner: str


@dataclass(frozen=True, kw_only=True)
class Delta(DeltaFigures):
    baseline_kind: str
    cases: tuple[CaseStats, ...]
    low_signal: tuple[LowSignalCheck, ...]
    high_variance: tuple[HighVarianceCase, ...]
    notes: tuple[BaselineNote, ...]
    runners: tuple[RunnerDelta, ...]

    @property
    def per_runner(self) -> bool:
        """Several runners ran: the reports and the gate read ``runners``, not the total."""
        return len(self.runners) > 1


CaseKey = tuple[str, str, str]  # (skill, case, runner)


def build_delta(
    outcomes: Iterable[Outcome],
    *,
    baseline_kind: str | None,
    not_run: Iterable[Mapping[str, object]] = (),
    notes: Sequence[BaselineNote] = (),
) -> Delta | None:
    """The delta over every outcome of both arms; None when no baseline outcome exists.

    ``not_run`` holds the items that never produced an outcome (``skill_name``,
    ``case_name``, ``runner``): a case with any is cut short and excluded.
    """
    ordered = sorted(outcomes, key=planned_order)
    if not baseline_kind or not any(o.arm == "baseline" for o in ordered):
        return None
    cut = {_key_of(item) for item in not_run}
    first_seen: dict[CaseKey, int] = {}
    groups: dict[CaseKey, list[Outcome]] = {}
    for outcome in ordered:
        groups.setdefault(case_key(outcome), []).append(outcome)
        first_seen.setdefault(case_key(outcome), outcome.order)
    for item in not_run:  # a case that never ran at all is listed too, as cut short
        key = _key_of(item)
        order = item.get("order")
        seen = order if isinstance(order, int) else len(first_seen) + 1_000_000
        first_seen[key] = min(first_seen.get(key, seen), seen)
        groups.setdefault(key, [])
    groups = dict(sorted(groups.items(), key=lambda entry: first_seen[entry[0]]))
    cases = tuple(_case_stats(key, group, key in cut) for key, group in groups.items())
    paired = list(zip(cases, groups.values(), strict=True))
    by_runner: dict[str, list[tuple[CaseStats, list[Outcome]]]] = {}
    for case, group in paired:
        by_runner.setdefault(case.runner, []).append((case, group))
    return Delta(
        **_spread(_figures(paired)),
        baseline_kind=baseline_kind,
        cases=cases,
        low_signal=tuple(
            LowSignalCheck(case.skill_name, case.case_name, case.runner, evaluator, check_id)
            for case, group in paired
            if case.comparable
            for evaluator, check_id in _low_signal(group)
        ),
        high_variance=tuple(_high_variance(cases)),
        notes=tuple(notes),
        runners=tuple(
            RunnerDelta(runner=runner, **_spread(_figures(entries)))
            for runner, entries in by_runner.items()
        ),
    )


def arm_pass_rate_interval(
    outcomes: Iterable[Outcome], arm: Arm = "candidate", level: float = DEFAULT_LEVEL
) -> Interval | None:
    """The case-weighted interval for one arm's pass rate, baseline or not (single-arm runs).

    Each (skill, case, runner) with a scored repetition is one unit, entering as its rate.
    """
    groups: dict[CaseKey, list[Outcome]] = {}
    for outcome in sorted(outcomes, key=planned_order):
        if outcome.arm == arm and outcome.status != "errored":
            groups.setdefault(case_key(outcome), []).append(outcome)
    return case_rate_interval([rate_of(group) for group in groups.values()], level)


def planned_order(outcome: Outcome) -> tuple[int, str, str, str, int, int]:
    # The plan's own position first; names break ties (outcomes built without one).
    o, arm_rank = outcome, 0 if outcome.arm == "candidate" else 1
    return (o.order, o.skill_name, o.case_name, o.runner, arm_rank, o.repeat_index)


def case_key(outcome: Outcome) -> CaseKey:
    return (outcome.skill_name, outcome.case_name, outcome.runner)


def _key_of(item: Mapping[str, object]) -> CaseKey:
    return (str(item.get("skill_name")), str(item.get("case_name")), str(item.get("runner")))


def _case_stats(key: CaseKey, group: list[Outcome], cut_short: bool) -> CaseStats:
    candidate = [o for o in group if o.arm == "candidate"]
    baseline = [o for o in group if o.arm == "baseline"]
    candidate_stats = _arm_stats(candidate)
    baseline_stats = _arm_stats(baseline) if baseline else None
    reason = _exclusion(cut_short, candidate_stats, baseline_stats)
    return CaseStats(
        *key,
        candidate=candidate_stats,
        baseline=baseline_stats,
        comparable=reason is None,
        exclusion_reason=reason,
        low_signal=tuple(dict.fromkeys(i for _, i in _low_signal(group))) if not reason else (),
        high_variance=_varies(candidate_stats) or _varies(baseline_stats),
    )


def _exclusion(cut_short: bool, candidate: ArmStats, baseline: ArmStats | None) -> str | None:
    if cut_short:
        return CUT_SHORT
    if baseline is None:
        return NO_BASELINE
    if candidate.runs == 0:
        return NO_CANDIDATE
    if candidate.scored == 0:
        return CANDIDATE_ERRORED
    if baseline.scored == 0:
        return BASELINE_ERRORED
    return None


def _arm_stats(outcomes: Sequence[Outcome]) -> ArmStats:
    scored = _scored(outcomes)
    passed = sum(o.status == "passed" for o in scored)
    rate = passed / len(scored) if scored else None
    return ArmStats(
        runs=len(outcomes),
        errored=len(outcomes) - len(scored),
        passed=passed,
        pass_rate=rate,
        stddev=math.sqrt(rate * (1.0 - rate)) if rate is not None and len(scored) > 1 else 0.0,
        mean_tokens=_mean(o.tokens for o in scored),
        mean_cost_usd=_mean(o.cost_usd for o in scored),  # retries are not the skill's cost
        mean_latency_ms=_mean(o.latency_ms for o in scored),
        interval=wilson_interval(passed, len(scored)) if scored else None,
        k_estimates=k_estimates(len(scored), passed),
    )


def _figures(entries: Sequence[tuple[CaseStats, list[Outcome]]]) -> DeltaFigures:
    """The figures of some cases (one runner's, or every runner's)."""
    comparable = [(case, group) for case, group in entries if case.comparable]
    candidate = [o for _, g in comparable for o in _scored(g) if o.arm == "candidate"]
    baseline = [o for _, g in comparable for o in _scored(g) if o.arm == "baseline"]
    pairs = tuple(_pair(case) for case, _ in comparable)
    delta_interval = paired_delta_interval(pairs)
    candidate_rate = rate_of(candidate) if comparable else None
    baseline_rate = rate_of(baseline) if comparable else None
    return DeltaFigures(
        comparable_cases=len(comparable),
        pass_rate_candidate=candidate_rate,
        pass_rate_baseline=baseline_rate,
        pass_rate_delta=_difference(candidate_rate, baseline_rate),
        tokens_delta=_mean_delta(candidate, baseline, lambda o: float(o.tokens)),
        cost_usd_delta=_mean_delta(candidate, baseline, lambda o: o.cost_usd),
        latency_ms_delta=_mean_delta(candidate, baseline, lambda o: o.latency_ms),
        pass_rate_candidate_interval=case_rate_interval([c for c, _ in pairs]),
        pass_rate_baseline_interval=case_rate_interval([b for _, b in pairs]),
        pass_rate_delta_interval=delta_interval,
        confidence=confidence_label(delta_interval),
        pairs=pairs,
    )


def _spread(figures: DeltaFigures) -> dict[str, Any]:
    """The figures as keyword arguments for a Delta or a RunnerDelta (never deep-copied)."""
    return {f.name: getattr(figures, f.name) for f in fields(DeltaFigures)}


def _difference(candidate: float | None, baseline: float | None) -> float | None:
    return None if candidate is None or baseline is None else candidate - baseline


def _mean_delta(
    candidate: Sequence[Outcome], baseline: Sequence[Outcome], read: Callable[[Outcome], float]
) -> float | None:
    if not candidate or not baseline:
        return None
    return _mean(map(read, candidate)) - _mean(map(read, baseline))


def _pair(case: CaseStats) -> tuple[float, float]:
    # Only comparable cases are paired, and those have a scored repetition in each arm.
    assert case.baseline is not None
    assert case.candidate.pass_rate is not None and case.baseline.pass_rate is not None
    return (case.candidate.pass_rate, case.baseline.pass_rate)


def _low_signal(group: Sequence[Outcome]) -> list[tuple[str, str]]:
    """(evaluator, check id) that held in every scored repetition of both arms.

    A check missing from any repetition tells nothing and is left out. The order is the
    first scored repetition's (candidate first), so it is stable.
    """
    held: list[tuple[str, str]] | None = None
    for outcome in _scored(group):
        checks: dict[tuple[str, str], bool] = {}
        for score in outcome.scores:
            for check in score.checks:
                key = (score.evaluator, check.id)
                checks[key] = checks.get(key, True) and check.passed
        mine = [key for key, passed in checks.items() if passed]
        held = mine if held is None else [key for key in held if checks.get(key)]
    return held or []


def _high_variance(cases: Sequence[CaseStats]) -> Iterable[HighVarianceCase]:
    for case in cases:
        arms: tuple[tuple[Arm, ArmStats | None], ...] = (
            ("candidate", case.candidate),
            ("baseline", case.baseline),
        )
        for arm, stats in arms:
            if stats is not None and stats.pass_rate is not None and _varies(stats):
                yield HighVarianceCase(
                    case.skill_name, case.case_name, case.runner, arm, stats.pass_rate, stats.stddev
                )


def _varies(stats: ArmStats | None) -> bool:
    """Some scored repetitions passed and some failed."""
    return stats is not None and stats.scored > 1 and 0 < stats.passed < stats.scored


def _scored(outcomes: Iterable[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if o.status != "errored"]


def rate_of(outcomes: Sequence[Outcome]) -> float:
    return sum(o.status == "passed" for o in outcomes) / len(outcomes)


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return math.fsum(items) / len(items) if items else 0.0
