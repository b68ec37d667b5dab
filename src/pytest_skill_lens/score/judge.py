"""``judge:``: a rubric graded by an LLM judge, one verdict per rubric line.

A judge is called in the act phase (it spends money); :class:`JudgeEvaluator`
only reads the verdict it left in the scoring context. The verdict and the
score come from the per-check results, never from a number the judge blends:
a check the judge passed without evidence is recorded as failed, and a verdict
whose ids do not line up with the rubric is errored, since malformed output is
an infrastructure signal rather than evidence about the skill.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..matching import clip
from ..run.models.price_source import of_run
from ..settings import Settings
from ..suite.model import EvalCase
from ..suite.model import Judge as JudgeBlock
from .check import CheckResult, Score, ScoringContext, held_trivially, score_from_checks

if TYPE_CHECKING:  # annotations only: configure (the judge catalog) never checks a result
    from ..run.result import RunResult
    from ..run.sandbox.product_sandbox import ProductSandbox

NO_EVIDENCE = "passed with no evidence"
# What a report keeps of a judge's words: evidence quotes the response, a reason says
# why it could not grade; a judge (or its model) that answers megabytes must not make
# a report of that size. Past these, the text is cut and says how much was removed.
EVIDENCE_SHOWN = 1_000
ERROR_SHOWN = 2_000


@dataclass(frozen=True)
class JudgeCheck:
    id: str
    passed: bool
    evidence: str


@dataclass(frozen=True)
class JudgeVerdict:
    """What one judge call returned; ``error`` set means it could not grade."""

    checks: list[JudgeCheck] | None
    error: str | None = None
    cost_usd: float = 0.0
    cost_note: str | None = None
    price_source: str | None = None  # where cost_usd came from (run/models/price_source.py)
    tokens: int = 0
    model: str = ""


@dataclass(frozen=True)
class JudgeRequest:
    """Everything a judge is shown: never tool returns, tool calls or mock data."""

    tasks: list[str]
    expected: str | None
    output: str
    rubric: list[tuple[str, str]]  # (id, statement)
    artifacts: list[tuple[str, str]] = field(default_factory=list)  # (label, content)


@runtime_checkable
class Judge(Protocol):
    """Grades one request. ``judge`` never raises: a failure is ``JudgeVerdict.error``."""

    name: str

    def judge(self, request: JudgeRequest) -> JudgeVerdict: ...


def judge_name(judge: Judge | None, settings: Settings) -> str:
    """The judge's own name, else the one the settings give it."""
    name = getattr(judge, "name", None)
    return name if isinstance(name, str) else settings.judge


@dataclass(frozen=True)
class JudgeContext:
    """What a judge factory may read to build its judge.

    ``product_sandbox`` is the run's product sandbox decision (``None`` when no product
    is named), which a product judge wraps every start in.
    """

    name: str
    settings: Settings
    product_sandbox: ProductSandbox | None = None


JudgeFactory = Callable[[JudgeContext], Judge]


def rubric_ids(block: JudgeBlock) -> list[str]:
    """Positional ids ``r1..rN``, stable across arms and runs."""
    return [f"r{n}" for n in range(1, len(block.rubric) + 1)]


def build_request(
    case: EvalCase, result: RunResult, artifacts: Sequence[tuple[str, str]] = ()
) -> JudgeRequest:
    """The judge's view of one run: every task, the last output, the rubric, the artifacts."""
    if case.judge is None:
        raise ValueError(f"case {case.name!r} has no judge block to grade")
    rubric = list(zip(rubric_ids(case.judge), case.judge.rubric, strict=True))
    return JudgeRequest(case.tasks, case.judge.expected, result.output, rubric, list(artifacts))


class FakeJudge:
    """The default judge: it grades nothing, so a rubric it was handed is errored, never passed."""

    name = "fake"

    def __init__(self, context: JudgeContext | None = None) -> None:
        # Taking the context makes the class itself a JudgeFactory.
        self.context = context

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        return JudgeVerdict(
            checks=None,
            error=(
                f'judge = "fake" grades nothing, so the {len(request.rubric)} rubric '
                "check(s) of this case were not graded; name a real judge with judge = "
                '"<name>" in skill-lens.toml or --skill-lens-judge NAME (a conftest.py can '
                "register one through the pytest_skill_lens_judges hook; see docs/extending.md)"
            ),
            model="fake",
        )


class JudgeEvaluator:
    name = "judge"

    def evaluate(self, case: EvalCase, result: RunResult, context: ScoringContext) -> Score:
        if case.judge is None:
            return held_trivially(self.name, "no judge")
        verdict = context.judge_verdict
        if not isinstance(verdict, JudgeVerdict):
            return self._errored("no verdict: the judge was not called for this case")
        if verdict.error is not None:
            return self._errored(verdict.error, verdict)
        if verdict.checks is None:
            return self._errored("the verdict carries no checks", verdict)
        ids = rubric_ids(case.judge)
        problem = id_mismatch(ids, [check.id for check in verdict.checks])
        if problem is not None:
            return self._errored(problem, verdict)
        by_id = {check.id: check for check in verdict.checks}
        checks = [_recorded(by_id[check_id]) for check_id in ids]
        score = score_from_checks(self.name, checks, "no judge")
        return replace(
            score,
            cost_usd=verdict.cost_usd,
            cost_note=verdict.cost_note,
            price_source=_source(verdict),
        )

    def _errored(self, why: str, verdict: JudgeVerdict | None = None) -> Score:
        cost = verdict.cost_usd if verdict is not None else 0.0
        note = verdict.cost_note if verdict is not None else None
        return Score(
            self.name,
            False,
            0.0,
            f"judge failed: {clip(why, ERROR_SHOWN)}",
            errored=True,
            cost_usd=cost,
            cost_note=note,
            price_source=_source(verdict) if verdict is not None else None,
        )


def _source(verdict: JudgeVerdict) -> str | None:
    """Where the verdict's cost came from, said even when the judge said nothing."""
    return of_run(verdict.price_source, verdict.cost_usd, verdict.cost_note, "the judge")


def id_mismatch(expected: Sequence[str], seen: Sequence[str]) -> str | None:
    """Why the verdict's check ids are not exactly the rubric's, or ``None``."""
    counts = Counter(seen)
    missing = [i for i in expected if i not in counts]
    extra = [i for i in counts if i not in expected]
    repeated = [i for i, n in counts.items() if n > 1]
    if not (missing or extra or repeated):
        return None
    parts = [
        f"{label} {', '.join(ids)}"
        for label, ids in (("missing", missing), ("unexpected", extra), ("repeated", repeated))
        if ids
    ]
    shown = ", ".join(expected)
    return f"the verdict's check ids do not match the rubric ({shown}): {'; '.join(parts)}"


def _recorded(check: JudgeCheck) -> CheckResult:
    evidence = check.evidence.strip() if isinstance(check.evidence, str) else ""
    if check.passed is True and not evidence:
        # An unsupported PASS is the judge's characteristic failure: it never counts.
        return CheckResult(check.id, False, NO_EVIDENCE)
    shown = clip(evidence, EVIDENCE_SHOWN) if evidence else "(no evidence given)"
    return CheckResult(check.id, check.passed is True, shown)
