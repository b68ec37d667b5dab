"""``trajectory:``: which tools the agent called, in what order, how often, with what."""

from __future__ import annotations

from collections.abc import Sequence

from .. import matching as matcher
from ..run.result import RunResult, ToolCall
from ..suite.model import CallArgs, EvalCase, Trajectory
from .check import CheckResult, Score, ScoringContext, score_from_checks, unmeasured
from .neighbours import among_neighbours

ARGUMENTS_SHOWN = 300  # characters of the calls' arguments quoted in call_args evidence
_NAMES_SHOWN = 300  # characters of the call list quoted in evidence
NOT_REPORTED = "the runner reported no triggering decision"


class TrajectoryEvaluator:
    """One check per declared trajectory rule; ids come from the case, never the run."""

    name = "trajectory"

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score:
        rules = case.trajectory
        if rules is None:
            return score_from_checks(self.name, [], "no trajectory")
        sessions = len(case.sessions) if case.sessions is not None else None
        checks = trajectory_checks(rules, result, sessions, context.skill_name)
        score = score_from_checks(self.name, checks, "no trajectory")
        if rules.skill_triggered is not None and _unreported(result):
            # An unanswered triggering question is an infrastructure gap, never a pass.
            return Score(
                self.name,
                False,
                score.score,
                f"skill_triggered is declared but {NOT_REPORTED}",
                score.checks,
                errored=True,
            )
        return score


def trajectory_checks(
    rules: Trajectory, result: RunResult, sessions: int | None = None, skill: str | None = None
) -> list[CheckResult]:
    """One check per rule; ``sessions`` is how many the case declares, if it has ``sessions:``;
    ``skill`` is the name of the case's own skill, told from its neighbours."""
    calls = result.tool_calls
    names = [call.name for call in calls]
    checks = [_called(tool, names) for tool in _unique(rules.called)]
    checks += [_forbidden(tool, names) for tool in _unique(rules.forbidden)]
    if rules.order:
        checks.append(_order(rules.order, names))
    if rules.max_calls is not None:
        checks.append(_max_calls(rules.max_calls, names))
    if rules.skill_triggered is not None:
        check = _skill_triggered(rules.skill_triggered, result, sessions)
        checks.append(among_neighbours(check, rules.skill_triggered, result, skill))
    checks += [_call_args(i, entry, calls) for i, entry in enumerate(rules.call_args)]
    return checks


def _unique(tools: Sequence[str]) -> list[str]:
    # A name listed twice is one check: ids must stay unique to pair across arms.
    return list(dict.fromkeys(tools))


def _calls_made(names: Sequence[str]) -> str:
    if not names:
        return "no tool was called"
    return "calls made: " + matcher.clip(", ".join(names), _NAMES_SHOWN)


def _positions(tool: str, names: Sequence[str]) -> list[int]:
    return [n for n, name in enumerate(names, 1) if name == tool]


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _called(tool: str, names: Sequence[str]) -> CheckResult:
    at = _positions(tool, names)
    if not at:
        return CheckResult(
            f"called:{tool}", False, f"{tool} was never called; {_calls_made(names)}"
        )
    return CheckResult(
        f"called:{tool}", True, f"{tool} was called {_times(len(at))}, first as call #{at[0]}"
    )


def _forbidden(tool: str, names: Sequence[str]) -> CheckResult:
    at = _positions(tool, names)
    if not at:
        return CheckResult(f"forbidden:{tool}", True, f"{tool} was never called")
    shown = ", ".join(f"#{n}" for n in at)
    return CheckResult(
        f"forbidden:{tool}",
        False,
        f"{tool} was called {_times(len(at))} (as call {matcher.clip(shown, 100)})",
    )


def _order(order: Sequence[str], names: Sequence[str]) -> CheckResult:
    """A relative subsequence: other calls may sit between, the listed ones must not swap."""
    found: list[str] = []
    cursor = 0
    for tool in order:
        hit = next((n for n in range(cursor, len(names)) if names[n] == tool), None)
        if hit is None:
            where = f"after call #{cursor}" if cursor else "at all"
            so_far = f"; matched {', '.join(found)}" if found else ""
            return CheckResult(
                "order",
                False,
                f"expected {' -> '.join(order)}: {tool} was not called {where}{so_far}; "
                f"{_calls_made(names)}",
            )
        found.append(f"{tool} (call #{hit + 1})")
        cursor = hit + 1
    return CheckResult("order", True, f"called in order: {', '.join(found)}")


