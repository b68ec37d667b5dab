"""Which checks would read a product's delivered copy of the skill."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_skill_lens.suite.delivered_copy import delivered_copy_reader
from pytest_skill_lens.suite.model import EvalCase

COPY = ".claude/skills/greet"


def case(**fields: Any) -> EvalCase:
    return EvalCase.model_validate({"name": "c", "task": "t", "workspace": {}, **fields})


@pytest.mark.parametrize(
    ("assertion", "reached"),
    [
        ({"kind": "file-produced", "file": ".claude/skills/greet/SKILL.md"}, True),
        ({"kind": "file-produced", "file": "./.claude/skills/greet/notes.md"}, True),
        ({"kind": "file-produced", "file_glob": "*/*/*/SKILL.md"}, True),
        ({"kind": "file-produced", "file_glob": ".claude/skills/*/*.md"}, True),
        ({"kind": "file-produced", "file_glob": ["report.md", ".claude/*/greet/*"]}, True),
        ({"kind": "file-produced", "file": ".claude/skills/other/SKILL.md"}, False),
        ({"kind": "file-produced", "file": ".claude/skills/greet"}, False),  # not a file in it
        ({"kind": "file-produced", "file_glob": "*/SKILL.md"}, False),  # too shallow
        ({"kind": "file-produced", "file_glob": "reports/*/*/*.md"}, False),
        ({"kind": "file-produced", "file": "report.md"}, False),
    ],
)
def test_file_checks(assertion: dict[str, Any], reached: bool) -> None:
    found = delivered_copy_reader(case(assertions=[assertion]), COPY)
    assert (found is not None) is reached, found


def test_judge_artifacts_are_checked_too() -> None:
    judge = {"rubric": ["r"], "artifacts": ["out.md", {"glob": "*/*/greet/*.md"}]}
    assert delivered_copy_reader(case(judge=judge), COPY) == (
        "judge.artifacts[1].glob",
        "*/*/greet/*.md",
    )
