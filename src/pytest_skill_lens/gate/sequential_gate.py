"""``--skill-lens-repeat auto:N``: the questions that read each skill, when its rounds may
stop, and what the gate reads of them (docs/comparing.md, "How auto runs").

A skill is read on its own, by whichever process runs it (one xdist worker, one shard):

* ``per_skill_min``: the skill's own question, settled by ``pass`` or ``fail``;
* ``min_pass_rate`` and ``min_delta`` (per runner and baseline arm) pool every skill.
  The skill asks its share: is its own rate (its own delta) at least the bar? If every
  skill's share is ``pass``, the pooled mean, a weighted mean of the shares, is at least
  the bar too, and it is wrong only if some skill below the bar was wrongly passed, which
  happens with probability at most alpha. A share decided ``fail`` proves nothing of the pool, so it
  settles nothing: the skill runs on, and the gate reads the pool's fixed-sample figure.

Several baseline arms (``none,placebo``) each ask their own delta, the candidate paired
with that arm's outcomes alone, as :mod:`.arms` pairs them for the gate; the skill runs
on while any arm's is open.

A skill stops once every question it asks is settled, or at once when its own question is
decided ``fail``: the gate fails then whatever its remaining rounds would show.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from ..labels import Status
from ..perform.outcome import Outcome
from .delta import planned_order
from .record import GateSettings
from .sequential import (
    SequentialDecision,
    anytime_bounds,
    decide_delta,
    decide_rate,
    delta_round,
    rate_round,
)
from .sequential_record import Question, QuestionKind, SequentialRecord
from .sequential_rounds import Pair, decision_text, delta_rounds, rate_rounds

PlannedKey = tuple[str, str, str, str]  # (skill, case, runner, arm_key)
UNSAID = "baseline"  # a baseline item that does not say its arm (a not-run entry)


def arm_key(arm: str, baseline_kind: str | None) -> str:
    """``candidate``, or a baseline arm by its kind (``baseline:none``), so several arms'
    items are told apart; a baseline that does not say its kind is :data:`UNSAID`."""
    return arm if arm == "candidate" or not baseline_kind else f"baseline:{baseline_kind}"


def planned_key(outcome: Outcome) -> PlannedKey:
    key = arm_key(outcome.arm, outcome.baseline_kind)
    return (outcome.skill_name, outcome.case_name, outcome.runner, key)


def complete(outcomes: Iterable[Outcome], expected: Collection[PlannedKey]) -> list[Outcome]:
    """The outcomes of the rounds every ``expected`` item finished, up to the first that
    one did not: a round still in flight, or cut short, is no evidence."""
    chosen = list(outcomes)
    done: dict[int, set[PlannedKey]] = {}
    for outcome in chosen:
        key = planned_key(outcome)
        found = done.setdefault(outcome.repeat_index, set())
        found.add(key)
        if key[3] != "candidate":  # an entry owed by an unsaid arm is met by any arm's
            found.add((*key[:3], UNSAID))
    wanted = set(expected)
    rounds = 0
    while wanted and wanted <= done.get(rounds, set()):
        rounds += 1
    return [o for o in chosen if o.repeat_index < rounds and planned_key(o) in wanted]


def skill_questions(
    outcomes: Sequence[Outcome],
    skill: str,
    gate: GateSettings,
    *,
    max_rounds: int,
    expected: Collection[PlannedKey],
) -> list[Question]:
    """The questions that read ``skill``, from its complete rounds only."""
    keys = [key for key in expected if key[0] == skill]
    mine = complete((o for o in outcomes if o.skill_name == skill), keys)
    rates = rate_rounds(mine, max_rounds=max_rounds, skill=skill)
    found = []
    if skill in gate.per_skill_min:
        bar = gate.per_skill_min[skill]
        found.append(_rate_question("per_skill_min", skill, rates, bar, max_rounds))
    found.append(_rate_question("min_pass_rate", skill, rates, gate.min_pass_rate, max_rounds))
    if gate.min_delta is not None:
        arms = _baseline_arms(keys, mine)
        for runner in dict.fromkeys(key[2] for key in sorted(keys)):
            for arm in arms:
                paired = _paired_cases(keys, runner, arm)
                if not paired:
                    continue  # no baseline for this skill: the delta gate says so itself
                both = [
                    o
                    for o in mine
                    if (o.case_name, o.runner) in paired
                    and (o.arm == "candidate" or arm_key(o.arm, o.baseline_kind) == arm)
                ]
                pairs = delta_rounds(both, max_rounds=max_rounds, runner=runner)
                found.append(
                    _delta_question(
                        skill, runner, pairs, gate.min_delta, max_rounds, arm, len(arms) > 1
                    )
                )
    return found


def stop_reason(questions: Sequence[Question], max_rounds: int) -> str | None:
    """Why a skill's remaining items are not run, or None while one question is open."""
    stop = deciding(questions)
    return None if stop is None else _stopped(stop.decision.verdict, stop.decision, max_rounds)


