"""Discovery and collection: which skills and eval files become which items."""

from __future__ import annotations

import json

import pytest
from skillfactory import make_skill, write_file

ONE_CASE = """\
cases:
  - name: greets
    task: say hello
"""


def two_cases(first: str = "greets", second: str = "waves") -> str:
    return f"""\
cases:
  - name: {first}
    task: say hello
  - name: {second}
    task: wave goodbye
"""


def collected_ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line and "SKILL.md" in line]


def collect(pytester: pytest.Pytester, *args: str) -> list[str]:
    """The skill items of a ``--collect-only -q`` run, which must exit 0."""
    result = pytester.runpytest(*args, "--collect-only", "-q")
    assert result.ret == 0
    return collected_ids(result)


# --- which SKILL.md files are collected ------------------------------------------------


def test_a_path_holding_skill_md_is_that_one_skill(pytester: pytest.Pytester) -> None:
    outer = make_skill(pytester.path / "skills", "outer", ONE_CASE)
    make_skill(outer / "sub", "inner", ONE_CASE)  # nested below the given skill

    assert collect(pytester, "--skill-lens", "skills/outer") == [
        "skills/outer/SKILL.md::greets[fake]"
    ]


def test_a_directory_of_skills_collects_every_skill(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "alpha", ONE_CASE)
    make_skill(pytester.path / "skills", "beta", two_cases())
    make_skill(pytester.path / "skills" / "group", "gamma", ONE_CASE)

    result = pytester.runpytest("--skill-lens", "skills", "-v")

    assert result.ret == 0
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(
        [
            "skills/alpha/SKILL.md::greets[[]fake[]] PASSED*",
            "skills/beta/SKILL.md::greets[[]fake[]] PASSED*",
            "skills/beta/SKILL.md::waves[[]fake[]] PASSED*",
            "skills/group/gamma/SKILL.md::greets[[]fake[]] PASSED*",
        ]
    )


# --- which eval files belong to a skill -------------------------------------------------


def test_evals_dir_wins_over_eval_yaml_beside_skill_md(pytester: pytest.Pytester) -> None:
    skill = make_skill(pytester.path, "s", two_cases("from-dir-a", "from-dir-b"))
    write_file(skill / "evals" / "more.yml", "cases:\n  - name: from-yml\n    task: t\n")
    write_file(skill / "beside.eval.yaml", "cases:\n  - name: from-beside\n    task: t\n")

    assert collect(pytester, "--skill-lens", "s") == [
        "s/SKILL.md::from-dir-a[fake]",
        "s/SKILL.md::from-dir-b[fake]",
        "s/SKILL.md::from-yml[fake]",
    ]


def test_eval_yaml_beside_skill_md_is_read_when_there_is_no_evals_dir(
    pytester: pytest.Pytester,
) -> None:
    skill = make_skill(pytester.path, "s", ONE_CASE, evals_file="basic.eval.yaml")
    write_file(skill / "extra.eval.yaml", "cases:\n  - name: extra\n    task: t\n")
    # Not an eval file name: neither of these is read.
    write_file(skill / "notes.yaml", "cases:\n  - name: from-notes\n    task: t\n")
    write_file(skill / "cases.yml", "cases:\n  - name: from-cases-yml\n    task: t\n")

    result = pytester.runpytest("--skill-lens", "s", "-v")

    assert result.ret == 0
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["s/SKILL.md::greets[[]fake[]] PASSED*"])
    result.stdout.fnmatch_lines(["s/SKILL.md::extra[[]fake[]] PASSED*"])
    result.stdout.no_fnmatch_line("*from-notes*")
    result.stdout.no_fnmatch_line("*from-cases-yml*")


