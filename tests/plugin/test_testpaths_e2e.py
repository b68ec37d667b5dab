"""A repository's ``testpaths`` never reaches a skills-only run.

With ``--skill-lens PATH`` and no positional path, pytest would read its initial
conftests from ``testpaths`` (a unit-test ``tests/conftest.py``, say) before the plugin
narrows collection; a skills-only CI job must not die on a conftest it never needed.
The run behaves as if the skill paths were the arguments. With positional paths,
pytest's own choice stands.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from runs import LensRun
from skillfactory import QUIET_PLUGINS, make_skill, write_file

ONE_CASE = """\
cases:
  - name: greets
    task: say hello
"""

# A unit-test conftest whose imports the skills-only job does not have.
UNIT_CONFTEST = "import module_only_the_unit_tests_install  # noqa: F401\n"
IN_A_CHILD = LensRun(subprocess=True)


@pytest.fixture
def team_repo(pytester: pytest.Pytester) -> Path:
    """A repository with ``testpaths = tests``, a conftest there that cannot be
    imported, a unit test, and one skill under ``skills/``."""
    write_file(pytester.path / "pytest.ini", "[pytest]\ntestpaths = tests\n")
    write_file(pytester.path / "tests" / "conftest.py", UNIT_CONFTEST)
    write_file(pytester.path / "tests" / "test_unit.py", "def test_unit():\n    pass\n")
    make_skill(pytester.path / "skills", "greeter", ONE_CASE)
    return pytester.path


def test_skill_paths_stand_in_for_testpaths(pytester: pytest.Pytester, team_repo: Path) -> None:
    result = IN_A_CHILD(pytester, "-v")
    out = result.stdout.str() + result.stderr.str()
    assert "module_only_the_unit_tests_install" not in out
    assert result.ret == 0, out
    result.stdout.fnmatch_lines(["*skills/greeter/SKILL.md::greets*PASSED*"])
    assert "test_unit" not in out
    result.assert_outcomes(passed=1)


def test_ini_skill_paths_stand_in_for_testpaths(pytester: pytest.Pytester, team_repo: Path) -> None:
    write_file(team_repo / "pytest.ini", "[pytest]\ntestpaths = tests\nskill_lens_paths = skills\n")
    result = pytester.runpytest_subprocess(*QUIET_PLUGINS)
    out = result.stdout.str() + result.stderr.str()
    assert "module_only_the_unit_tests_install" not in out
    assert result.ret == 0, out
    result.assert_outcomes(passed=1)


def test_a_missing_skill_path_is_named_not_the_unit_conftest(
    pytester: pytest.Pytester, team_repo: Path
) -> None:
    result = replace(IN_A_CHILD, skills="skils")(pytester)
    out = result.stdout.str() + result.stderr.str()
    assert "module_only_the_unit_tests_install" not in out
    assert result.ret == 2, out
    assert "skils does not exist" in out


def test_positional_paths_keep_pytests_choice(pytester: pytest.Pytester, team_repo: Path) -> None:
    """Asked for ``tests`` by name, the run loads its conftest as pytest always does."""
    write_file(team_repo / "tests" / "conftest.py", "MARK = 1\n")
    result = IN_A_CHILD(pytester, "tests")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
    # ... and the conftest that cannot be imported stops it, as it stops any pytest run.
    write_file(team_repo / "tests" / "conftest.py", UNIT_CONFTEST)
    result = IN_A_CHILD(pytester, "tests")
    assert "module_only_the_unit_tests_install" in result.stdout.str() + result.stderr.str()
    assert result.ret != 0