def deciding(questions: Sequence[Question]) -> Question | None:
    """The question that stops a skill: its own ``per_skill_min`` decided fail, else the
    last settled once every one is; None while one is open. Items of its ``decided_at``
    round on are not run."""
    failed = [
        q for q in questions if q.question == "per_skill_min" and q.decision.verdict == "fail"
    ]
    if failed:
        return failed[0]
    if questions and all(q.settled for q in questions):
        return max(questions, key=lambda q: q.decision.decided_at or 0)
    return None


def record_decisions(
    outcomes: Sequence[Outcome],
    not_run: Sequence[Mapping[str, object]],
    gate: GateSettings,
    max_rounds: int,
) -> SequentialRecord:
    """Every skill's questions, read after the run from what ran and what was owed."""
    expected = {planned_key(o) for o in outcomes}
    expected |= {_owed(entry) for entry in not_run}
    skills = dict.fromkeys(o.skill_name for o in sorted(outcomes, key=planned_order))
    questions = [
        question
        for skill in skills
        for question in skill_questions(
            outcomes, skill, gate, max_rounds=max_rounds, expected=expected
        )
    ]
    return SequentialRecord(max_rounds, tuple(questions))


def _owed(entry: Mapping[str, object]) -> PlannedKey:
    """A not-run entry's key; one without an arm is a candidate's, as the report reads it."""
    skill, case, runner = (str(entry.get(key)) for key in ("skill_name", "case_name", "runner"))
    return (skill, case, runner, str(entry.get("arm", "candidate")))


def decided_skills(record: SequentialRecord | None) -> dict[str, str | None]:
    """Each ``per_skill_min`` skill the rule decided: None for pass, its reason for fail."""
    if record is None:
        return {}
    return {
        q.skill_name: q.text if q.decision.verdict == "fail" else None
        for q in record.questions
        if q.question == "per_skill_min" and q.decision.verdict in ("pass", "fail")
    }


def pooled_rate_decided(record: SequentialRecord | None) -> bool:
    """Whether every skill's share of ``min_pass_rate`` was decided pass."""
    shares = [q for q in record.questions if q.question == "min_pass_rate"] if record else []
    return bool(shares) and all(q.decision.verdict == "pass" for q in shares)


def delta_decided(record: SequentialRecord | None) -> dict[str | None, frozenset[str]]:
    """Per baseline arm, the runners whose every skill's share of ``min_delta`` against
    that arm was decided pass."""
    shares: dict[tuple[str | None, str], list[Question]] = {}
    for q in record.questions if record else ():
        if q.question == "min_delta" and q.runner is not None:
            shares.setdefault((q.arm, q.runner), []).append(q)
    decided: dict[str | None, frozenset[str]] = {}
    for (arm, runner), qs in shares.items():
        if all(q.decision.verdict == "pass" for q in qs):
            decided[arm] = decided.get(arm, frozenset()) | {runner}
    return decided


def _baseline_arms(keys: Sequence[PlannedKey], outcomes: Sequence[Outcome]) -> list[str]:
    """The skill's baseline arms, in the order they ran (the order asked). An arm that
    does not say its kind counts only when none does: it is owed by one of them."""
    ran = [planned_key(o)[3] for o in sorted(outcomes, key=lambda o: o.order)]
    arms = [arm for arm in dict.fromkeys(ran + sorted(k[3] for k in keys)) if arm != "candidate"]
    said = [arm for arm in arms if arm != UNSAID]
    return said or arms


def _paired_cases(keys: Sequence[PlannedKey], runner: str, arm: str) -> set[tuple[str, str]]:
    arms: dict[str, set[str]] = {}
    for _, case, key_runner, key_arm in keys:
        if key_runner == runner and key_arm in ("candidate", arm):
            arms.setdefault(case, set()).add(key_arm)
    return {(case, runner) for case, seen in arms.items() if len(seen) == 2}


def _rate_question(
    kind: QuestionKind, skill: str, rounds: list[list[Status]], bar: float, max_rounds: int
) -> Question:
    decision = decide_rate(rounds, bar, max_rounds=max_rounds)
    bounds = anytime_bounds([rate_round(r) for r in rounds], max_rounds=max_rounds)
    what = f"skill '{skill}' pass rate"
    what += "" if kind == "per_skill_min" else " (its share of min_pass_rate)"
    return Question(kind, skill, None, decision, bounds, decision_text(what, decision))


def _delta_question(
    skill: str,
    runner: str,
    rounds: list[list[Pair]],
    bar: float,
    max_rounds: int,
    arm: str,
    named: bool,
) -> Question:
    decision = decide_delta(rounds, bar, max_rounds=max_rounds)
    low, high = anytime_bounds([delta_round(r) for r in rounds], max_rounds=max_rounds)
    kind = arm.removeprefix("baseline:") if arm != UNSAID else None
    vs = f" vs {kind}" if named and kind else ""  # one arm keeps its words
    what = f"skill '{skill}' pass-rate delta{vs} under runner '{runner}' (its share of min_delta)"
    text = decision_text(what, decision, delta=True)
    bounds = (2 * low - 1, 2 * high - 1)
    return Question("min_delta", skill, runner, decision, bounds, text, kind)


def _stopped(verdict: str, decision: SequentialDecision, max_rounds: int) -> str:
    return (
        f"stopped early: decided {verdict} after round {decision.decided_at} of {max_rounds} "
        f"(betting test, alpha {decision.alpha:g})"
    )