def test_evals_json_is_read_and_other_json_files_are_ignored(pytester: pytest.Pytester) -> None:
    skill = make_skill(pytester.path, "s", ONE_CASE)
    evals = {"skill_name": "s", "evals": [{"id": 7, "prompt": "do it", "assertions": ["ok"]}]}
    write_file(skill / "evals" / "evals.json", json.dumps(evals))
    # Would be an authoring error if it were read as an eval file.
    write_file(skill / "evals" / "fixture-data.json", '{"unrelated": true}')
    write_file(skill / "evals" / "schema.json", "not even json")

    assert collect(pytester, "--skill-lens", "s") == [
        "s/SKILL.md::greets[fake]",
        "s/SKILL.md::eval-7[fake]",
    ]


def test_skill_lens_evals_file_overrides_discovery(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "s", two_cases("discovered-a", "discovered-b"))
    write_file(pytester.path / "elsewhere" / "other.yaml", two_cases("over-a", "over-b"))
    write_file(pytester.path / "elsewhere" / "ignored.yaml", ONE_CASE)

    result = pytester.runpytest(
        "--skill-lens", "s", "--skill-lens-evals", "elsewhere/other.yaml", "-v"
    )

    assert result.ret == 0
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["s/SKILL.md::over-a[[]fake[]] PASSED*", "s/SKILL.md::over-b[[]fake[]] PASSED*"]
    )
    result.stdout.no_fnmatch_line("*discovered-*")
    result.stdout.no_fnmatch_line("*greets*")


def test_skill_lens_evals_dir_overrides_discovery(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "s", two_cases("discovered-a", "discovered-b"))
    write_file(pytester.path / "elsewhere" / "a.yaml", ONE_CASE)
    write_file(pytester.path / "elsewhere" / "b.yml", "cases:\n  - name: from-b\n    task: t\n")
    write_file(pytester.path / "elsewhere" / "readme.txt", "not an eval file")

    assert collect(pytester, "--skill-lens", "s", "--skill-lens-evals", "elsewhere") == [
        "s/SKILL.md::greets[fake]",
        "s/SKILL.md::from-b[fake]",
    ]


def test_skill_lens_evals_path_that_does_not_exist_is_exit_2(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "s", ONE_CASE)

    result = pytester.runpytest("--skill-lens", "s", "--skill-lens-evals", "missing.yaml")

    assert result.ret == 2
    result.stdout.fnmatch_lines(["*missing.yaml*--skill-lens-evals does not exist*"])


# --- skills without cases -------------------------------------------------------------


def test_a_skill_without_eval_files_shows_as_skipped(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "with-cases", ONE_CASE)
    make_skill(pytester.path / "skills", "empty")

    result = pytester.runpytest("--skill-lens", "skills", "-rs")

    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*= skill-lens =*", "Skipped (no eval cases): empty"])
    result.stdout.fnmatch_lines(
        ["SKIPPED * skills/empty/SKILL.md*: skill 'empty' has no eval cases"]
    )


def test_a_skill_with_an_empty_cases_list_shows_as_skipped(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "with-cases", ONE_CASE)
    make_skill(pytester.path / "skills", "empty", "cases: []\n")

    assert collect(pytester, "--skill-lens", "skills") == [
        "skills/empty/SKILL.md::(no eval cases)",
        "skills/with-cases/SKILL.md::greets[fake]",
    ]


def test_the_only_skill_without_cases_fails_the_gate(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "empty")

    result = pytester.runpytest("--skill-lens", "empty")

    assert result.ret == 1  # zero cases ran: a gate failure, not pytest's 5
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        ["Skipped (no eval cases): empty", "Gate FAILED:", "*no eval cases ran*empty*"]
    )


# --- skill names -------------------------------------------------------------------------


def test_a_skill_without_name_is_named_after_its_directory(pytester: pytest.Pytester) -> None:
    # The fake runner answers "[fake] <skill name> handled: <task>".
    cases = """\
    cases:
      - name: uses-dir-name
        task: say hello
        assertions:
          - kind: contains
            value: "[fake] my-dir-skill handled: say hello"
    """
    make_skill(
        pytester.path,
        "ignored",
        cases,
        frontmatter="description: no name\n",
        dirname="my-dir-skill",
    )
    make_skill(pytester.path, "nameless-empty", frontmatter="description: no name\n")

    result = pytester.runpytest("--skill-lens", ".")

    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["Skipped (no eval cases): nameless-empty"])


