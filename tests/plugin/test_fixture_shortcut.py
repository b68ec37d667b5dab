"""A case item goes through pytest's fixture machinery only where a fixture is defined
again; everywhere else it makes the same values itself (docs/performance.md)."""

from __future__ import annotations

import json
import textwrap
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from skillfactory import make_skill, scripted_runner_conftest, write_file
from test_fixtures import SEEDED_CASE, SHOWS_NOTES, run_items

from pytest_skill_lens.plugin import fixtures
from pytest_skill_lens.plugin.overrides import FixtureOverrides, defines_case_fixture

NOTES_CASE = SEEDED_CASE + "      - kind: contains\n        value: written by an autouse fixture\n"
ONE_CASE = "cases:\n  - name: one\n    task: t\n"

COUNTING_WRAPPER = """

@pytest.fixture
def skill_lens_runner(skill_lens_runner, request):
    import pathlib
    log = pathlib.Path(request.config.rootpath, "wrapped.log")
    with log.open("a", encoding="utf-8") as handle:
        handle.write(request.node.skill.name + "\\n")
    return skill_lens_runner
"""


def test_a_wrapper_applies_below_its_conftest_only(pytester: pytest.Pytester) -> None:
    two_cases = "cases:\n  - name: one\n    task: t\n  - name: two\n    task: t\n"
    make_skill(pytester.path / "skills" / "wrapped", "inner", two_cases)
    make_skill(pytester.path / "skills" / "plain", "outer", two_cases)
    write_file(
        pytester.path / "skills" / "wrapped" / "conftest.py",
        "import pytest\n" + textwrap.dedent(COUNTING_WRAPPER),
    )
    result = run_items(pytester)
    result.assert_outcomes(passed=4)
    # The wrapper saw the two items of the skill below it, and none of the other's.
    log = (pytester.path / "wrapped.log").read_text(encoding="utf-8").split()
    assert log == ["inner", "inner"]


def one_case_under(pytester: pytest.Pytester, conftest: str) -> None:
    """Skill ``notes`` with one case, below a root conftest.py of ``conftest`` (dedented)."""
    make_skill(pytester.path / "skills", "notes", ONE_CASE)
    write_file(pytester.path / "conftest.py", textwrap.dedent(conftest))


def test_a_fixture_defined_under_another_attribute_name_still_counts(
    pytester: pytest.Pytester,
) -> None:
    one_case_under(
        pytester,
        """
        import pytest

        @pytest.fixture(name="skill_lens_runner")
        def broken_runner():
            raise RuntimeError("the conftest's runner is used")
        """,
    )
    result = run_items(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*a fixture could not be set up: RuntimeError: the conftest*"])


def test_an_autouse_fixture_sees_the_workspace_the_case_runs_in(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "notes", NOTES_CASE)
    write_file(
        pytester.path / "conftest.py",
        scripted_runner_conftest(
            SHOWS_NOTES,
            """
            import pytest

            @pytest.fixture(autouse=True)
            def seed_notes(skill_lens_workspace):
                if skill_lens_workspace is not None:
                    skill_lens_workspace.write_file("notes.txt", "written by an autouse fixture")
            """,
        ),
    )
    result = run_items(pytester, "--skill-lens-runner", "scripted")
    result.assert_outcomes(passed=1)


def test_junit_properties_are_carried_by_the_teardown_report_only(
    pytester: pytest.Pytester,
) -> None:
    one_case_under(
        pytester,
        """
        import json, pathlib

        def pytest_runtest_logreport(report):
            with pathlib.Path("props.log").open("a", encoding="utf-8") as handle:
                handle.write(json.dumps([report.when, len(report.user_properties)]) + "\\n")
        """,
    )
    result = run_items(pytester, "--junitxml", "junit.xml")
    result.assert_outcomes(passed=1)
    lines = (pytester.path / "props.log").read_text(encoding="utf-8").splitlines()
    counts = dict(json.loads(line) for line in lines)
    assert counts["setup"] == 0 and counts["call"] == 0 and counts["teardown"] > 0
    testcase = ET.parse(pytester.path / "junit.xml").getroot().find(".//testcase")
    assert testcase is not None
    names = [prop.get("name") for prop in testcase.iter("property")]
    assert len(names) == counts["teardown"] and "status" in names


def test_the_plugins_own_fixtures_are_no_override() -> None:
    module = types.ModuleType("imports_ours")
    module.skill_lens_runner = fixtures.skill_lens_runner  # type: ignore[attr-defined]
    assert not defines_case_fixture(module, fixtures.OWN_FIXTURES)
    assert not defines_case_fixture(fixtures, fixtures.OWN_FIXTURES)


def test_an_override_applies_to_paths_below_its_conftest(tmp_path: Path) -> None:
    conftest = types.ModuleType("conftest")
    conftest.__file__ = str(tmp_path / "a" / "conftest.py")

    @pytest.fixture
    def skill_lens_judge() -> None:
        return None

    conftest.skill_lens_judge = skill_lens_judge  # type: ignore[attr-defined]
    overrides = FixtureOverrides(fixtures.OWN_FIXTURES)
    overrides.note(conftest)
    assert overrides.apply_to(tmp_path / "a" / "s" / "SKILL.md")
    assert not overrides.apply_to(tmp_path / "b" / "SKILL.md")
    plugin = types.ModuleType("some_plugin")  # a plugin, not a conftest: everywhere
    plugin.skill_lens_judge = skill_lens_judge  # type: ignore[attr-defined]
    overrides.note(plugin)
    assert overrides.apply_to(tmp_path / "b" / "SKILL.md")
