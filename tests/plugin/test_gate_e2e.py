"""The gate at session end: it sets the exit code, and the ``skill-lens`` section says why."""

from __future__ import annotations

import textwrap

import pytest
from runs import LensRun
from skillfactory import make_scripted_skills


def _step(case: str) -> dict[str, str]:
    """A case passes iff its name starts with "pass"; one starting with "error" errors."""
    if case.startswith("error"):
        return {"error": "the provider timed out"}
    return {"output": "PASS" if case.startswith("pass") else "nope"}


def _skills(pytester: pytest.Pytester, skills: dict[str, list[str] | None]) -> None:
    """``skills/<name>`` with a case per name, tagged smoke (None: no evals); see ``_step``."""
    case = {"tags": ["smoke"], "assertions": [{"kind": "contains", "value": "PASS"}]}
    make_scripted_skills(pytester.path, skills, _step, case)


def _run(pytester: pytest.Pytester, *args: str, toml: str = "") -> pytest.RunResult:
    (pytester.path / "skill-lens.toml").write_text(textwrap.dedent(toml), encoding="utf-8")
    return LensRun(runner="scripted")(pytester, *args)


def _section(result: pytest.RunResult) -> list[str]:
    """The lines of the ``skill-lens`` terminal section (up to pytest's next section)."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if " skill-lens " in line and "==" in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("==")), len(lines))
    return lines[start + 1 : end]


def _reasons(result: pytest.RunResult) -> list[str]:
    section = _section(result)
    if "Gate FAILED:" not in section:
        return []
    at = section.index("Gate FAILED:")
    return [line[4:] for line in section[at + 1 :] if line.startswith("  - ")]


def test_all_passing_exits_0(pytester: pytest.Pytester) -> None:
    _skills(pytester, {"alpha": ["pass-one", "pass-two"]})
    result = _run(pytester)
    assert result.ret == 0
    result.assert_outcomes(passed=2)
    section = _section(result)
    assert "2 passed, 0 failed, 0 errored — pass rate 100%" in section
    assert "Gate FAILED:" not in section


def test_one_failure_exits_1_with_the_reason(pytester: pytest.Pytester) -> None:
    _skills(pytester, {"alpha": ["pass-one", "fail-two"]})
    result = _run(pytester)
    assert result.ret == 1
    assert "1 passed, 1 failed, 0 errored — pass rate 50%" in _section(result)
    assert _reasons(result) == ["pass rate 50% is below the required 100%"]


def test_a_lower_min_pass_rate_turns_a_failing_pytest_run_green(
    pytester: pytest.Pytester,
) -> None:
    _skills(pytester, {"alpha": ["pass-one", "fail-two"]})
    result = _run(pytester, "--skill-lens-min-pass-rate", "0.5")
    result.assert_outcomes(passed=1, failed=1)  # pytest still reports the failure...
    assert result.ret == 0  # ...but the gate decides the exit code
    assert _reasons(result) == []


def test_min_pass_rate_from_skill_lens_toml(pytester: pytest.Pytester) -> None:
    _skills(pytester, {"alpha": ["pass-1", "pass-2", "fail-3"]})
    result = _run(pytester, toml="min_pass_rate = 0.7\n")
    assert result.ret == 1
    assert _reasons(result) == ["pass rate 67% is below the required 70%"]


def test_errored_case_passes_the_gate_only_with_fail_on_error_off(
    pytester: pytest.Pytester,
) -> None:
    _skills(pytester, {"alpha": ["pass-one", "error-two"]})
    off = _run(pytester, toml="min_pass_rate = 0.5\nfail_on_error = false\n")
    off.assert_outcomes(passed=1, errors=1)
    assert off.ret == 0
    assert "1 passed, 0 failed, 1 errored — pass rate 50%" in _section(off)

    default = _run(pytester, toml="min_pass_rate = 0.5\n")
    assert default.ret == 1
    assert _reasons(default) == ["1 case errored"]


def test_errored_cases_stay_in_the_pass_rate_denominator(pytester: pytest.Pytester) -> None:
    _skills(pytester, {"alpha": ["pass-one", "error-two", "error-three"]})
    result = _run(pytester, toml="min_pass_rate = 0.5\nfail_on_error = false\n")
    assert result.ret == 1
    assert _reasons(result) == ["pass rate 33% is below the required 50%"]


def test_per_skill_min_fails_a_skill_below_its_minimum(pytester: pytest.Pytester) -> None:
    _skills(pytester, {"alpha": ["pass-1", "fail-2"], "beta": ["pass-1", "pass-2"]})
    toml = """
        min_pass_rate = 0.5
        [per_skill_min]
        beta = 1.0
        alpha = 0.75
    """
    result = _run(pytester, toml=toml)
    assert result.ret == 1
    assert _reasons(result) == ["skill 'alpha' pass rate 50% is below its required 75%"]

    met = _run(pytester, toml=toml.replace("0.75", "0.5"))
    assert met.ret == 0


def test_per_skill_min_for_a_skill_with_no_results(pytester: pytest.Pytester) -> None:
    _skills(pytester, {"alpha": ["pass-1"], "empty": None})
    toml = """
        [per_skill_min]
        ghost = 0.8
        empty = 0.5
    """
    result = _run(pytester, toml=toml)
    assert result.ret == 1
    assert _reasons(result) == [
        "skill 'ghost' requires a pass rate of 80% but produced no results",
        "skill 'empty' requires a pass rate of 50% but was skipped (no eval cases)",
    ]


def test_zero_cases_is_a_gate_failure_not_exit_5(pytester: pytest.Pytester) -> None:
    _skills(pytester, {"empty": None})
    result = _run(pytester)
    assert result.ret == 1
    result.assert_outcomes(skipped=1)
    section = _section(result)
    assert "Skipped (no eval cases): empty" in section
    assert "0 passed, 0 failed, 0 errored — no case ran: no pass rate" in section
    assert _reasons(result) == [
        "no eval cases ran: all discovered skill(s) were skipped for having no eval cases: empty"
    ]


def test_no_skill_at_all_is_a_gate_failure(pytester: pytest.Pytester) -> None:
    _skills(pytester, {})
    result = _run(pytester)
    assert result.ret == 1
    assert _reasons(result) == ["no eval cases ran: no skills were found"]


@pytest.mark.parametrize("selection", [("-k", "nomatch"), ("-m", "not smoke")])
def test_a_selection_that_leaves_no_case_is_a_gate_failure(
    pytester: pytest.Pytester, selection: tuple[str, str]
) -> None:
    _skills(pytester, {"alpha": ["pass-1", "pass-2"]})
    result = _run(pytester, *selection)
    assert result.ret == 1
    assert _reasons(result) == [
        "no eval cases ran: the -k/-m selection deselected every case (skill(s): alpha)"
    ]


def test_stopping_early_leaves_cases_not_run_and_fails_the_gate(
    pytester: pytest.Pytester,
) -> None:
    _skills(pytester, {"alpha": ["pass-1", "fail-2", "pass-3", "pass-4"]})
    # Without -x, 3 of 4 meets the bar.
    assert _run(pytester, "--skill-lens-min-pass-rate", "0.5").ret == 0

    result = _run(pytester, "--skill-lens-min-pass-rate", "0.5", "-x")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 1
    section = _section(result)
    assert "1 passed, 1 failed, 0 errored, 2 not run — pass rate 50%" in section
    assert section[section.index("Not run:") + 1 :][:2] == [
        "  alpha :: pass-3 (scripted)",
        "  alpha :: pass-4 (scripted)",
    ]
    (reason,) = _reasons(result)
    assert reason.startswith("2 case(s) did not run: the session stopped before they ran (-x")


def test_maxfail_counts_unrun_cases_too(pytester: pytest.Pytester) -> None:
    _skills(pytester, {"alpha": ["fail-1", "pass-2", "pass-3"]})
    result = _run(pytester, "--skill-lens-min-pass-rate", "0", "--maxfail", "1")
    assert result.ret == 1
    (reason,) = _reasons(result)
    assert reason.startswith("2 case(s) did not run")


def _ordinary_test(pytester: pytest.Pytester, passes: bool) -> None:
    pytester.makepyfile(test_plain=f"def test_plain():\n    assert {passes}\n")


def test_an_ordinary_failing_test_keeps_exit_1_when_the_gate_passes(
    pytester: pytest.Pytester,
) -> None:
    _skills(pytester, {"alpha": ["pass-1"]})
    _ordinary_test(pytester, passes=False)
    result = _run(pytester, "test_plain.py")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 1
    assert _reasons(result) == []  # the gate itself passed
    assert "1 ordinary test(s) failed: exit code 1" in _section(result)


def test_a_mixed_run_with_everything_passing_exits_0(pytester: pytest.Pytester) -> None:
    _skills(pytester, {"alpha": ["pass-1"]})
    _ordinary_test(pytester, passes=True)
    result = _run(pytester, "test_plain.py")
    result.assert_outcomes(passed=2)
    assert result.ret == 0


def test_the_gate_forgives_case_failures_but_not_ordinary_ones(
    pytester: pytest.Pytester,
) -> None:
    _skills(pytester, {"alpha": ["pass-1", "fail-2"]})
    _ordinary_test(pytester, passes=False)
    result = _run(pytester, "test_plain.py", "--skill-lens-min-pass-rate", "0.5")
    assert result.ret == 1
    # The ordinary test is never counted among the cases.
    assert "1 passed, 1 failed, 0 errored — pass rate 50%" in _section(result)
