"""Collection imports only what collection needs (issue 17).

IDEs and ``--collect-only`` collect all the time, so configure and collection must not
load what only a run uses: performing, scoring, the gate and the reports. Each run is a
subprocess, so its module table starts empty; a conftest records ``sys.modules`` as
collection finishes and again as the session ends.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs import LensRun
from skillfactory import QUIET_PLUGINS, make_skill, write_file

PACKAGE = "pytest_skill_lens"

# What a run needs and a collection never does. Every one of them is imported by the
# full run below, so a name here that drifts out of use fails that test instead of
# passing vacuously.
RUN_PHASE = [
    f"{PACKAGE}.{name}"
    for name in (
        "perform",
        "perform.pipeline",
        "perform.outcome",
        "perform.calls",
        "perform.replay",
        "run.result",
        "run.fake",
        "run.tools.skill_tool",
        "run.sessions",
        "run.workspace.workspace",
        "run.tools.workspace_tools",
        "score.assertions",
        "score.evaluate",
        "score.budget",
        "score.trajectory",
        "score.artifacts",
        "gate.delta",
        "gate.intervals",
        "gate.judging",
        "gate.verdict",
        "report.json_report",
        "report.markdown",
        "report.html.page",
        "report.terminal",
        "report.excerpt",
        "report.junit_properties",
        "report.replay_lines",
        "plugin.finish",
        "report.written",
    )
]
# Run-phase modules that only checking another's work needs (a plugin runner's result, a
# judge's verdict, a plugin evaluator's score): a fake run imports them never.
CHECKING_ONLY = [f"{PACKAGE}.{name}" for name in ("run.result_shape", "score.shapes")]

PROBE_CONFTEST = """\
import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def _record(name):
    modules = sorted(m for m in sys.modules if m.startswith("pytest_skill_lens"))
    (HERE / name).write_text(json.dumps(modules), encoding="utf-8")


@pytest.hookimpl(trylast=True)  # after the plugin's own collection_finish (the plan)
def pytest_collection_finish(session):
    _record("at-collection.json")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    _record("at-end.json")
"""

CASES = """\
cases:
  - name: greets
    task: Say hello
    tags: [smoke]
    assertions:
      - kind: contains
        value: handled
      - kind: regex
        value: "Say hello$"
  - name: reads-the-seed
    task: Echo sales.csv
    workspace:
      files:
        sales.csv: "region,units\\nnorth,120\\n"
    assertions:
      - kind: contains
        value: north,120
        file: sales.csv
  - name: says-no-error
    task: Report the totals
    assertions:
      - kind: not_contains
        value: error
"""

ONE_CASE = """\
cases:
  - name: greets
    task: Say hello
    assertions:
      - kind: contains
        value: handled
"""


@pytest.fixture
def tree(pytester: pytest.Pytester) -> Path:
    """Two skills, four cases, with the probe conftest above them."""
    make_skill(pytester.path / "skills", "hello", CASES)
    make_skill(pytester.path / "skills", "other", ONE_CASE)
    pytester.makeconftest(PROBE_CONFTEST)
    return pytester.path


def modules(root: Path, name: str) -> set[str]:
    """The package's modules the probe recorded in ``name``."""
    recorded: list[str] = json.loads((root / name).read_text(encoding="utf-8"))
    return set(recorded)


def run_phase_at_collection(root: Path) -> list[str]:
    """The run-phase modules already imported when collection finished."""
    at_collection = modules(root, "at-collection.json")
    assert f"{PACKAGE}.plugin.session" in at_collection  # the plugin was on: a real probe
    return sorted(set(RUN_PHASE + CHECKING_ONLY) & at_collection)


# Every report, in a child process: a fresh interpreter, whose imports the probe records.
run = LensRun(
    json="out/report.json",
    markdown="out/report.md",
    junit="out/junit.xml",
    options=("--skill-lens-html", "out/report.html"),
    subprocess=True,
)


def test_collect_only_imports_no_run_phase_module(pytester: pytest.Pytester, tree: Path) -> None:
    result = run(pytester, "--collect-only", "-q")

    assert result.ret == 0
    result.stdout.fnmatch_lines(["4 tests collected*"])
    assert run_phase_at_collection(tree) == []
    # The listing's session end writes the reports as aborted (nothing was run):
    # only then are the renderers imported.
    report = run.report(pytester)

    assert report["gate"]["passed"] is False
    assert "--collect-only lists the cases" in report["gate"]["reasons"][0]
    assert f"{PACKAGE}.report.json_report" in modules(tree, "at-end.json")


def test_a_listing_with_no_report_paths_imports_no_renderer_by_its_end(
    pytester: pytest.Pytester, tree: Path
) -> None:
    """An IDE's listing asks for no report file: its session end renders none, and so
    imports no renderer (the report writer once imported the JSON's eagerly)."""
    result = LensRun(subprocess=True)(pytester, "--collect-only", "-q")

    assert result.ret == 0
    renderers = {f"{PACKAGE}.report.{name}" for name in ("json_report", "markdown", "html.page")}
    assert sorted(renderers & modules(tree, "at-end.json")) == []


def test_an_authoring_error_imports_no_run_phase_module(
    pytester: pytest.Pytester, tree: Path
) -> None:
    write_file(tree / "skills/broken/SKILL.md", "---\nname: broken\ndescription: d\n---\nx\n")
    write_file(tree / "skills/broken/evals/cases.yaml", "cases:\n  - name: x\n    tsk: hi\n")

    result = run(pytester)

    assert result.ret == 2
    result.stdout.fnmatch_lines(["*skill-lens authoring error*"])
    assert run_phase_at_collection(tree) == []
    report = run.report(pytester)

    assert report["gate"]["passed"] is False


def test_the_full_run_of_the_same_tree_still_passes(pytester: pytest.Pytester, tree: Path) -> None:
    result = run(pytester, "-q")

    assert result.ret == 0
    result.assert_outcomes(passed=4)
    # Collection stayed light here too; the run then imported what it used.
    assert run_phase_at_collection(tree) == []
    assert sorted(set(RUN_PHASE) - modules(tree, "at-end.json")) == []
    assert sorted(set(CHECKING_ONLY) & modules(tree, "at-end.json")) == []
    report = run.report(pytester)

    assert report["gate"]["passed"] is True
    assert report["summary"]["passed"] == 4
    assert [o["status"] for o in report["outcomes"]] == ["passed"] * 4
    assert "skill-lens" in (tree / "out/report.md").read_text(encoding="utf-8")
    assert (tree / "out/report.html").read_text(encoding="utf-8").startswith("<!")
    junit = (tree / "out/junit.xml").read_text(encoding="utf-8")
    assert 'tests="4"' in junit
    assert 'failures="0"' in junit


def test_without_skill_lens_the_plugin_stays_nearly_free(
    pytester: pytest.Pytester, tree: Path
) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")

    result = pytester.runpytest_subprocess("test_plain.py", *QUIET_PLUGINS)

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    loaded = modules(tree, "at-end.json")
    assert f"{PACKAGE}.plugin.hooks" in loaded  # the probe did record this run
    heavy = {f"{PACKAGE}.{name}" for name in ("plugin.session", "settings", "suite.model")}
    assert sorted(heavy & loaded) == []
    assert sorted(set(RUN_PHASE) & loaded) == []
