"""Where Python's ``re`` and the ``regex`` package (the matcher) disagree and the loader
lets it be: ``\\B`` against an empty text (docs/eval-files.md, "Assertions").

``re`` before Python 3.14 finds no ``\\B`` in ``""``; the regex package, like 3.14's
``re`` and most other engines, finds one at 0. Scoring uses the regex package, so a
``regex: '\\B'`` check passes on an empty output. These tests pin that, so a change in
either engine shows here rather than in a user's verdict.
"""

from __future__ import annotations

import re
import sys

import pytest

from pytest_skill_lens.score.assertions import check_assertion
from pytest_skill_lens.suite.model import Assertion
from pytest_skill_lens.suite.regex_rules import regex_problem

NOT_A_BOUNDARY = Assertion(kind="regex", value="\\B")


def test_the_loader_accepts_not_a_boundary() -> None:
    assert regex_problem("\\B") is None


def test_not_a_boundary_passes_on_an_empty_output_at_character_0() -> None:
    check = check_assertion(NOT_A_BOUNDARY, 0, "")

    assert (check.id, check.passed) == ("regex[0]", True)
    assert check.evidence == '/\\B/ matched "" at character 0'


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="re matches \\B in '' from 3.14 on")
def test_re_of_this_python_would_have_failed_it() -> None:
    # The disagreement the docs describe is real on this interpreter, not folklore.
    assert re.search("\\B", "") is None


@pytest.mark.parametrize(
    ("output", "passed", "evidence"),
    [
        ("a", False, '/\\B/ found no match in the output: "a"'),  # a boundary on each side
        ("ab", True, '/\\B/ matched "" at character 1'),
        (" ", True, '/\\B/ matched "" at character 0'),
    ],
)
def test_on_a_text_both_engines_agree_and_so_does_scoring(
    output: str, passed: bool, evidence: str
) -> None:
    check = check_assertion(NOT_A_BOUNDARY, 0, output)

    assert (check.passed, check.evidence) == (passed, evidence)
    assert (re.search("\\B", output) is not None) is passed
