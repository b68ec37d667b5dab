"""The item's fixtures are real pytest fixtures: a conftest.py can wrap or replace them."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from runs import LensRun
from skillfactory import make_skill, scripted_runner_conftest, write_file

# A case whose workspace a fixture adds notes.txt to, and whose scripted answer (a conftest
# registering scripted_runner_conftest(SHOWS_NOTES)) is that file; its assertions follow.
# test_fixture_shortcut.py uses it too.
SEEDED_CASE = """
cases:
  - name: reads-the-seed
    task: show me notes.txt
    workspace:
      files:
        data.txt: seeded by the case
    assertions:
"""
SHOWS_NOTES = {"reads-the-seed": {"show_file": "notes.txt"}}
WORKSPACE_CASE = (
    SEEDED_CASE
    + """\
      - kind: contains
        value: added by a conftest
      - kind: contains
        file: notes.txt
        value: added by a conftest
"""
)


NO_CACHE = ("-p", "no:cacheprovider")
ITEMS = LensRun(json="report.json", options=NO_CACHE)


def run_items(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """The skills under ``skills`` as a user runs them, with no skill-lens.toml of ours."""
    (pytester.path / "skill-lens.toml").write_text("", encoding="utf-8")
    return ITEMS(pytester, *args)


def _conftest(pytester: pytest.Pytester, text: str, where: Path | None = None) -> None:
    write_file((where or pytester.path) / "conftest.py", textwrap.dedent(text))


def test_a_conftest_wraps_the_workspace_and_the_fixture_deletes_it_at_teardown(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "notes", WORKSPACE_CASE)
    _conftest(
        pytester,
        scripted_runner_conftest(SHOWS_NOTES)
        + textwrap.dedent(
            """

            import pytest

            SEEN = []

            @pytest.fixture
            def skill_lens_workspace(skill_lens_workspace):
                skill_lens_workspace.write_file("notes.txt", "added by a conftest")
                SEEN.append(skill_lens_workspace.root)
                yield skill_lens_workspace
                # Our teardown runs first: the plugin's fixture deletes it after.
                assert skill_lens_workspace.root.is_dir()

            def pytest_sessionfinish(session):
                for root in SEEN:
                    (session.config.rootpath / "seen.txt").write_text(
                        f"{root}|{root.exists()}"
                    )
            """
        ),
    )
    result = run_items(pytester, "--skill-lens-runner", "scripted")
    result.assert_outcomes(passed=1)
    root, exists = (pytester.path / "seen.txt").read_text().split("|")
    assert root and exists == "False"
    assert ITEMS.report(pytester).outcomes[0]["workspace"] is None


def test_a_kept_workspace_survives_the_fixture_teardown(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "notes", WORKSPACE_CASE)
    _conftest(
        pytester,
        scripted_runner_conftest(
            {"reads-the-seed": {"write": {"notes.txt": "added by a conftest"}, "output": ""}}
        ),
    )
    result = run_items(pytester, "--skill-lens-runner", "scripted", "--skill-lens-keep-workspace")
    result.assert_outcomes(failed=1)  # the output does not say it; the file does
    kept = ITEMS.report(pytester).outcomes[0]["workspace"]
    try:
        assert (Path(kept) / "notes.txt").read_text() == "added by a conftest"
        assert (Path(kept) / "data.txt").read_text() == "seeded by the case"
    finally:
        shutil.rmtree(kept, ignore_errors=True)  # kept for the user: the test's to remove


def test_a_directory_conftest_replaces_the_runner_for_its_skills_only(
    pytester: pytest.Pytester,
) -> None:
    case = """
    cases:
      - name: greets
        task: say hello
        assertions:
          - kind: contains
            value: replaced
    """
    make_skill(pytester.path / "skills" / "inner", "inside", case)
    make_skill(pytester.path / "skills", "outside", case)
    _conftest(
        pytester,
        """
        import pytest
        from pytest_skill_lens.run.result import RunResult

        class Replacement:
            name = "replacement"

            def __init__(self, wrapped):
                self.wrapped = wrapped

            def run(self, skill, case, workspace):
                inner = self.wrapped.run(skill, case, workspace)
                return RunResult(output="replaced: " + inner.output, model="replacement")

        @pytest.fixture
        def skill_lens_runner(skill_lens_runner):
            return Replacement(skill_lens_runner)
        """,
        where=pytester.path / "skills" / "inner",
    )
    result = run_items(pytester, "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "skills/inner/inside/SKILL.md::greets[[]fake[]] PASSED*",
            "skills/outside/SKILL.md::greets[[]fake[]] FAILED*",
        ]
    )
    outcomes = {o["skill_name"]: o for o in ITEMS.report(pytester).outcomes}
    assert outcomes["inside"]["output"] == "replaced: [fake] inside handled: say hello"
    assert outcomes["inside"]["model"] == "replacement"
    assert outcomes["outside"]["model"] == "fake"


def test_a_wrapped_judge_grades_the_rubric(pytester: pytest.Pytester) -> None:
    make_skill(
        pytester.path / "skills",
        "graded",
        """
        cases:
          - name: judged
            task: write a haiku
            judge:
              rubric: [has three lines]
        """,
    )
    _conftest(
        pytester,
        """
        import pytest
        from pytest_skill_lens.score.judge import JudgeCheck, JudgeVerdict

        class Strict:
            name = "strict"

            def judge(self, request):
                lines = request.output.count("\\n") + 1
                return JudgeVerdict(
                    checks=[JudgeCheck("r1", lines == 3, f"the response has {lines} line(s)")]
                )

        @pytest.fixture
        def skill_lens_judge():
            return Strict()
        """,
    )
    result = run_items(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*r1: the response has 1 line(s)*"])


def test_a_fixture_that_raises_makes_the_case_errored_never_failed(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "notes", WORKSPACE_CASE)
    _conftest(
        pytester,
        """
        import pytest

        @pytest.fixture
        def skill_lens_workspace(skill_lens_workspace):
            raise RuntimeError("the fixture server is down")
        """,
    )
    result = run_items(pytester, "--junitxml", "junit.xml")
    result.assert_outcomes(errors=1)
    assert result.ret == 1
    outcome = ITEMS.report(pytester).outcomes[0]
    assert outcome["status"] == "errored"
    assert outcome["error"] == (
        "a fixture could not be set up: RuntimeError: the fixture server is down"
    )
    assert "<error" in (pytester.path / "junit.xml").read_text()


def test_an_autouse_fixture_of_the_project_applies_to_case_items(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "plain", "cases:\n  - name: one\n    task: t\n")
    _conftest(
        pytester,
        """
        import os
        import pytest

        @pytest.fixture(autouse=True)
        def marker_file(request):
            with open("autouse.log", "a") as f:
                f.write(request.node.nodeid + "\\n")
        """,
    )
    result = run_items(pytester)
    result.assert_outcomes(passed=1)
    assert (pytester.path / "autouse.log").read_text() == "skills/plain/SKILL.md::one[fake]\n"


def test_the_fixtures_refuse_an_ordinary_test(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "plain", "cases:\n  - name: one\n    task: t\n")
    pytester.makepyfile(
        test_ordinary="""
        def test_uses_it(skill_lens_workspace):
            pass
        """
    )
    (pytester.path / "skill-lens.toml").write_text("", encoding="utf-8")
    result = LensRun(options=NO_CACHE)(pytester, "test_ordinary.py")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*skill_lens_workspace belongs to skill-lens case items, not to test_ordinary.py*"]
    )


def test_fixtures_per_test_lists_what_each_case_uses(pytester: pytest.Pytester) -> None:
    make_skill(
        pytester.path / "skills",
        "plain",
        """
        cases:
          - name: bare
            task: t
          - name: full
            task: t
            workspace: {}
            judge:
              rubric: [is polite]
        """,
    )
    (pytester.path / "skill-lens.toml").write_text("", encoding="utf-8")
    result = LensRun(options=NO_CACHE)(pytester, "--fixtures-per-test")
    text = result.stdout.str()
    bare, full = text.split("fixtures used by bare[fake]")[1].split("fixtures used by full[fake]")
    # A fixture costs every item that asks for it, so a case asks only for what it uses.
    assert "skill_lens_runner -- " in bare and "skill_lens_sandbox -- " in bare
    assert "skill_lens_judge" not in bare and "skill_lens_workspace" not in bare
    for name in ("sandbox", "runner", "judge", "workspace"):
        assert f"skill_lens_{name} -- " in full
    # Listing fixtures runs nothing, so there is nothing to gate.
    assert result.ret == 0
    assert "Gate" not in text


SCRIPT_RUNNER = """
import pytest
from pytest_skill_lens.run.result import RunResult, ToolCall
from pytest_skill_lens.run.sandbox.script_sandbox import SandboxDecision
from pytest_skill_lens.run.tools.toolkit import builtin_tools
from pytest_skill_lens.run.workspace.workspace import Limits, Workspace


