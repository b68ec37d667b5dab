"""The signature a case item is made with: which of the plugin's fixtures pytest resolves
for it (:mod:`.fixtures`), or none where no conftest or plugin defines one again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..suite.model import EvalCase


# What a case item asks pytest for: the signature names its fixtures (fixtures.py),
# and only those the case uses (a workspace for a workspace: block, the judge for a
# rubric), since each costs pytest's fixture machinery on every item. Where no
# conftest or plugin defines one of them again, it asks for none (the bare
# signature) and makes the same values itself. Never called: the item acts in its
# setup and raises its verdict in call.
def skill_lens_bare_case() -> None:
    raise RuntimeError("a case item acts in its setup; it is never called")


def skill_lens_case(skill_lens_sandbox: Any, skill_lens_runner: Any) -> None:
    raise RuntimeError("a case item acts in its setup; it is never called")


def skill_lens_judged_case(
    skill_lens_sandbox: Any, skill_lens_runner: Any, skill_lens_judge: Any
) -> None:
    raise RuntimeError("a case item acts in its setup; it is never called")


def skill_lens_workspace_case(
    skill_lens_sandbox: Any, skill_lens_runner: Any, skill_lens_workspace: Any
) -> None:
    raise RuntimeError("a case item acts in its setup; it is never called")


def skill_lens_judged_workspace_case(
    skill_lens_sandbox: Any,
    skill_lens_runner: Any,
    skill_lens_judge: Any,
    skill_lens_workspace: Any,
) -> None:
    raise RuntimeError("a case item acts in its setup; it is never called")


_SIGNATURES: dict[tuple[bool, bool], Callable[..., None]] = {
    (False, False): skill_lens_case,
    (True, False): skill_lens_judged_case,
    (False, True): skill_lens_workspace_case,
    (True, True): skill_lens_judged_workspace_case,
}


def case_signature(case: EvalCase, *, through_pytest: bool) -> Callable[..., None]:
    """The item's signature: its fixtures by name when pytest must resolve them (a
    fixture defined again, or ``--fixtures-per-test`` listing them), else none."""
    if not through_pytest:
        return skill_lens_bare_case
    return _SIGNATURES[(case.judge is not None, case.workspace is not None)]
