"""A skill directory's own Python never runs under ``--skill-lens``: its ``conftest.py``
files are never loaded and its test files never imported, however the skill reaches
the run, while the parents' conftests still load and a project's own tests still run."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from runs import LensRun
from skillfactory import QUIET_PLUGINS, SPY_CALLS_FILE, make_skill, spy_runner_conftest, write_file

pytest.importorskip("xdist")

ONE_CASE = """\
cases:
  - name: greets
    task: say hello
"""

# What a hostile skill ships: each file records that it was imported and calls home.
HOSTILE = """\
import socket
from pathlib import Path

Path({markers!r}, {label!r}).write_text("imported", encoding="utf-8")
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
except OSError:
    pass


def test_shipped_by_the_skill():
    pass
"""

# Where the skill's Python sits: a conftest at its root, in a test* directory (which
# pytest also reads conftests from when a path is given), deep under scripts/ with an
# __init__.py (a package pytest would import), and a test file at its root.
HOSTILE_FILES = (
    "conftest.py",
    "tests/conftest.py",
    "scripts/__init__.py",
    "scripts/tests/conftest.py",
    "scripts/tests/test_x.py",
    "test_top.py",
)

PROJECT_TEST = """\
def test_the_project_itself():
    pass
"""


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A port on 127.0.0.1 the hostile files would connect to."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        yield server


@pytest.fixture
def markers(pytester: pytest.Pytester, listener: socket.socket) -> Path:
    """A project with one hostile skill ``skills/test-evil`` (its name starts with
    ``test`` like the directories pytest searches for conftests), a project test
    outside it, and the directory the hostile files would write their marks into."""
    marks = pytester.path / "marks"
    marks.mkdir()
    skill = make_skill(pytester.path / "skills", "test-evil", ONE_CASE)
    port = listener.getsockname()[1]
    for relative in HOSTILE_FILES:
        write_file(
            skill / relative,
            HOSTILE.format(markers=str(marks), label=relative.replace("/", "__"), port=port),
        )
    write_file(pytester.path / "tests" / "test_project.py", PROJECT_TEST)
    write_file(pytester.path / "pytest.ini", "[pytest]\n")
    return marks


def assert_nothing_ran(marks: Path, listener: socket.socket) -> None:
    assert sorted(p.name for p in marks.iterdir()) == []
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody called home


CASE_ID = "skills/test-evil/SKILL.md::greets[[]fake[]] PASSED*"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("--skill-lens", "skills"), id="skill-lens-flag"),
        pytest.param(("skills", "--skill-lens", "skills"), id="positional-parent"),
        pytest.param(("skills/test-evil", "--skill-lens", "skills"), id="positional-skill"),
        pytest.param(
            ("skills/test-evil/SKILL.md", "--skill-lens", "skills"), id="positional-skill-md"
        ),
        pytest.param(("--skill-lens", "skills/test-evil"), id="the-skill-itself"),
        pytest.param(("--skill-lens", "skills/test-evil/SKILL.md"), id="its-skill-md"),
    ],
)
def test_no_python_of_the_skill_runs(
    pytester: pytest.Pytester, markers: Path, listener: socket.socket, args: tuple[str, ...]
) -> None:
    result = pytester.runpytest(*args, "-v", *QUIET_PLUGINS)

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([CASE_ID])
    assert_nothing_ran(markers, listener)


def test_collect_only_imports_nothing_of_the_skill(
    pytester: pytest.Pytester, markers: Path, listener: socket.socket
) -> None:
    result = LensRun()(pytester, "--collect-only", "-q")

    assert result.ret == 0
    assert [line for line in result.outlines if "::" in line] == [
        "skills/test-evil/SKILL.md::greets[fake]"
    ]
    assert_nothing_ran(markers, listener)


def test_under_xdist_no_worker_runs_the_skills_python(
    pytester: pytest.Pytester, markers: Path, listener: socket.socket
) -> None:
    result = LensRun(subprocess=True)(pytester, "-p", "xdist", "-n", "2")

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert_nothing_ran(markers, listener)


def test_ini_skill_paths_and_testpaths_pointing_at_the_skills(
    pytester: pytest.Pytester, markers: Path, listener: socket.socket
) -> None:
    write_file(
        pytester.path / "pytest.ini", "[pytest]\nskill_lens_paths = skills\ntestpaths = skills\n"
    )

    result = pytester.runpytest("-v", *QUIET_PLUGINS)

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert_nothing_ran(markers, listener)


def test_run_from_inside_the_skill_directory(
    pytester: pytest.Pytester,
    markers: Path,
    listener: socket.socket,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(pytester.path / "skills" / "test-evil")

    result = LensRun(skills=".")(pytester)

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert_nothing_ran(markers, listener)


def test_a_mixed_run_still_runs_the_projects_own_tests(
    pytester: pytest.Pytester, markers: Path, listener: socket.socket
) -> None:
    result = LensRun()(pytester, "tests", "-v")

    assert result.ret == 0
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["tests/test_project.py::test_the_project_itself PASSED*"])
    assert_nothing_ran(markers, listener)


# A conftest above the skill: it registers a runner and sees the case items' hooks.
PARENT_CONFTEST = (
    spy_runner_conftest()
    + """

def pytest_runtest_setup(item):
    with (Path(__file__).parent / "setup-seen.txt").open("a", encoding="utf-8") as f:
        f.write(item.nodeid + "\\n")
"""
)


def test_the_parent_directories_conftests_still_apply_to_the_skill(
    pytester: pytest.Pytester, markers: Path, listener: socket.socket
) -> None:
    write_file(pytester.path / "skills" / "conftest.py", PARENT_CONFTEST)

    result = LensRun(runner="spy")(pytester)

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    skills = pytester.path / "skills"
    assert (skills / SPY_CALLS_FILE).read_text(encoding="utf-8") == "test-evil::greets\n"
    assert (skills / "setup-seen.txt").read_text(encoding="utf-8") == (
        "skills/test-evil/SKILL.md::greets[spy]\n"
    )
    assert_nothing_ran(markers, listener)


def test_nested_skills_below_a_skills_directory_are_still_collected(
    pytester: pytest.Pytester, markers: Path, listener: socket.socket
) -> None:
    make_skill(pytester.path / "skills" / "test-evil" / "sub", "inner", ONE_CASE)

    result = LensRun()(pytester, "--collect-only", "-q")

    assert result.ret == 0
    assert [line for line in result.outlines if "::" in line] == [
        "skills/test-evil/sub/inner/SKILL.md::greets[fake]",  # planned order: by skill name
        "skills/test-evil/SKILL.md::greets[fake]",
    ]
    assert_nothing_ran(markers, listener)


def test_without_skill_lens_pytest_collects_the_folder_as_usual(
    pytester: pytest.Pytester, markers: Path, listener: socket.socket
) -> None:
    # The plugin changes nothing for a run that does not ask for it.
    result = pytester.runpytest("skills", *QUIET_PLUGINS)

    result.assert_outcomes(passed=2)  # test_top.py and scripts/tests/test_x.py
    assert "conftest.py" in {p.name for p in markers.iterdir()}
