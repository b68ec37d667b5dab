"""The workspace attacked for real: links out, FIFOs, loops, sparse giants, '..', the caps."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.workspace.workspace import (
    CHECK_MAX_BYTES,
    Limits,
    Workspace,
    WorkspaceError,
    workspace_label,
)
from pytest_skill_lens.settings import Settings

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and links are POSIX here")


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = Workspace.create("unit", {"seed.txt": "seeded\n"}, parent=tmp_path)
    yield workspace
    workspace.cleanup()


def sparse(path: Path, size: int) -> None:
    """A file of ``size`` apparent bytes that costs (almost) nothing on disk."""
    if shutil.which("truncate"):
        subprocess.run(["truncate", "-s", str(size), str(path)], check=True)
    else:  # pragma: no cover - every Linux CI image has coreutils
        os.truncate(os.open(path, os.O_CREAT | os.O_WRONLY), size)


def finishes(call: Callable[[], Any], fifo: Path, seconds: float = 5.0) -> Any:
    """``call()``'s result, failing (not hanging) if it blocks on ``fifo``."""
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        # Release the reader that opened the FIFO so the thread can end, then fail.
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("the workspace opened a FIFO and blocked")
    return box[0]


# -- creation, seeding, cleanup ------------------------------------------------------------


def test_created_fresh_in_the_skill_lens_parent_resolved_and_seeded() -> None:
    workspace = Workspace.create(
        "greet::case one[fake]", {"a.txt": "A", "deep/er/b.md": "B\n"}, Limits()
    )
    try:
        assert workspace.root == workspace.root.resolve()
        parent = Path(tempfile.gettempdir()).resolve() / f"skill-lens-{os.getuid()}"
        assert workspace.root.parent == parent
        assert workspace.root.name.startswith("skill-lens-greet-case-one-fake-")
        assert (workspace.root / "a.txt").read_text() == "A"
        assert (workspace.root / "deep/er/b.md").read_bytes() == b"B\n"
        other = Workspace.create("greet::case one[fake]", {}, Limits())
        assert other.root != workspace.root  # every work item gets its own
        other.cleanup()
    finally:
        workspace.cleanup()
    assert not workspace.root.exists()


