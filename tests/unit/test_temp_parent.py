"""Every skill-lens temporary directory in one parent per user, and the product sandbox's
cost independent of what else the temp directory holds (issue 31 part 5).

The parent is ``<temp>/skill-lens-<uid>``: trusted only when it is a real directory of
this user closed to others; one tmpfs over it hides every sibling case's directories,
those made after a product started included.
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_skill_lens.run.process import temp_parent
from pytest_skill_lens.run.process.leftovers import owner_mark
from pytest_skill_lens.run.process.temp_parent import UnsafeParent, make_dir, own_parent, parent_of
from pytest_skill_lens.run.products.process import run_dir, start
from pytest_skill_lens.run.sandbox.product_sandbox import ProductSandbox, decide, wrap
from pytest_skill_lens.run.workspace.workspace import Workspace

ROOT = os.geteuid() == 0
BWRAP = ProductSandbox("auto", "bwrap", True, executable="/usr/bin/bwrap")


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A system temp directory of the test's own (what ``TMPDIR`` gives a session)."""
    base = (tmp_path / "tmp").resolve()
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    yield base


# -- the parent ------------------------------------------------------------------------------


def test_every_kind_of_directory_is_made_in_the_users_parent(temp: Path) -> None:
    parent = temp / f"skill-lens-{os.getuid()}"
    workspace = Workspace.create("case")
    try:
        with run_dir("claude-code", sandbox=None) as run:
            assert run.root.parent == parent
        assert workspace.root.parent == parent
    finally:
        workspace.cleanup()
    info = os.lstat(parent)
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
    assert info.st_uid == os.getuid()
    assert [p.name for p in temp.iterdir()] == [parent.name]  # nothing beside it