def test_duplicate_skill_names_ignoring_case_are_exit_2(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "team-a", "Greeter", ONE_CASE, dirname="one")
    make_skill(pytester.path / "team-b", "greeter", ONE_CASE, dirname="two")

    result = pytester.runpytest("--skill-lens", "team-a", "--skill-lens", "team-b")

    assert result.ret == 2
    result.assert_outcomes(errors=1)
    text = result.stdout.str()
    assert "team-a/one" in text
    assert "team-b/two" in text
    result.stdout.fnmatch_lines(["*skill name 'greeter' is also the name of *team-a/one*"])


def test_a_skill_without_name_clashing_with_a_named_one_is_exit_2(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "x", "helper", ONE_CASE, dirname="a")
    make_skill(
        pytester.path / "y", "unused", ONE_CASE, frontmatter="description: d\n", dirname="HELPER"
    )

    result = pytester.runpytest("--skill-lens", "x", "--skill-lens", "y")

    assert result.ret == 2
    result.stdout.fnmatch_lines(["*y/HELPER/SKILL.md*name*also the name of *x/a*"])


def test_unquoted_version_is_exit_2_naming_file_and_field(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "vers", ONE_CASE, frontmatter="name: vers\nversion: 1.20\n")

    result = pytester.runpytest("--skill-lens", "vers")

    assert result.ret == 2
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            # The line of the field, in the file.
            "skill-lens authoring error: */vers/SKILL.md:3, field 'version': "
            "version must be a string*",
            # The fix quotes the value as written, not as YAML read it (1.2).
            '  fix: quote it: version: "1.20"*',
        ]
    )


def test_quoted_version_is_accepted(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "vers", ONE_CASE, frontmatter='name: vers\nversion: "1.20"\n')

    result = pytester.runpytest("--skill-lens", "vers")

    assert result.ret == 0
    result.assert_outcomes(passed=1)


# --- --collect-only ----------------------------------------------------------------------

SYS_MODULES_CONFTEST = """\
import json
import sys
from pathlib import Path


def pytest_sessionfinish(session):
    out = Path(__file__).parent / "modules.json"
    out.write_text(json.dumps(sorted(sys.modules)))
"""


def test_collect_only_lists_ids_without_importing_frameworks(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "hello", two_cases())
    make_skill(pytester.path / "skills", "other", ONE_CASE)
    pytester.makeconftest(SYS_MODULES_CONFTEST)

    result = pytester.runpytest_subprocess("--skill-lens", "skills", "--collect-only", "-q")

    assert result.ret == 0
    assert collected_ids(result) == [
        "skills/hello/SKILL.md::greets[fake]",
        "skills/hello/SKILL.md::waves[fake]",
        "skills/other/SKILL.md::greets[fake]",
    ]
    result.stdout.fnmatch_lines(["3 tests collected*"])
    modules = set(json.loads((pytester.path / "modules.json").read_text()))
    assert "pytest_skill_lens" in modules  # the hook really recorded this run
    for heavy in ("pydantic_ai", "langchain", "langchain_core", "mcp", "genai_prices"):
        assert heavy not in modules, f"{heavy} imported by --collect-only"


# --- what is collected besides the skills -------------------------------------------------


def test_without_positional_args_only_the_skill_paths_are_collected(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "hello", ONE_CASE)
    pytester.makepyfile(test_x="def test_ordinary():\n    assert False\n")

    result = pytester.runpytest("--skill-lens", "skills", "-v")

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*test_ordinary*")


def test_with_a_positional_test_path_both_run(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "hello", ONE_CASE)
    pytester.makepyfile(test_x="def test_ordinary():\n    pass\n")

    result = pytester.runpytest("--skill-lens", "skills", "test_x.py", "-v")

    assert result.ret == 0
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["test_x.py::test_ordinary PASSED*"])
    result.stdout.fnmatch_lines(["skills/hello/SKILL.md::greets[[]fake[]] PASSED*"])


