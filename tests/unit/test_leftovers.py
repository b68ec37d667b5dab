"""The sweep of what dead runs left in the temp directory: only dead owners, never a link."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_skill_lens.run.process.leftovers import (
    owner_alive,
    owner_mark,
    remove_tree,
    sweep,
    sweep_temp,
)
from pytest_skill_lens.run.workspace.workspace import Workspace

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="start times come from Linux /proc"
)


def own() -> tuple[int, int, int]:
    found = re.fullmatch(r"\.pid-(\d+)-(\d+)-(\d+)", owner_mark())
    assert found is not None, owner_mark()
    namespace, pid, start = (int(g) for g in found.groups())
    return namespace, pid, start


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def leftover(base: Path, namespace: int, pid: int, start: int, name: str = "case") -> Path:
    path = base / f"skill-lens-{name}-ab12cd34.pid-{namespace}-{pid}-{start}"
    (path / "deep").mkdir(parents=True)
    (path / "deep/seeded.csv").write_text("north,120\n")
    return path


def test_the_mark_names_this_process() -> None:
    namespace, pid, start = own()
    assert pid == os.getpid()
    assert start > 0 and namespace > 0
    assert owner_alive(namespace, pid, start)


def test_a_dead_owners_directory_is_removed(tmp_path: Path) -> None:
    namespace, _pid, start = own()
    gone = leftover(tmp_path, namespace, dead_pid(), start)
    assert sweep(tmp_path) == [gone]
    assert not gone.exists()


def test_a_live_owners_directory_is_kept_and_a_reused_pid_is_not_the_owner(
    tmp_path: Path,
) -> None:
    namespace, pid, start = own()
    mine = leftover(tmp_path, namespace, pid, start, "mine")
    reused = leftover(tmp_path, namespace, pid, start - 1, "reused")  # an earlier process
    unknown = leftover(tmp_path, namespace, pid, 0, "unknown")  # no start time: cannot judge
    assert sweep(tmp_path) == [reused]
    assert mine.is_dir() and unknown.is_dir()


def test_another_pid_namespace_is_never_judged(tmp_path: Path) -> None:
    namespace, _pid, start = own()
    theirs = leftover(tmp_path, namespace + 1, dead_pid(), start)  # a container sharing /tmp
    assert sweep(tmp_path) == []
    assert (theirs / "deep/seeded.csv").is_file()


def test_deleting_a_leftover_never_follows_a_link_out(tmp_path: Path) -> None:
    namespace, _pid, start = own()
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep/precious.txt").write_text("still here\n")
    base = tmp_path / "temp"
    base.mkdir()
    gone = leftover(base, namespace, dead_pid(), start)
    (gone / "dir-link").symlink_to(outside)
    (gone / "deep/file-link").symlink_to(outside / "keep/precious.txt")
    # A link named like a leftover is not a directory of ours: left alone, not followed.
    named_like = base / f"skill-lens-x-zz.pid-{namespace}-{dead_pid()}-{start}"
    named_like.symlink_to(outside)
    assert sweep(base) == [gone]
    assert (outside / "keep/precious.txt").read_text() == "still here\n"
    assert named_like.is_symlink()


def test_only_marked_directories_of_this_user_are_considered(tmp_path: Path) -> None:
    namespace, _pid, start = own()
    pid = dead_pid()
    unmarked = tmp_path / "skill-lens-kept-workspace-ab12cd34"  # --skill-lens-keep-workspace
    unmarked.mkdir()
    foreign = tmp_path / f"other-tool-ab12.pid-{namespace}-{pid}-{start}"
    foreign.mkdir()
    a_file = tmp_path / f"skill-lens-file-ab12.pid-{namespace}-{pid}-{start}"
    a_file.write_text("not a directory")
    assert sweep(tmp_path) == []
    assert unmarked.is_dir() and foreign.is_dir() and a_file.is_file()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_another_users_directory_is_left_alone(tmp_path: Path) -> None:
    namespace, _pid, start = own()
    theirs = leftover(tmp_path, namespace, dead_pid(), start)
    os.chown(theirs, 65534, 65534)
    assert sweep(tmp_path) == []
    assert theirs.is_dir()


def test_a_sweep_of_a_missing_directory_is_a_no_op(tmp_path: Path) -> None:
    assert sweep(tmp_path / "missing") == []


def test_remove_tree_of_a_link_removes_nothing_behind_it(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real/f.txt").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    remove_tree(tmp_path / "link")
    assert (tmp_path / "real/f.txt").is_file()


def test_a_workspace_carries_the_mark_unless_kept(tmp_path: Path) -> None:
    swept = Workspace.create("marked", {"a.txt": "A"}, parent=tmp_path)
    kept = Workspace.create("kept", {"a.txt": "A"}, parent=tmp_path, kept=True)
    try:
        assert swept.root.name.startswith("skill-lens-marked-")
        assert swept.root.name.endswith(owner_mark())
        assert kept.root.name.startswith("skill-lens-kept-")
        assert ".pid-" not in kept.root.name
        assert sweep(tmp_path) == []  # this process is alive: nothing of its own goes
    finally:
        swept.cleanup()
        kept.cleanup()
    assert list(tmp_path.iterdir()) == []


def test_the_run_sweeps_the_users_parent_and_the_earlier_layout_beside_it(tmp_path: Path) -> None:
    namespace, _pid, start = own()
    parent = tmp_path / f"skill-lens-{os.getuid()}"
    parent.mkdir(mode=0o700)
    inside = leftover(parent, namespace, dead_pid(), start, "inside")
    beside = leftover(tmp_path, namespace, dead_pid(), start, "beside")  # an earlier version's
    assert sorted(sweep_temp(tmp_path)) == sorted([inside, beside])
    assert sorted(tmp_path.iterdir()) == [parent] and list(parent.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="making a directory another user's needs root")
def test_a_parent_that_is_not_the_users_own_is_never_entered(tmp_path: Path) -> None:
    namespace, _pid, start = own()
    parent = tmp_path / f"skill-lens-{os.getuid()}"
    parent.mkdir(mode=0o700)
    planted = leftover(parent, namespace, dead_pid(), start, "planted")
    os.chown(parent, 65534, 65534)
    assert sweep_temp(tmp_path) == []
    assert planted.is_dir()