def _max_calls(limit: int, names: Sequence[str]) -> CheckResult:
    count = len(names)
    if count <= limit:
        return CheckResult("max_calls", True, f"{count} tool calls, limit is {limit}")
    return CheckResult(
        "max_calls", False, f"{count} tool calls, over the limit of {limit}; {_calls_made(names)}"
    )


def _unreported(result: RunResult) -> bool:
    by_session = result.skill_triggered_by_session or []
    return result.skill_triggered is None or any(seen is None for seen in by_session)


def _skill_triggered(expected: bool, result: RunResult, sessions: int | None) -> CheckResult:
    """Under ``sessions:`` the answer must hold in every session, each listed in the evidence."""
    wanted = "to load it" if expected else "to leave it alone"
    by_session = result.skill_triggered_by_session
    if by_session is None:
        seen = result.skill_triggered
        if seen is None:
            return unmeasured("skill_triggered", f"not evaluated: {NOT_REPORTED}")
        did = "loaded the skill" if seen else "did not load the skill"
        return CheckResult(
            "skill_triggered", seen == expected, f"the agent {did}; expected {wanted}"
        )
    silent = [n for n, seen in enumerate(by_session, 1) if seen is None]
    if silent:
        return unmeasured(
            "skill_triggered", f"not evaluated: in session {silent[0]}, {NOT_REPORTED}"
        )
    answers = "; ".join(
        f"session {n} {'loaded the skill' if seen else 'did not load it'}"
        for n, seen in enumerate(by_session, 1)
    )
    total = sessions if sessions is not None else len(by_session)
    if len(by_session) < total:
        # A session that never ran has no answer: the rule cannot be said to hold in it.
        return unmeasured(
            "skill_triggered",
            f"not evaluated: only {len(by_session)} of {total} sessions ran ({answers})",
        )
    held = all(seen == expected for seen in by_session)
    return CheckResult("skill_triggered", held, f"{answers}; expected every session {wanted}")


def _call_args(index: int, entry: CallArgs, calls: Sequence[ToolCall]) -> CheckResult:
    check_id = f"call_args[{index}]"
    exact = entry.equals is not None
    expected = (entry.equals if exact else entry.contains) or {}
    rule = f"{'equals' if exact else 'contains'} {matcher.clip_json(expected, 200)}"
    mine = [call for call in calls if call.name == entry.tool]
    if not mine:
        others = _calls_made([call.name for call in calls])
        return CheckResult(check_id, False, f"{entry.tool} was never called; {others}")
    reasons = [matcher.explain(expected, call.arguments, exact=exact) for call in mine]
    total = len(mine)
    if entry.every:
        failing = next((n for n, why in enumerate(reasons, 1) if why is not None), None)
        if failing is None:
            return CheckResult(check_id, True, f"all {total} calls to {entry.tool} match {rule}")
        return CheckResult(
            check_id,
            False,
            f"call {failing} of {total} to {entry.tool} does not match {rule}: "
            f"{reasons[failing - 1]}; {_arguments(mine)}",
        )
    matched = next((n for n, why in enumerate(reasons, 1) if why is None), None)
    if matched is not None:
        return CheckResult(
            check_id, True, f"call {matched} of {total} to {entry.tool} matches {rule}"
        )
    why = reasons[0] if total == 1 else f"call 1: {reasons[0]}"
    return CheckResult(
        check_id,
        False,
        f"no call to {entry.tool} matches {rule} ({_count(total)}; {why}); {_arguments(mine)}",
    )


def _count(total: int) -> str:
    return "1 call" if total == 1 else f"{total} calls"


def _arguments(calls: Sequence[ToolCall]) -> str:
    """Every call's arguments as one line of sorted-key JSON, cut at a fixed length."""
    line = matcher.clip_json([call.arguments for call in calls], ARGUMENTS_SHOWN)
    return f"arguments of each call: {line}"