def test_a_failing_ordinary_test_in_a_mixed_run_is_exit_1(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "hello", ONE_CASE)
    pytester.makepyfile(test_x="def test_ordinary():\n    assert False\n")

    result = pytester.runpytest("--skill-lens", "skills", "test_x.py")

    assert result.ret == 1
    result.assert_outcomes(passed=1, failed=1)


def test_without_skill_lens_a_skill_md_is_not_collected(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "hello", ONE_CASE)
    pytester.makepyfile(test_x="def test_ordinary():\n    pass\n")

    result = pytester.runpytest("-v")

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*SKILL.md*")


# --- node ids, locations and order ------------------------------------------------------


def test_an_explicit_node_id_runs_exactly_that_item(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "hello", two_cases())
    make_skill(pytester.path / "skills", "other", ONE_CASE)

    result = pytester.runpytest(
        "skills/hello/SKILL.md::greets[fake]", "--skill-lens", "skills", "-v"
    )

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["skills/hello/SKILL.md::greets[[]fake[]] PASSED*"])
    result.stdout.no_fnmatch_line("*waves*")
    result.stdout.no_fnmatch_line("*other/SKILL.md*")


def test_an_explicit_repeat_node_id_runs_only_that_repeat(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "hello", two_cases())

    result = pytester.runpytest(
        "skills/hello/SKILL.md::greets[fake-r2]",
        "--skill-lens",
        "skills",
        "--skill-lens-repeat",
        "2",
        "-v",
    )

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["skills/hello/SKILL.md::greets[[]fake-r2[]] PASSED*"])


def test_a_skill_md_file_as_the_skill_path(pytester: pytest.Pytester) -> None:
    outer = make_skill(pytester.path / "skills", "outer", two_cases())
    make_skill(outer / "nested", "inner", ONE_CASE)
    make_skill(pytester.path / "skills", "sibling", ONE_CASE)

    assert collect(pytester, "--skill-lens", "skills/outer/SKILL.md") == [
        "skills/outer/SKILL.md::greets[fake]",
        "skills/outer/SKILL.md::waves[fake]",
    ]


LOCATION_CONFTEST = """\
import json
from pathlib import Path


def pytest_collection_finish(session):
    out = Path(__file__).parent / "locations.json"
    out.write_text(json.dumps({item.nodeid: list(item.location) for item in session.items}))
"""


def collected_locations(pytester: pytest.Pytester) -> dict[str, list[object]]:
    """Each collected item's location, as LOCATION_CONFTEST recorded it."""
    pytester.makeconftest(LOCATION_CONFTEST)
    result = pytester.runpytest("--skill-lens", "skills", "--collect-only", "-q")
    assert result.ret == 0
    locations: dict[str, list[object]] = json.loads((pytester.path / "locations.json").read_text())
    return locations


def hello_case(name: str, eval_file: str, line: int) -> tuple[str, list[object]]:
    """The node id and location of the hello skill's case ``name``."""
    nodeid = f"skills/hello/SKILL.md::{name}[fake]"
    return nodeid, [f"skills/hello/evals/{eval_file}", line, f"hello :: {name} (fake)"]


def test_item_location_points_at_the_case_in_its_eval_file(pytester: pytest.Pytester) -> None:
    cases = """\
    # a comment first, so the case lines are not trivially 0 and 1
    cases:
      - name: greets
        task: say hello

      - name: waves
        tags: [slow]
        task: wave
    """
    make_skill(pytester.path / "skills", "hello", cases)

    assert collected_locations(pytester) == dict(
        [hello_case("greets", "cases.yaml", 2), hello_case("waves", "cases.yaml", 5)]
    )


