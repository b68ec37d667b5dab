"""Selecting cases the pytest way: -k by name, -m by tag, --lf, explicit ids."""

from __future__ import annotations

import pytest
from skillfactory import make_skill

# The fake runner answers "[fake] <skill> handled: <task>".
CASES = """\
cases:
  - name: greets-by-name
    tags: [smoke, greeting]
    task: greet Ada
    assertions:
      - kind: contains
        value: greet Ada

  - name: waves-goodbye
    tags: [slow]
    task: wave goodbye
    assertions:
      - kind: contains
        value: wave goodbye

  - name: plain-case
    task: do nothing special
"""

ODD_TAGS = """\
cases:
  - name: tagged-oddly
    tags: [skip, xfail, skipif, usefixtures, "not an identifier", class]
    task: still runs
    assertions:
      - kind: contains
        value: still runs

  - name: ordinary
    task: runs too
"""

PASS_AND_FAIL = """\
cases:
  - name: holds
    task: say hello
    assertions:
      - kind: contains
        value: hello

  - name: breaks
    task: say hello
    assertions:
      - kind: contains
        value: something the fake runner never says
"""


def ran(result: pytest.RunResult) -> list[str]:
    """Node ids of the items that ran, in order, from a ``-v`` run."""
    statuses = {"PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"}
    return [
        parts[0]
        for parts in (line.split() for line in result.outlines)
        if len(parts) > 1 and "::" in parts[0] and parts[1] in statuses
    ]


@pytest.fixture
def skills(pytester: pytest.Pytester) -> pytest.Pytester:
    make_skill(pytester.path / "skills", "hello", CASES)
    make_skill(pytester.path / "skills", "other", "cases:\n  - name: unrelated\n    task: t\n")
    return pytester


GREETS = "skills/hello/SKILL.md::greets-by-name[fake]"
WAVES = "skills/hello/SKILL.md::waves-goodbye[fake]"

# A -k/-m selection among the four cases of ``skills``, and the cases it runs, in order.
SELECTIONS = [
    pytest.param(
        ("-k", "greets or plain"),
        [GREETS, "skills/hello/SKILL.md::plain-case[fake]"],
        id="k-selects-cases-by-name",
    ),
    pytest.param(
        ("-k", "other"),
        ["skills/other/SKILL.md::unrelated[fake]"],
        id="k-selects-by-skill-directory",
    ),
    pytest.param(("-m", "slow"), [WAVES], id="m-selects-cases-by-tag"),
    pytest.param(("-m", "smoke or slow"), [GREETS, WAVES], id="m-with-a-boolean-expression"),
    pytest.param(("-m", "smoke or slow", "-k", "wave"), [WAVES], id="k-and-m-together"),
]


@pytest.mark.parametrize(("selection", "expected"), SELECTIONS)
def test_k_and_m_select_cases(
    skills: pytest.Pytester, selection: tuple[str, ...], expected: list[str]
) -> None:
    result = skills.runpytest("--skill-lens", "skills", *selection, "-v")

    assert result.ret == 0
    result.assert_outcomes(passed=len(expected), deselected=4 - len(expected))
    assert ran(result) == expected


def test_m_skill_lens_marks_every_case(skills: pytest.Pytester) -> None:
    skills.makepyfile(test_x="def test_ordinary():\n    pass\n")

    result = skills.runpytest("--skill-lens", "skills", "test_x.py", "-m", "skill_lens", "-v")

    assert result.ret == 0
    result.assert_outcomes(passed=4, deselected=1)
    assert "test_x.py::test_ordinary" not in " ".join(ran(result))


def test_strict_markers_accepts_case_tags(skills: pytest.Pytester) -> None:
    result = skills.runpytest("--skill-lens", "skills", "--strict-markers", "-m", "greeting")

    assert result.ret == 0
    result.assert_outcomes(passed=1, deselected=3)


def test_strict_markers_in_ini_accepts_case_tags(skills: pytest.Pytester) -> None:
    skills.makeini("[pytest]\naddopts = --strict-markers\nxfail_strict = true\n")

    result = skills.runpytest("--skill-lens", "skills")

    assert result.ret == 0
    result.assert_outcomes(passed=4)


def test_tags_spelled_like_pytest_markers_do_not_change_how_a_case_runs(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path, "odd", ODD_TAGS)

    result = pytester.runpytest("--skill-lens", "odd", "--strict-markers", "-v", "-rA")

    assert result.ret == 0
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["odd/SKILL.md::tagged-oddly[[]fake[]] PASSED*"])


def test_a_tag_named_like_a_marker_is_still_a_keyword(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "odd", ODD_TAGS)

    for expression in ("skip", "xfail", "identifier"):
        result = pytester.runpytest("--skill-lens", "odd", "-k", expression, "-v")
        assert result.ret == 0, expression
        result.assert_outcomes(passed=1, deselected=1)
        assert ran(result) == ["odd/SKILL.md::tagged-oddly[fake]"], expression


def test_m_skip_does_not_select_a_case_tagged_skip(pytester: pytest.Pytester) -> None:
    # `skip` stays a keyword, never a marker: -m cannot see it, -k can.
    make_skill(pytester.path, "odd", ODD_TAGS)

    result = pytester.runpytest("--skill-lens", "odd", "-m", "skip")

    assert result.ret == 1
    result.assert_outcomes(deselected=2)


def test_k_deselecting_every_case_fails_the_gate(skills: pytest.Pytester) -> None:
    result = skills.runpytest("--skill-lens", "skills", "-k", "no-such-case")

    assert result.ret == 1  # zero cases ran: the gate fails (not pytest's 5)
    result.assert_outcomes(deselected=4)
    result.stdout.fnmatch_lines(
        ["Gate FAILED:", "*no eval cases ran: the -k/-m selection deselected every case*"]
    )


def test_m_deselecting_every_case_fails_the_gate(skills: pytest.Pytester) -> None:
    result = skills.runpytest("--skill-lens", "skills", "-m", "nonexistent_tag")

    assert result.ret == 1
    result.stdout.fnmatch_lines(["*no eval cases ran: the -k/-m selection deselected every case*"])


def test_a_partly_deselected_skill_is_not_reported_as_deselected(skills: pytest.Pytester) -> None:
    result = skills.runpytest("--skill-lens", "skills", "-k", "greets")

    assert result.ret == 0
    result.stdout.fnmatch_lines(["Deselected (no case selected by -k/-m): other"])
    result.stdout.no_fnmatch_line("Deselected*hello*")


def test_last_failed_reruns_only_the_failed_case(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "mixed", PASS_AND_FAIL)

    first = pytester.runpytest("--skill-lens", "mixed")
    assert first.ret == 1
    first.assert_outcomes(passed=1, failed=1)

    again = pytester.runpytest("--skill-lens", "mixed", "--lf", "-v")

    again.stdout.fnmatch_lines(["run-last-failure: rerun previous 1 failure*"])
    assert ran(again) == ["mixed/SKILL.md::breaks[fake]"]
    again.assert_outcomes(passed=0, failed=1)
    assert again.ret == 1


def test_failed_first_runs_the_failed_case_first(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "mixed", PASS_AND_FAIL)
    assert pytester.runpytest("--skill-lens", "mixed").ret == 1

    again = pytester.runpytest("--skill-lens", "mixed", "--ff", "-v")

    assert ran(again) == ["mixed/SKILL.md::breaks[fake]", "mixed/SKILL.md::holds[fake]"]
    again.assert_outcomes(passed=1, failed=1)
