"""Authoring errors stop the run with exit 2, before any runner is called, and say where."""

from __future__ import annotations

import pytest
from skillfactory import SPY_CALLS_FILE, make_skill, spy_runner_conftest

GOOD = """\
cases:
  - name: fine
    task: say hello
    assertions:
      - kind: contains
        value: spy says hello
"""

UNKNOWN_CASE_KEY = """\
cases:
  - name: first
    task: say hello

  - name: second
    task: say hello
    assertion:
      - kind: contains
        value: hello
"""

UNKNOWN_ASSERTION_KEY = """\
cases:
  - name: first
    task: say hello
    assertions:
      - kind: contains
        valeu: hello
"""

MISSING_NAME = """\
cases:
  - task: say hello
"""

MISSING_TASK = """\
cases:
  - name: no-task
    assertions:
      - kind: contains
        value: hello
"""

UNQUOTED_NUMBER = """\
cases:
  - name: order-number
    task: look up order 1234
    assertions:
      - kind: contains
        value: 1234
"""

DUPLICATE_CASE_NAMES = """\
cases:
  - name: greets
    task: say hello
  - name: Greets
    task: say hello again
"""

DUPLICATE_YAML_KEY = """\
cases:
  - name: twice
    task: say hello
    task: say goodbye
"""

NO_CASES_KEY = """\
- name: loose
  task: say hello
"""


def spy_calls(pytester: pytest.Pytester) -> str | None:
    path = pytester.path / SPY_CALLS_FILE
    return path.read_text() if path.exists() else None


def with_spy_and_good_skill(pytester: pytest.Pytester) -> None:
    """A spy runner, and a valid skill collected before the broken one."""
    pytester.makeconftest(spy_runner_conftest())
    make_skill(pytester.path / "skills", "a-good", GOOD)


# --- the message names file, case, position, field and fix --------------------------------


def test_unknown_case_key_names_file_case_field_and_suggests_the_key(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path, "typo", UNKNOWN_CASE_KEY)

    result = pytester.runpytest("--skill-lens", "typo")

    assert result.ret == 2
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "skill-lens authoring error: */typo/evals/cases.yaml:7, case 'second' "
            "(#2 in the file), field 'assertion': unknown key 'assertion'",
            "  fix: did you mean 'assertions'? allowed keys: *",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")


# The skill folder, its eval file, and the lines the authoring error must show.
LOCATED = [
    pytest.param(
        "typo",
        UNKNOWN_ASSERTION_KEY,
        [
            "*/typo/evals/cases.yaml:6, case 'first' (#1 in the file), "
            "field 'assertions[[]0[]].valeu': unknown key 'valeu'",
            "  fix: did you mean 'value'?*",
        ],
        id="unknown-key-inside-an-assertion",
    ),
    pytest.param(
        "broken",
        MISSING_NAME,
        ["*/broken/evals/cases.yaml:2, case (#1 in the file), field 'name': *missing*"],
        id="missing-name",
    ),
    pytest.param(
        "broken",
        MISSING_TASK,
        ["*/broken/evals/cases.yaml:2, case 'no-task' (#1 in the file), field 'task': *"],
        id="missing-task",
    ),
    pytest.param(
        "numbers",
        UNQUOTED_NUMBER,
        [
            "*/numbers/evals/cases.yaml:6, case 'order-number' (#1 in the file), "
            "field 'assertions[[]0[]].value': expected text, got the number 1234",
            "  fix: quote the value*",
        ],
        id="an-unquoted-number-where-text-is-expected",
    ),
]


@pytest.mark.parametrize(("skill", "cases", "lines"), LOCATED)
def test_the_error_names_file_line_case_and_field(
    pytester: pytest.Pytester, skill: str, cases: str, lines: list[str]
) -> None:
    make_skill(pytester.path, skill, cases)

    result = pytester.runpytest("--skill-lens", skill)

    assert result.ret == 2
    result.stdout.fnmatch_lines(lines)


def test_a_quoted_number_is_text(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "numbers", UNQUOTED_NUMBER.replace("value: 1234", 'value: "1234"'))

    result = pytester.runpytest("--skill-lens", "numbers")

    assert result.ret == 0
    result.assert_outcomes(passed=1)


def test_yes_no_on_off_stay_strings(pytester: pytest.Pytester) -> None:
    # The fake runner answers "[fake] <skill> handled: <task>".
    cases = """\
    cases:
      - name: yaml-1-1-booleans
        tags: [yes, no]
        task: reply yes no on off
        assertions:
          - kind: contains
            value: yes
          - kind: contains
            value: no
          - kind: contains
            value: on
          - kind: contains
            value: off
          - kind: regex
            value: handled. reply yes no on off$
    """
    make_skill(pytester.path, "booleans", cases)

    result = pytester.runpytest("--skill-lens", "booleans", "-k", "yes and no", "-v")

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["booleans/SKILL.md::yaml-1-1-booleans[[]fake[]] PASSED*"])