def test_each_eval_file_of_a_skill_gives_its_own_cases_their_path(
    pytester: pytest.Pytester,
) -> None:
    # Items keep one reported path per eval file (CaseItem.location): never another file's.
    make_skill(pytester.path / "skills", "hello", "cases:\n  - name: greets\n    task: hi\n")
    more = pytester.path / "skills" / "hello" / "evals" / "more.yaml"
    more.write_text("cases:\n  - name: waves\n    task: wave\n", encoding="utf-8")

    assert collected_locations(pytester) == dict(
        [hello_case("greets", "cases.yaml", 1), hello_case("waves", "more.yaml", 1)]
    )


TWO_RUNNERS_CONFTEST = """\
from pytest_skill_lens.run.result import RunResult


class Echo:
    name = "echo"

    def run(self, skill, case, workspace):
        return RunResult(output="echo: " + case.task)


def pytest_skill_lens_runners(config):
    return {"echo": lambda context: Echo()}
"""


def test_items_run_in_planned_order(pytester: pytest.Pytester) -> None:
    # Directory order is the opposite of skill-name order; cases keep file order.
    make_skill(pytester.path / "skills", "zeta", two_cases("z2", "z1"), dirname="1-first")
    make_skill(pytester.path / "skills", "alpha", ONE_CASE, dirname="2-second")
    pytester.makeconftest(TWO_RUNNERS_CONFTEST)

    result = pytester.runpytest(
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "fake",
        "--skill-lens-runner",
        "echo",
        "--skill-lens-repeat",
        "2",
        "-v",
    )

    assert result.ret == 0
    result.assert_outcomes(passed=12)
    ran = [line.split(" ")[0] for line in result.outlines if " PASSED" in line]
    assert ran == [
        "skills/2-second/SKILL.md::greets[fake]",
        "skills/2-second/SKILL.md::greets[fake-r2]",
        "skills/2-second/SKILL.md::greets[echo]",
        "skills/2-second/SKILL.md::greets[echo-r2]",
        "skills/1-first/SKILL.md::z2[fake]",
        "skills/1-first/SKILL.md::z2[fake-r2]",
        "skills/1-first/SKILL.md::z2[echo]",
        "skills/1-first/SKILL.md::z2[echo-r2]",
        "skills/1-first/SKILL.md::z1[fake]",
        "skills/1-first/SKILL.md::z1[fake-r2]",
        "skills/1-first/SKILL.md::z1[echo]",
        "skills/1-first/SKILL.md::z1[echo-r2]",
    ]


def test_runner_order_follows_the_command_line(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "hello", ONE_CASE)
    pytester.makeconftest(TWO_RUNNERS_CONFTEST)

    assert collect(
        pytester,
        "--skill-lens",
        "hello",
        "--skill-lens-runner",
        "echo",
        "--skill-lens-runner",
        "fake",
    ) == ["hello/SKILL.md::greets[echo]", "hello/SKILL.md::greets[fake]"]


# --- the parse cache ---------------------------------------------------------------------


def test_parsed_eval_files_are_cached_and_an_edit_is_read_again(pytester: pytest.Pytester) -> None:
    make_skill(
        pytester.path / "skills",
        "hello",
        "cases:\n  - name: greets\n    task: say hi\n"
        "    assertions:\n      - {kind: contains, value: handled}\n",
    )
    assert pytester.runpytest("--skill-lens", "skills").ret == 0
    slots = list((pytester.path / ".pytest_cache" / "d" / "skill-lens-parsed").iterdir())
    assert len(slots) == 1
    # The edited text must be read, not the cached cases: the new assertion fails.
    make_skill(
        pytester.path / "skills",
        "hello",
        "cases:\n  - name: greets\n    task: say hi\n"
        "    assertions:\n      - {kind: contains, value: never said}\n",
    )
    result = pytester.runpytest("--skill-lens", "skills")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*contains[[]0[]]*never said*"])


def test_without_the_cache_provider_nothing_is_cached(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "hello", ONE_CASE)
    assert pytester.runpytest("--skill-lens", "skills", "-p", "no:cacheprovider").ret == 0
    assert not (pytester.path / ".pytest_cache").exists()