class RunsTheScript:
    name = "runs-script"

    def __init__(self, context):
        self.settings = context.settings
        self.sandbox = context.sandbox

    def run(self, skill, case, workspace):
        opened = Workspace.attach(workspace, Limits.from_settings(self.settings))
        tools = {t.name: t for t in builtin_tools(skill, opened, self.settings, self.sandbox)}
        arguments = {"path": "scripts/probe.sh"}
        reply = tools["run_script"].call(arguments)
        return RunResult(output=reply, tool_calls=[ToolCall("run_script", arguments)])


def pytest_skill_lens_runners(config):
    return {"runs-script": RunsTheScript}
"""

OVERRIDE = """

@pytest.fixture(scope="session")
def skill_lens_sandbox():
    return SandboxDecision("none", detail="a test chose no sandbox")
"""


@pytest.mark.parametrize("override", [False, True], ids=["run's-own", "overridden"])
def test_the_sandbox_fixture_decides_where_scripts_run(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, override: bool
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "written-by-the-script.txt"
    skill = make_skill(
        pytester.path / "skills",
        "prober",
        """
        cases:
          - name: probes
            task: run the probe
            workspace: {}
        """,
    )
    write_file(skill / "scripts" / "probe.sh", f"echo hi > {outside} && echo wrote\n")
    _conftest(pytester, SCRIPT_RUNNER + (OVERRIDE if override else ""))
    result = run_items(pytester, "--skill-lens-runner", "runs-script", "--skill-lens-allow-scripts")
    result.assert_outcomes(passed=1)
    output = ITEMS.report(pytester).outcomes[0]["output"]
    scripts = ITEMS.report(pytester)["scripts"]
    if override:
        # Unsandboxed, the write outside the workspace lands: the override took effect.
        assert outside.read_text() == "hi\n"
        assert "wrote" in output
        assert scripts["overridden_by_fixture"] == ["none (a test chose no sandbox)"]
        result.stdout.fnmatch_lines(
            [
                "scripts: on, sandbox: bwrap; *a skill_lens_sandbox fixture ran some cases "
                "under: none (a test chose no sandbox)"
            ]
        )
    else:
        # Under bwrap the temp dir's other entries are hidden: the write cannot land.
        assert not outside.exists()
        assert output.startswith("exit code: 1\n")
        assert f"{outside}: No such file or directory" in output
        assert "overridden_by_fixture" not in scripts