def test_yes_that_is_not_in_the_output_fails_as_text(pytester: pytest.Pytester) -> None:
    cases = """\
    cases:
      - name: says-yes
        task: reply please
        assertions:
          - kind: contains
            value: yes
    """
    make_skill(pytester.path, "booleans", cases)

    result = pytester.runpytest("--skill-lens", "booleans")

    assert result.ret == 1
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['*"yes" does not appear in the output*'])


# --- no runner is called when the run stops with exit 2 -----------------------------------

BROKEN = {
    "unknown-case-key": UNKNOWN_CASE_KEY,
    "unknown-assertion-key": UNKNOWN_ASSERTION_KEY,
    "missing-name": MISSING_NAME,
    "missing-task": MISSING_TASK,
    "unquoted-number": UNQUOTED_NUMBER,
    "duplicate-case-names": DUPLICATE_CASE_NAMES,
    "duplicate-yaml-key": DUPLICATE_YAML_KEY,
    "no-cases-key": NO_CASES_KEY,
}


def test_the_spy_runner_is_called_in_a_valid_run(pytester: pytest.Pytester) -> None:
    # The control for the tests below: the spy does record calls.
    with_spy_and_good_skill(pytester)

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "spy")

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert spy_calls(pytester) == "a-good::fine\n"


@pytest.mark.parametrize("problem", sorted(BROKEN))
def test_no_runner_is_called_when_an_eval_file_is_broken(
    pytester: pytest.Pytester, problem: str
) -> None:
    with_spy_and_good_skill(pytester)
    make_skill(pytester.path / "skills", "b-broken", BROKEN[problem])

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "spy")

    assert result.ret == 2
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["skill-lens authoring error: */b-broken/evals/cases.yaml*"])
    assert spy_calls(pytester) is None


@pytest.mark.parametrize(
    "frontmatter", ["name: b-broken\nversion: 1.20\n", "name: A-GOOD\n"], ids=["version", "dup"]
)
def test_no_runner_is_called_when_a_skill_md_is_broken(
    pytester: pytest.Pytester, frontmatter: str
) -> None:
    with_spy_and_good_skill(pytester)
    make_skill(pytester.path / "skills", "b-broken", GOOD, frontmatter=frontmatter)

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "spy")

    assert result.ret == 2
    result.stdout.fnmatch_lines(["skill-lens authoring error: */b-broken/SKILL.md*"])
    assert spy_calls(pytester) is None


@pytest.mark.parametrize("problem", ["unknown-case-key", "unquoted-number"])
def test_under_xdist_an_authoring_error_is_still_exit_2(
    pytester: pytest.Pytester, problem: str
) -> None:
    with_spy_and_good_skill(pytester)
    make_skill(pytester.path / "skills", "b-broken", BROKEN[problem])

    result = pytester.runpytest_subprocess(
        "--skill-lens", "skills", "--skill-lens-runner", "spy", "-n", "2"
    )

    assert result.ret == 2  # not xdist's 1
    result.stdout.fnmatch_lines(["*ERROR collecting skills/b-broken/SKILL.md*"])
    result.stdout.fnmatch_lines(["skill-lens authoring error: */b-broken/evals/cases.yaml*"])
    assert spy_calls(pytester) is None


def test_under_xdist_an_unknown_runner_is_still_exit_2(pytester: pytest.Pytester) -> None:
    with_spy_and_good_skill(pytester)
    make_skill(pytester.path / "skills", "b-other", GOOD)

    result = pytester.runpytest_subprocess(
        "--skill-lens", "skills", "--skill-lens-runner", "spyy", "-n", "2"
    )

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "Exit: skill-lens: --skill-lens-runner: unknown runner 'spyy'; "
            "available: claude-code, cli, codex, copilot, fake, gemini-cli, langchain, "
            "opencode, pydantic-ai, spy"
        ]
    )
    assert spy_calls(pytester) is None


def test_under_xdist_a_valid_run_calls_the_spy(pytester: pytest.Pytester) -> None:
    # The control for the xdist tests above.
    with_spy_and_good_skill(pytester)
    make_skill(pytester.path / "skills", "b-other", GOOD)

    result = pytester.runpytest_subprocess(
        "--skill-lens", "skills", "--skill-lens-runner", "spy", "-n", "2"
    )

    assert result.ret == 0
    result.assert_outcomes(passed=2)
    assert sorted((spy_calls(pytester) or "").splitlines()) == ["a-good::fine", "b-other::fine"]
