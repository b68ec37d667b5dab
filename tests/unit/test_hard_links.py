"""Hard links: two names for one file, one of them perhaps outside the workspace.

A write replaces the directory entry (a fresh file beside it, then a rename), so it
never writes through a link; a read, a ``file:`` check, a ``file_glob:`` match and a
judge artifact refuse a regular file with more than one link, the refusal being
the evidence. A directory's link count is always above 1 and is never refused.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.run.workspace import containment
from pytest_skill_lens.run.workspace import workspace as workspace_module
from pytest_skill_lens.run.workspace.bundle import Bundle
from pytest_skill_lens.run.workspace.containment import Refused, read_regular
from pytest_skill_lens.run.workspace.workspace import Workspace
from pytest_skill_lens.score.artifacts import HARD_LINKED, collect_artifacts
from pytest_skill_lens.score.assertions import AssertionEvaluator
from pytest_skill_lens.score.check import CheckResult, ScoringContext
from pytest_skill_lens.suite.model import EvalCase, Judge

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="hard links are POSIX here")

SECRET = "TOKEN=outside-the-workspace\n"


def linked(name: str) -> str:
    return (
        f"refused: {name} has 2 hard links: another name for the same file may lie "
        "outside the workspace, so it is not trusted"
    )


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = Workspace.create("links", {"seed.txt": "seeded\n"}, parent=tmp_path)
    yield workspace
    workspace.cleanup()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file beside the workspace, on the same filesystem, that the run must not touch."""
    secret = tmp_path / "home" / "secret.env"
    secret.parent.mkdir()
    secret.write_text(SECRET, encoding="utf-8")
    return secret


def only(ws: Workspace, assertion: dict[str, Any]) -> CheckResult:
    case = EvalCase.model_validate(
        {"name": "c", "task": "t", "workspace": {}, "assertions": [assertion]}
    )
    context = ScoringContext(runner="fake", workspace=ws)
    (check,) = AssertionEvaluator().evaluate(case, RunResult(output=""), context).checks
    return check


# -- writes replace the entry ------------------------------------------------------------


def test_write_file_onto_a_hard_link_replaces_the_name_not_the_outside_file(
    ws: Workspace, outside: Path
) -> None:
    os.link(outside, ws.root / "notes.env")
    assert ws.write_file("notes.env", "mine\n") == "wrote 5 bytes to notes.env"
    assert outside.read_text(encoding="utf-8") == SECRET
    assert (ws.root / "notes.env").read_text(encoding="utf-8") == "mine\n"
    assert os.stat(ws.root / "notes.env").st_nlink == 1
    assert os.stat(outside).st_nlink == 1
    assert ws.read_file("notes.env") == "mine\n"  # its own file now: readable again