def test_a_link_in_its_place_is_refused_and_never_followed(temp: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    parent_of().symlink_to(elsewhere)
    with pytest.raises(UnsafeParent, match="is a symbolic link: skill-lens keeps"):
        make_dir("skill-lens-x-")
    assert list(elsewhere.iterdir()) == []


def test_a_parent_open_to_others_is_refused_with_the_fix(temp: Path) -> None:
    parent_of().mkdir()
    os.chmod(parent_of(), 0o755)
    with pytest.raises(UnsafeParent) as refused:
        make_dir("skill-lens-x-")
    assert refused.value.strerror == (
        f"{parent_of()} is open to other users (mode 0755): skill-lens keeps your temporary "
        "directories there and will not use it; remove it, or set TMPDIR to a directory of "
        "your own"
    )
    assert list(parent_of().iterdir()) == []


@pytest.mark.skipif(not ROOT, reason="making a directory another user's needs root")
def test_another_users_parent_is_refused(temp: Path) -> None:
    parent_of().mkdir(mode=0o700)
    os.chown(parent_of(), 65534, 65534)
    with pytest.raises(UnsafeParent, match="owned by uid 65534, not by you"):
        own_parent()
    assert list(parent_of().iterdir()) == []


def test_a_file_in_its_place_is_refused(temp: Path) -> None:
    parent_of().write_text("not a directory")
    with pytest.raises(UnsafeParent, match="is not a directory"):
        make_dir("skill-lens-x-")


def test_a_workspace_names_an_unsafe_parent(temp: Path) -> None:
    parent_of().symlink_to(temp)
    from pytest_skill_lens.run.workspace.workspace import WorkspaceError

    with pytest.raises(WorkspaceError, match="is a symbolic link"):
        Workspace.create("case")


def test_a_parent_removed_between_its_check_and_the_mkdtemp_is_made_again(
    temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = temp_parent.own_parent
    removed = []

    def then_removed(base: Path | None = None) -> Path:
        made = real(base)
        if not removed:  # another session's end removed it, empty, just now
            os.rmdir(made)
            removed.append(made)
        return made

    monkeypatch.setattr(temp_parent, "own_parent", then_removed)
    made = make_dir("skill-lens-x-", owner_mark())
    assert made.parent == parent_of() and made.is_dir() and removed == [parent_of()]


def test_an_empty_parent_is_removed_at_the_end_and_a_used_one_kept(temp: Path) -> None:
    made = make_dir("skill-lens-x-")
    temp_parent.remove_parent_if_empty()
    assert made.is_dir()
    made.rmdir()
    temp_parent.remove_parent_if_empty()
    assert list(temp.iterdir()) == []


# -- the product sandbox's argv ----------------------------------------------------------------


def test_the_bwrap_argv_does_not_grow_with_the_temp_directorys_entries(temp: Path) -> None:
    run = make_dir("skill-lens-claude-code-", owner_mark())
    (run / "work").mkdir()
    argv = ["claude", "-p", "hi"]
    before = wrap(BWRAP, argv, cwd=run / "work", writable=[run], temp=temp)
    for n in range(100):  # what a shared /tmp holds: directories, files, links, sockets
        (temp / f"build-{n}").mkdir()
        (temp / f"notes-{n}.txt").write_text("x")
        (temp / f"link-{n}").symlink_to(temp / f"build-{n}")
    after = wrap(BWRAP, argv, cwd=run / "work", writable=[run], temp=temp)
    assert after == before
    parent = str(parent_of(temp))
    assert after.count("--tmpfs") == 1 and after[after.index("--tmpfs") + 1] == parent
    assert str(temp) not in after  # the temp directory is seen as it is, read-only


def test_no_entry_of_the_temp_directory_is_named_not_even_an_earlier_layouts(
    temp: Path,
) -> None:
    # One that vanished before the start would stop bwrap: it cannot make a mount point
    # on the read-only root. An earlier version's directory beside the parent is not
    # hidden (docs/security.md says so).
    (temp / f"skill-lens-ws-ab12{owner_mark()}").mkdir(mode=0o700)
    run = make_dir("skill-lens-claude-code-", owner_mark())
    argv = wrap(BWRAP, ["true"], cwd=run, writable=[], temp=temp)
    named = [arg for arg in argv if arg.startswith(str(temp))]
    # the parent's tmpfs and remount; the run directory's bind (source, target) and chdir
    assert sorted(named) == sorted([str(parent_of(temp))] * 2 + [str(run)] * 3)


# -- real starts -------------------------------------------------------------------------------

REAL = decide("auto")


@pytest.mark.slow
@pytest.mark.skipif(REAL.backend != "bwrap", reason=f"no working bwrap here ({REAL.detail})")
def test_a_sibling_made_after_the_start_is_invisible_and_the_rest_of_temp_visible(
    temp: Path,
) -> None:
    parent = parent_of(temp)
    with run_dir("claude-code", sandbox=REAL) as run:
        command = (
            "touch started; while [ ! -e go ]; do sleep 0.05; done; "
            f"cat {parent}/skill-lens-later-*/key.txt; ls -a {parent}; "
            f"cat {temp}/later-notes.txt; echo x > {temp}/written.txt"
        )
        ran: list[bytes] = []

        def product() -> None:
            done = start(
                ["sh", "-c", command],
                run=run,
                cwd=run.work,
                env={"PATH": "/usr/bin:/bin", "HOME": str(run.home)},
                timeout=60,
                max_output_bytes=100_000,
            ).finished
            ran.append(done.stdout.data + done.stderr.data)

        thread = threading.Thread(target=product)
        thread.start()
        deadline = time.monotonic() + 30
        while not (run.work / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        later = Workspace.create("later", {"key.txt": "sk-later"})  # another case, started now
        (temp / "later-notes.txt").write_text("made later, not skill-lens's\n")
        (run.work / "go").write_text("")
        thread.join(60)
        later.cleanup()
    out = ran[0].decode()
    assert "sk-later" not in out and later.root.name not in out
    assert run.root.name in out.split()  # its own directory only
    assert "made later, not skill-lens's" in out  # the rest of temp, as it is now
    assert "Read-only file system" in out and not (temp / "written.txt").exists()
