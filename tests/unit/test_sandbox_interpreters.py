"""An interpreter found under the temporary directory (a venv made under /tmp, as a CI
checkout often is) still runs scripts inside a sandbox that hides that directory."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_skill_lens.run.sandbox.script_sandbox import decide, system_temp_dir, visible_executable
from pytest_skill_lens.run.tools.script_tool import run_script
from pytest_skill_lens.run.workspace.bundle import Bundle
from pytest_skill_lens.run.workspace.workspace import Workspace
from pytest_skill_lens.settings import Settings

BWRAP = decide("auto")
needs_bwrap = pytest.mark.skipif(
    BWRAP.backend != "bwrap",
    reason=f"no working bwrap on this machine ({BWRAP.label}); .ci/run installs bubblewrap",
)
REAL_PYTHON = Path(sys.executable).resolve()


@pytest.fixture
def under_temp() -> Iterator[Path]:
    made = Path(tempfile.mkdtemp(prefix="interp-", dir=system_temp_dir()))
    yield made
    shutil.rmtree(made, ignore_errors=True)


@pytest.fixture
def workspace() -> Iterator[Workspace]:
    made = Workspace.create("interpreter-test", {})
    yield made
    made.cleanup()


def _bundle(root: Path) -> Bundle:
    skill = root / "skill"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nRun it.\n")
    (skill / "scripts" / "where.py").write_text("import sys\nprint(sys.executable)\n")
    (skill / "scripts" / "hello.sh").write_text("echo hello\n")
    return Bundle.of(skill)


def _venv_like(root: Path, target: Path) -> Path:
    """``root/bin/python3`` linking to ``target``, as ``python -m venv`` makes it."""
    (root / "bin").mkdir(parents=True)
    link = root / "bin" / "python3"
    link.symlink_to(target)
    return link


def test_a_link_under_the_temp_dir_is_followed_out_of_it(under_temp: Path) -> None:
    link = _venv_like(under_temp / "venv", REAL_PYTHON)
    assert visible_executable(str(link), system_temp_dir()) == str(REAL_PYTHON)


def test_an_interpreter_outside_the_temp_dir_is_left_alone(tmp_path: Path) -> None:
    assert visible_executable(str(REAL_PYTHON), Path("/nonexistent-temp")) == str(REAL_PYTHON)


def test_an_interpreter_that_lives_under_the_temp_dir_stays_hidden(under_temp: Path) -> None:
    copy = under_temp / "bin" / "python3"
    copy.parent.mkdir()
    shutil.copy(REAL_PYTHON, copy)
    assert visible_executable(str(copy), system_temp_dir()) == str(copy)


@needs_bwrap
def test_a_venv_under_the_temp_dir_runs_the_script_under_bwrap(
    under_temp: Path, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = _venv_like(under_temp / "venv", REAL_PYTHON)
    monkeypatch.setenv("PATH", f"{link.parent}:/usr/bin:/bin")
    settings = Settings(allow_scripts=True, script_interpreters={"py": ["python3"]})
    said = run_script(_bundle(under_temp), workspace, settings, "scripts/where.py", [], BWRAP)
    assert said.startswith("exit code: 0\nstdout:\n"), said
    assert f"\n{REAL_PYTHON}\n" in said


@needs_bwrap
def test_a_copied_interpreter_under_the_temp_dir_cannot_start_under_bwrap(
    under_temp: Path, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = under_temp / "own" / "bash"
    copy.parent.mkdir()
    shutil.copy(shutil.which("bash") or "/bin/bash", copy)
    monkeypatch.setenv("PATH", f"{copy.parent}:/usr/bin:/bin")
    settings = Settings(allow_scripts=True, script_interpreters={"sh": ["bash"]})
    said = run_script(_bundle(under_temp), workspace, settings, "scripts/hello.sh", [], BWRAP)
    assert said == "refused: cannot start bash: No such file or directory"
