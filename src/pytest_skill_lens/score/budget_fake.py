"""``budget:`` under the fake runner: its zeros are true of the fake, and measure no skill.

The fake runner calls no model, so it reports 0 tokens, $0 and 0 ms. Those are
not missing figures (it really spent nothing), so a limit is still compared and
holds, as ``forbidden:`` and ``not_contains`` do under it: a wiring check of a
suite must not go red for a budget that is written correctly. What changes is
what the check says: every piece of evidence, and the score's detail, reads
"not measured under fake", so a passed ``max_tokens`` is never read as a
measured one. docs/runners.md (the fake runner) explains the choice.
"""

from __future__ import annotations

from dataclasses import replace

from .check import CheckResult

FAKE_RUNNER = "fake"
NOT_MEASURED = "not measured under fake (the fake runner calls no model)"


def from_fake_runner(runner: str, model: str) -> bool:
    """Whether a run's figures came from the built-in fake runner.

    Both names are asked for: a ``skill_lens_runner`` fixture may replace the runner
    under the name ``fake``, and such a replacement reports a model of its own.
    """
    return runner == FAKE_RUNNER and model == FAKE_RUNNER


def not_measured(check: CheckResult) -> CheckResult:
    """``check`` with its evidence saying the figure it compared is not a measurement."""
    return replace(check, evidence=f"{NOT_MEASURED}: {check.evidence}")


def fake_detail() -> str:
    return "limits compared with the fake runner's figures, which are not measurements"