def test_a_hard_link_planted_after_the_checks_is_still_not_written_through(
    ws: Workspace, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A script racing the tool: the name becomes a link between the stat and the write.
    real_stat_only = containment.stat_only

    def then_plant(real: Path, path: str) -> os.stat_result | None:
        found = real_stat_only(real, path)
        os.link(outside, real)
        return found

    monkeypatch.setattr(workspace_module, "stat_only", then_plant)
    assert ws.write_file("fresh.txt", "mine") == "wrote 4 bytes to fresh.txt"
    assert outside.read_text(encoding="utf-8") == SECRET
    assert (ws.root / "fresh.txt").read_text(encoding="utf-8") == "mine"


def test_a_directory_swapped_for_a_link_after_the_checks_fails_the_write(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ws.root / "out").mkdir()
    real_stat_only = containment.stat_only

    def then_swap(real: Path, path: str) -> os.stat_result | None:
        found = real_stat_only(real, path)
        (ws.root / "out").rmdir()
        (ws.root / "out").symlink_to(elsewhere)
        return found

    monkeypatch.setattr(workspace_module, "stat_only", then_swap)
    answer = ws.write_file("out/report.md", "x")
    assert answer == "refused: out/report.md was replaced by a symbolic link"
    assert list(elsewhere.iterdir()) == []


def test_a_write_leaves_no_temporary_name_behind(ws: Workspace) -> None:
    assert ws.write_file("a/b.txt", "one") == "wrote 3 bytes to a/b.txt"
    assert ws.write_file("a/b.txt", "two") == "wrote 3 bytes to a/b.txt"
    (ws.root / "dir").mkdir()
    assert ws.write_file("dir", "x") == "refused: dir is a directory, not a file"
    assert ws.list_files() == "seed.txt\na/b.txt"


def test_seeding_writes_through_no_link_either(tmp_path: Path, outside: Path) -> None:
    made = Workspace.create("seed", {"notes/a.md": "A"}, parent=tmp_path)
    try:
        assert (made.root / "notes/a.md").read_text(encoding="utf-8") == "A"
        assert os.stat(made.root / "notes/a.md").st_nlink == 1
    finally:
        made.cleanup()
    assert outside.read_text(encoding="utf-8") == SECRET


# -- reads refuse a file with more than one link -------------------------------------------


def test_read_file_refuses_a_hard_link_onto_an_outside_file(ws: Workspace, outside: Path) -> None:
    os.link(outside, ws.root / "notes.env")
    assert ws.read_file("notes.env") == linked("notes.env")
    read = ws.read_for_check("notes.env")
    assert (read.text, read.problem, read.failure) == (None, linked("notes.env"), "hard_link")
    assert ws.produced("notes.env") == (False, linked("notes.env"))


def test_the_open_descriptor_is_checked_not_only_the_stat_before_it(
    ws: Workspace, outside: Path
) -> None:
    # read_regular is what every reader calls after its stat: it re-checks on the fd.
    os.link(outside, ws.root / "late.env")
    with pytest.raises(Refused) as refused:
        read_regular(ws.root / "late.env", "late.env", 1_000)
    assert str(refused.value) == linked("late.env")
    assert refused.value.failure == "hard_link"


def test_a_file_check_on_a_hard_link_fails_with_the_refusal_as_evidence(
    ws: Workspace, outside: Path
) -> None:
    os.link(outside, ws.root / "out.env")
    contains = only(ws, {"kind": "contains", "file": "out.env", "value": "TOKEN"})
    assert (contains.passed, contains.evidence) == (False, linked("out.env"))
    produced = only(ws, {"kind": "file-produced", "file": "out.env"})
    assert (produced.passed, produced.evidence) == (False, linked("out.env"))


def test_a_file_glob_match_on_a_hard_link_is_refused_with_evidence(
    ws: Workspace, outside: Path
) -> None:
    os.link(outside, ws.root / "out.env")
    check = only(ws, {"kind": "not_contains", "file_glob": "*.env", "value": "nothing"})
    assert check.passed is False
    assert check.evidence == f"out.env is the one file matching *.env; {linked('out.env')}"


def test_a_judge_artifact_on_a_hard_link_is_a_sentinel(ws: Workspace, outside: Path) -> None:
    os.link(outside, ws.root / "report.md")
    block = Judge.model_validate({"rubric": ["r"], "artifacts": ["report.md", {"glob": "*.md"}]})
    shown = collect_artifacts(block, ws)
    assert shown == [("report.md", HARD_LINKED), ("*.md", HARD_LINKED)]
    assert "TOKEN" not in str(shown)


def test_a_directory_with_many_links_is_still_a_directory(ws: Workspace) -> None:
    (ws.root / "dir/sub").mkdir(parents=True)
    assert os.stat(ws.root / "dir").st_nlink > 1
    assert ws.write_file("dir/a.txt", "a") == "wrote 1 bytes to dir/a.txt"
    assert ws.read_file("dir/a.txt") == "a"
    assert ws.read_file("dir") == "refused: dir is a directory"


# -- the bundle stays consistent ---------------------------------------------------------


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    root = tmp_path / "skill"
    for rel, text in {
        "SKILL.md": "---\nname: skill\n---\nRead references/style.md.\n",
        "evals/cases.yaml": "cases:\n- name: a\n  task: the answer is 42\n",
        "references/style.md": "Use short sentences.\n",
        "assets/logo.txt": "LOGO\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_a_hard_link_between_two_shipped_files_is_read(skill_dir: Path) -> None:
    os.link(skill_dir / "assets/logo.txt", skill_dir / "assets/logo-copy.txt")
    bundle = Bundle.of(skill_dir)
    assert bundle.read("assets/logo-copy.txt") == "LOGO\n"
    assert bundle.read("assets/logo.txt") == "LOGO\n"


def test_a_shipped_name_swapped_for_a_hard_link_after_the_scan_is_refused(
    skill_dir: Path,
) -> None:
    bundle = Bundle.of(skill_dir)
    assert "references/style.md" in bundle.files()  # scanned now
    (skill_dir / "references/style.md").unlink()
    os.link(skill_dir / "evals/cases.yaml", skill_dir / "references/style.md")
    answer = bundle.read("references/style.md")
    assert answer == (
        "refused: references/style.md has 2 hard links: another name for the same file may "
        "lie outside the skill's directory, so it is not trusted"
    )
    assert "42" not in answer


def test_the_refusal_text_is_one_function() -> None:
    assert containment.hard_linked("a.md", 3) == (
        "refused: a.md has 3 hard links: another name for the same file may lie outside "
        "the workspace, so it is not trusted"
    )