@posix_only
def test_the_root_is_resolved_once_so_a_linked_temp_dir_is_harmless(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")  # like macOS /tmp -> /private/tmp
    workspace = Workspace.create("x", {"f.md": "ok"}, parent=tmp_path / "alias")
    assert workspace.root.parent == tmp_path / "real"
    assert workspace.read_file("f.md") == "ok"
    assert workspace.write_file("g.md", "fine") == "wrote 4 bytes to g.md"


def test_label_is_sanitised() -> None:
    assert workspace_label("my skill", "../../etc/x", "fake", "candidate") == (
        "my-skill-..-..-etc-x-fake-candidate"
    )
    assert "/" not in workspace_label("a/b", "c\\d", "\x00")
    assert workspace_label("///") == "case"
    assert len(workspace_label("x" * 500)) <= 80


def test_a_seeding_failure_is_a_workspace_error_and_removes_the_half_seeded_dir(
    tmp_path: Path,
) -> None:
    # "a" is written as a file first, so "a/b" cannot get its directory.
    with pytest.raises(WorkspaceError, match=r"cannot seed a/b: "):
        Workspace.create("half", {"a": "first", "a/b": "second"}, parent=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_seed_key_that_leaves_the_workspace_is_a_workspace_error(tmp_path: Path) -> None:
    # The loader refuses such keys; a case built in code still cannot escape.
    with pytest.raises(WorkspaceError, match=r"cannot seed \.\./out: refused: .*'\.\.'"):
        Workspace.create("esc", {"../out": "x"}, parent=tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert not (tmp_path.parent / "out").exists()


def test_a_creation_failure_is_a_workspace_error(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    with pytest.raises(WorkspaceError, match=r"^cannot create a workspace under .*file: "):
        Workspace.create("x", {}, parent=not_a_dir)


def test_cleanup_swallows_errors_and_removes_read_only_dirs(tmp_path: Path) -> None:
    workspace = Workspace.create("x", {"locked/f.txt": "x"}, parent=tmp_path)
    (workspace.root / "locked").chmod(0o500)
    workspace.cleanup()
    assert not workspace.root.exists()
    workspace.cleanup()  # gone already: still no exception


def test_limits_come_from_settings() -> None:
    settings = Settings(max_file_bytes=10, max_files=3, max_total_bytes=25)
    assert Limits.from_settings(settings) == Limits(10, 3, 25)
    assert Limits() == Limits.from_settings(Settings())


def test_attach_wraps_an_existing_root_without_owning_it(ws: Workspace) -> None:
    attached = Workspace.attach(ws.root, Limits(max_file_bytes=3))
    assert attached.root == ws.root
    assert attached.read_file("seed.txt").startswith("refused: seed.txt is 7 bytes;")


# -- containment -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("/etc/passwd", "the path is absolute"),
        ("../outside.txt", "contains '..'"),
        ("a/../../outside.txt", "contains '..'"),
        ("a/..", "contains '..'"),
        ("nul\x00byte", "NUL byte"),
        ("", "the path is empty"),
        ("dir\\file", "backslash"),
        ("C:evil", "the path is absolute"),
    ],
)
def test_lexical_refusals_come_before_the_filesystem(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, path: str, problem: str
) -> None:
    def touched(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"the filesystem was touched for {path!r}")

    for name in ("realpath", "exists", "lexists"):
        monkeypatch.setattr(os.path, name, touched)
    for name in ("stat", "lstat", "open"):
        monkeypatch.setattr(os, name, touched)
    for tool in (ws.read_file, lambda p: ws.write_file(p, "x"), ws.read_for_check):
        answer = tool(path)
        text = answer if isinstance(answer, str) else answer.problem
        assert text.startswith("refused: ") and problem in text


@posix_only
def test_a_link_to_etc_passwd_is_refused_not_read(ws: Workspace) -> None:
    (ws.root / "passwd").symlink_to("/etc/passwd")
    refusal = "refused: passwd resolves outside the workspace through a symbolic link"
    assert ws.read_file("passwd") == refusal
    read = ws.read_for_check("passwd")
    assert (read.text, read.problem, read.failure) == (None, refusal, "refused")
    assert ws.produced("passwd") == (False, refusal)
    assert ws.write_file("passwd", "owned") == refusal
    assert "root:" not in ws.read_file("passwd")


@posix_only
def test_a_linked_directory_out_of_the_workspace_is_refused(ws: Workspace) -> None:
    (ws.root / "etc").symlink_to("/etc")
    assert ws.read_file("etc/passwd").startswith("refused: etc/passwd resolves outside")
    answer = ws.write_file("etc/skill-lens-owned", "x")
    assert answer.startswith("refused: etc/skill-lens-owned resolves outside")
    assert not Path("/etc/skill-lens-owned").exists()


@posix_only
def test_links_that_stay_inside_are_followed(ws: Workspace) -> None:
    (ws.root / "alias.txt").symlink_to("seed.txt")
    (ws.root / "sub").mkdir()
    (ws.root / "sub/up.txt").symlink_to("../seed.txt")
    assert ws.read_file("alias.txt") == "seeded\n"
    assert ws.read_file("sub/up.txt") == "seeded\n"


@posix_only
@pytest.mark.parametrize("pair", [False, True], ids=["self-loop", "two-link-loop"])
def test_a_link_loop_is_refused(ws: Workspace, pair: bool) -> None:
    if pair:
        (ws.root / "loop").symlink_to("other")
        (ws.root / "other").symlink_to("loop")
    else:
        (ws.root / "loop").symlink_to("loop")
    assert ws.read_file("loop") == "refused: loop is a symbolic-link loop"
    assert ws.read_for_check("loop").problem == "refused: loop is a symbolic-link loop"
    assert ws.produced("loop") == (False, "refused: loop is a symbolic-link loop")
    assert ws.write_file("loop", "x") == "refused: loop is a symbolic-link loop"
    assert ws.glob(["loop", "*.txt"]).matches == ("seed.txt",)


# -- regular files only ------------------------------------------------------------------


@posix_only
def test_a_fifo_is_refused_by_stat_and_never_opened(ws: Workspace) -> None:
    fifo = ws.root / "report.md"
    os.mkfifo(fifo)
    assert finishes(lambda: ws.read_file("report.md"), fifo) == (
        "refused: report.md is a FIFO (named pipe)"
    )
    read = finishes(lambda: ws.read_for_check("report.md"), fifo)
    assert (read.text, read.failure) == (None, "refused")
    assert finishes(lambda: ws.write_file("report.md", "x"), fifo).startswith(
        "refused: report.md is a FIFO (named pipe), not a file"
    )
    assert finishes(lambda: ws.glob("*.md"), fifo).matches == ()
    assert "report.md (not a regular file)" in finishes(ws.list_files, fifo).splitlines()


@posix_only
def test_a_link_to_a_fifo_is_refused_too(ws: Workspace) -> None:
    fifo = ws.root / "pipe"
    os.mkfifo(fifo)
    (ws.root / "link.md").symlink_to("pipe")
    assert finishes(lambda: ws.read_file("link.md"), fifo) == (
        "refused: link.md is a FIFO (named pipe)"
    )
    assert finishes(lambda: ws.glob("*.md"), fifo).matches == ()


def test_a_directory_is_not_a_file(ws: Workspace) -> None:
    (ws.root / "dir").mkdir()
    assert ws.read_file("dir") == "refused: dir is a directory"
    assert ws.write_file("dir", "x") == "refused: dir is a directory, not a file"
    assert ws.produced("dir") == (False, "refused: dir is a directory, not a file")


# -- read caps ----------------------------------------------------------------------------


def test_an_over_size_file_is_refused_before_a_byte_is_read(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    sparse(ws.root / "report.md", 2_000_001)
    monkeypatch.setattr(os, "open", lambda *a, **k: pytest.fail("opened an over-size file"))
    expected = "refused: report.md is 2,000,001 bytes; max_file_bytes is 1,000,000"
    assert ws.read_file("report.md") == expected
    read = ws.read_for_check("report.md")
    assert (read.problem, read.failure) == (expected, "too_large")


def test_a_sparse_10_gb_file_is_refused_yet_counts_as_produced(ws: Workspace) -> None:
    sparse(ws.root / "huge.bin", 10 * 1024**3)
    assert ws.read_file("huge.bin") == (
        "refused: huge.bin is 10,737,418,240 bytes; max_file_bytes is 1,000,000"
    )
    assert ws.produced("huge.bin") == (True, "huge.bin exists (10,737,418,240 bytes)")
    # Its apparent size fills max_total_bytes, so nothing more may be written.
    assert ws.write_file("small.txt", "x") == (
        "refused: writing small.txt would bring the workspace to 10,737,418,248 bytes; "
        "max_total_bytes is 5,000,000"
    )


def test_read_file_uses_the_configured_cap_checks_the_built_in_one(tmp_path: Path) -> None:
    workspace = Workspace.create(
        "x", {"r.md": "12345678901"}, Limits(max_file_bytes=10), parent=tmp_path
    )
    assert workspace.read_file("r.md") == "refused: r.md is 11 bytes; max_file_bytes is 10"
    assert workspace.read_for_check("r.md").text == "12345678901"
    assert workspace.read_for_check("r.md", max_bytes=5).problem == (
        "refused: r.md is 11 bytes; max_file_bytes is 5"
    )
    assert CHECK_MAX_BYTES == 1_000_000


def test_a_file_at_exactly_the_cap_is_read(tmp_path: Path) -> None:
    workspace = Workspace.create(
        "x", {"r.md": "1234567890"}, Limits(max_file_bytes=10), parent=tmp_path
    )
    assert workspace.read_file("r.md") == "1234567890"


# -- the tools never raise ------------------------------------------------------------------


def test_tools_answer_every_problem_as_a_string(ws: Workspace) -> None:
    (ws.root / "latin1.txt").write_bytes("café".encode("latin-1"))
    assert ws.read_file("missing.md") == (
        "error: missing.md does not exist in the workspace; list_files shows what does"
    )
    assert ws.read_file("latin1.txt") == "refused: latin1.txt is not valid UTF-8 text"
    assert ws.read_for_check("latin1.txt").failure == "not_utf8"
    assert ws.read_file(None) == "refused: a path is text, not NoneType"  # type: ignore[arg-type]
    assert ws.read_file(7) == "refused: a path is text, not int"  # type: ignore[arg-type]
    assert ws.write_file("x.md", None) == "refused: content is text, not NoneType"  # type: ignore[arg-type]
    assert ws.write_file("x.md", "\ud800") == "refused: the content is not valid Unicode text"
    assert ws.write_file("seed.txt/inside", "x").startswith("error: cannot write seed.txt/inside: ")
    assert ws.read_file("seed.txt/inside") == (
        "error: seed.txt/inside does not exist in the workspace; list_files shows what does"
    )
    assert ws.write_file("dir/", "x").startswith("refused: dir/: the path ends in '/'")


def test_write_creates_directories_and_replaces_files(ws: Workspace) -> None:
    assert ws.write_file("out/report.md", "# Report\n") == "wrote 9 bytes to out/report.md"
    assert ws.read_file("out/report.md") == "# Report\n"
    assert ws.write_file("out/report.md", "é") == "wrote 2 bytes to out/report.md"
    assert (ws.root / "out/report.md").read_bytes() == "é".encode()
    assert ws.write_file("./plain.md", "x") == "wrote 1 bytes to ./plain.md"
    assert ws.write_file("with space.md", "x") == "wrote 1 bytes to 'with space.md'"


def test_list_files_one_relative_path_per_line(ws: Workspace) -> None:
    ws.write_file("b/z.md", "z")
    ws.write_file(".hidden", "h")
    ws.write_file("a.md", "a")
    assert ws.list_files() == ".hidden\na.md\nseed.txt\nb/z.md"
    empty = Workspace.create("e", {}, parent=ws.root.parent)
    assert empty.list_files() == "(the workspace is empty)"


# -- write caps ----------------------------------------------------------------------------


def test_max_file_bytes_names_the_limit_and_its_value(tmp_path: Path) -> None:
    workspace = Workspace.create("x", {}, Limits(), parent=tmp_path)
    assert workspace.write_file("report.md", "x" * 1_200_000) == (
        "refused: report.md would be 1,200,000 bytes; max_file_bytes is 1,000,000"
    )
    assert not (workspace.root / "report.md").exists()


def test_max_files_names_the_limit_and_its_value(tmp_path: Path) -> None:
    workspace = Workspace.create("x", {"a": "1"}, Limits(max_files=2), parent=tmp_path)
    assert workspace.write_file("b", "2") == "wrote 1 bytes to b"
    assert workspace.write_file("c", "3") == "refused: writing c would make 3 files; max_files is 2"
    assert workspace.write_file("b", "replaced") == "wrote 8 bytes to b"  # no new file


def test_max_total_bytes_names_the_limit_and_its_value(tmp_path: Path) -> None:
    workspace = Workspace.create("x", {"a": "12345"}, Limits(max_total_bytes=10), parent=tmp_path)
    assert workspace.write_file("b", "12345") == "wrote 5 bytes to b"
    assert workspace.write_file("c", "1") == (
        "refused: writing c would bring the workspace to 11 bytes; max_total_bytes is 10"
    )
    # Replacing a file counts its new size instead of its old one.
    assert workspace.write_file("a", "1") == "wrote 1 bytes to a"
    assert workspace.write_file("c", "1234") == "wrote 4 bytes to c"
    assert workspace.usage() == (3, 10)


# -- glob ------------------------------------------------------------------------------------


def files(ws: Workspace, *paths: str) -> None:
    for path in paths:
        target = ws.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path)


def test_a_wildcard_stays_within_one_directory_level(ws: Workspace) -> None:
    files(ws, "a/b/report.md", "a/report.md")
    assert ws.glob("*/report.md").matches == ("a/report.md",)
    assert ws.glob("*/*/report.md").matches == ("a/b/report.md",)
    assert ws.glob("*.md").matches == ()


def test_star_matches_a_leading_dot_and_matching_is_case_sensitive(ws: Workspace) -> None:
    files(ws, ".notes.md", "report-1.md")
    assert ws.glob("*.md").path is None  # two files: .notes.md and report-1.md
    assert ws.glob(".*.md").path == ".notes.md"
    assert ws.glob("Report-*.md").matches == ()
    assert ws.glob("report-?.md").path == "report-1.md"
    assert ws.glob("report-[0-9].md").path == "report-1.md"
    assert ws.glob("report-[!0-9].md").matches == ()


def test_a_list_pools_its_entries_and_counts_a_file_once(ws: Workspace) -> None:
    files(ws, ".planning/x/task_plan.md")
    found = ws.glob(["task_plan.md", ".planning/*/task_plan.md", ".planning/x/*.md"])
    assert found.path == ".planning/x/task_plan.md"
    assert found.label == "task_plan.md | .planning/*/task_plan.md | .planning/x/*.md"
    files(ws, "task_plan.md")
    assert ws.glob(["task_plan.md", ".planning/*/task_plan.md"]).matches == (
        "task_plan.md",
        ".planning/x/task_plan.md",
    )


def test_no_match_lists_the_workspace_several_name_the_matches(ws: Workspace) -> None:
    none = ws.glob("*.md")
    assert (none.path, none.evidence) == (
        None,
        "no file matches *.md: the workspace holds 1 file: seed.txt",
    )
    files(ws, "a.md", "b.md")
    several = ws.glob("*.md")
    assert several.evidence == "2 files match *.md, exactly one is required: a.md, b.md"
    assert ws.glob("a.*").evidence == "a.md is the one file matching a.*"


@posix_only
def test_only_regular_files_match_and_linked_dirs_are_never_entered(
    ws: Workspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    files(ws, "real/r.md")
    outside.mkdir()
    (outside / "r.md").write_text("outside")
    (ws.root / "dir.md").mkdir()  # a directory is not a match
    (ws.root / "dangling.md").symlink_to("nowhere.md")  # nor a dangling link
    (ws.root / "linked").symlink_to(ws.root / "real")  # a linked directory is not entered
    (ws.root / "escape").symlink_to(outside)
    assert ws.glob("*/r.md").matches == ("real/r.md",)
    assert ws.glob("*.md").matches == ()


@posix_only
def test_a_link_to_a_file_outside_is_the_match_and_its_read_is_refused(ws: Workspace) -> None:
    (ws.root / "report.md").symlink_to("/etc/passwd")
    found = ws.glob("*.md")
    assert found.path == "report.md"
    assert ws.read_for_check("report.md").problem.startswith("refused: report.md resolves outside")


def test_the_listing_in_evidence_is_capped(ws: Workspace) -> None:
    files(ws, *(f"f{i:02}.txt" for i in range(30)))
    listing = ws.listing()
    assert listing.startswith("the workspace holds 31 files: f00.txt, f01.txt")
    assert listing.endswith(" and 11 more")
