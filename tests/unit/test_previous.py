"""``previous`` resolved from real git repositories the tests build in ``tmp_path``."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from pytest_skill_lens.run.history import previous, previous_git
from pytest_skill_lens.run.history.previous import PreviousVersion, Unresolved, resolve_previous
from pytest_skill_lens.run.history.previous_git import (
    ExtractionRefused,
    Git,
    GitFailed,
    TreeFiles,
    extract_members,
    git_environment,
)
from pytest_skill_lens.run.process.leftovers import owner_mark
from pytest_skill_lens.run.workspace.bundle import Bundle

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

NO_EARLIER = "no earlier version of SKILL.md found in the last 50 commits"


def skill_text(body: str, *, version: str | None = None, name: str | None = "demo") -> str:
    head = [f"name: {name}"] if name else []
    head.append("description: Formats dates.")
    if version is not None:
        head.append(f'version: "{version}"')
    return "---\n" + "\n".join(head) + "\n---\n" + body + "\n"


class Repo:
    """A git repository with fixed authors and one-second-apart commit dates."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.commits = 0
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "Ann",
            "GIT_AUTHOR_EMAIL": "ann@example.org",
            "GIT_COMMITTER_NAME": "Ann",
            "GIT_COMMITTER_EMAIL": "ann@example.org",
            "GIT_AUTHOR_DATE": f"2024-01-01T00:00:{self.commits:02d}+00:00",
            "GIT_COMMITTER_DATE": f"2024-01-01T00:00:{self.commits:02d}+00:00",
        }
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", *args],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    def write(self, relpath: str, text: str) -> Path:
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
        return path

    def commit(self, message: str, files: dict[str, str] | None = None) -> str:
        for relpath, text in (files or {}).items():
            self.write(relpath, text)
        self.git("add", "-A")
        self.commits += 1
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")


@pytest.fixture(autouse=True)
def _own_git_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Neither the host's ~/.gitconfig nor /etc/gitconfig may decide an outcome here.
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


@pytest.fixture
def temp(tmp_path: Path) -> Path:
    path = tmp_path / "temp"
    path.mkdir()
    return path


def resolved(skill_md: Path, temp: Path, **options: int) -> PreviousVersion:
    found = resolve_previous(skill_md, temp_dir=temp, **options)
    assert isinstance(found, PreviousVersion), found
    return found


def note(skill_md: Path, temp: Path, **options: int) -> str:
    found = resolve_previous(skill_md, temp_dir=temp, **options)
    assert isinstance(found, Unresolved), found
    assert list(temp.iterdir()) == []  # a note never leaves a directory behind
    return found.reason


# -- the version rule ------------------------------------------------------------------


def test_a_declared_version_picks_the_newest_commit_with_another_version(
    repo: Repo, temp: Path
) -> None:
    first = repo.commit("1.0", {"skill/SKILL.md": skill_text("Use ISO dates.", version="1.0")})
    edited = repo.commit("1.0 edit", {"skill/SKILL.md": skill_text("Use ISO 8601.", version="1.0")})
    repo.commit("2.0", {"skill/SKILL.md": skill_text("Use RFC 3339.", version="2.0")})
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        # The newest 1.0 commit, not the first one: edits within a version count as it.
        assert found.commit == edited != first
        assert found.path == "skill/SKILL.md"
        assert found.skill.version == "1.0"
        assert found.skill.instructions == "Use ISO 8601."
        assert found.skill.variant == "baseline"
        assert found.skill.path == found.directory / "SKILL.md"
        assert found.text == skill_text("Use ISO 8601.", version="1.0")
        assert found.skill.meta["version"] == "1.0"


def test_an_unchanged_version_is_no_earlier_version_even_when_the_text_changed(
    repo: Repo, temp: Path
) -> None:
    repo.commit("a", {"skill/SKILL.md": skill_text("Use ISO dates.", version="1.0")})
    repo.commit("b", {"skill/SKILL.md": skill_text("Use ISO 8601.", version="1.0")})
    assert note(repo.root / "skill/SKILL.md", temp) == NO_EARLIER


def test_without_a_version_the_newest_commit_whose_text_differs(repo: Repo, temp: Path) -> None:
    first = repo.commit("a", {"skill/SKILL.md": skill_text("Use ISO dates.")})
    repo.commit("b", {"skill/SKILL.md": skill_text("Use RFC 3339.")})
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        assert found.commit == first
        assert found.skill.instructions == "Use ISO dates."
        assert found.skill.version is None


def test_the_working_copy_is_the_candidate_so_an_uncommitted_edit_makes_head_the_baseline(
    repo: Repo, temp: Path
) -> None:
    repo.commit("a", {"skill/SKILL.md": skill_text("Use ISO dates.")})
    head = repo.commit("b", {"skill/SKILL.md": skill_text("Use RFC 3339.")})
    repo.write("skill/SKILL.md", skill_text("Use whatever the user wrote."))
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        assert found.commit == head
        assert found.skill.instructions == "Use RFC 3339."


def test_line_endings_alone_are_not_an_earlier_version(repo: Repo, temp: Path) -> None:
    first = repo.commit("a", {"skill/SKILL.md": skill_text("Use ISO dates.")})
    repo.commit("b", {"skill/SKILL.md": skill_text("Use RFC 3339.")})
    repo.write("skill/SKILL.md", skill_text("Use RFC 3339.").replace("\n", "\r\n"))
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        assert found.commit == first  # HEAD differs only in its line endings


def test_a_historical_skill_md_that_does_not_parse_is_skipped(repo: Repo, temp: Path) -> None:
    good = repo.commit("1.0", {"skill/SKILL.md": skill_text("Old.", version="1.0")})
    # An unquoted 1.5 reads as a float, which the parser refuses.
    repo.commit("broken", {"skill/SKILL.md": "---\nname: demo\nversion: 1.5\n---\nBroken.\n"})
    repo.commit("2.0", {"skill/SKILL.md": skill_text("New.", version="2.0")})
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        assert found.commit == good


def test_at_most_max_commits_that_touched_skill_md_are_read(repo: Repo, temp: Path) -> None:
    first = repo.commit("1.0", {"skill/SKILL.md": skill_text("Old.", version="1.0")})
    repo.commit("2.0", {"skill/SKILL.md": skill_text("New.", version="2.0")})
    repo.commit("unrelated", {"README.md": "not the skill\n"})  # does not touch SKILL.md
    repo.commit("2.0 edit", {"skill/SKILL.md": skill_text("Newer.", version="2.0")})
    skill_md = repo.root / "skill/SKILL.md"
    # Touching SKILL.md, newest first: "2.0 edit", "2.0", "1.0"; two are not enough.
    assert note(skill_md, temp, max_commits=2) == (
        "no earlier version of SKILL.md found in the last 2 commits"
    )
    with resolved(skill_md, temp, max_commits=3) as found:
        assert found.commit == first


def test_max_commits_below_one_is_the_callers_mistake(repo: Repo) -> None:
    repo.commit("a", {"skill/SKILL.md": skill_text("A.")})
    with pytest.raises(ValueError, match="at least 1"):
        resolve_previous(repo.root / "skill/SKILL.md", max_commits=0)


# -- nothing to resolve ----------------------------------------------------------------


def test_a_single_version_has_no_earlier_version(repo: Repo, temp: Path) -> None:
    repo.commit("a", {"skill/SKILL.md": skill_text("A.")})
    assert note(repo.root / "skill/SKILL.md", temp) == NO_EARLIER


def test_a_staged_skill_md_in_a_repository_without_commits(repo: Repo, temp: Path) -> None:
    repo.write("skill/SKILL.md", skill_text("A."))
    repo.git("add", "-A")
    assert note(repo.root / "skill/SKILL.md", temp) == NO_EARLIER


def test_an_untracked_skill_md(repo: Repo, temp: Path) -> None:
    repo.commit("a", {"README.md": "hello\n"})
    skill_md = repo.write("skill/SKILL.md", skill_text("A."))
    assert note(skill_md, temp) == "SKILL.md is not tracked by git"


def test_a_skill_outside_any_repository(tmp_path: Path, temp: Path) -> None:
    skill_md = tmp_path / "loose" / "SKILL.md"
    skill_md.parent.mkdir()
    skill_md.write_text(skill_text("A."))
    assert note(skill_md, temp) == f"{skill_md.parent} is not inside a git repository"


def test_no_git_on_path(
    repo: Repo, temp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.commit("a", {"skill/SKILL.md": skill_text("A.")})
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert note(repo.root / "skill/SKILL.md", temp) == "git is not installed"


def test_an_unreadable_working_copy(tmp_path: Path, temp: Path) -> None:
    missing = tmp_path / "gone" / "SKILL.md"
    assert note(missing, temp) == (
        f"cannot read {missing}: cannot read the file: No such file or directory"
    )


# -- renames ---------------------------------------------------------------------------


def _moved_skill(repo: Repo) -> tuple[str, str]:
    """1.0 and 2.0 under old/, then an exact move to new/; the 1.0 commit and the move."""
    first = repo.commit(
        "1.0",
        {
            "old/SKILL.md": skill_text("Old.", version="1.0", name=None),
            "old/references/ref.md": "ref at 1.0\n",
        },
    )
    repo.commit("2.0", {"old/SKILL.md": skill_text("New.", version="2.0", name=None)})
    repo.git("mv", "old", "new")
    move = repo.commit("move")
    return first, move


def test_an_exact_move_of_the_skill_directory_is_followed(repo: Repo, temp: Path) -> None:
    first, _ = _moved_skill(repo)
    with resolved(repo.root / "new/SKILL.md", temp) as found:
        assert found.commit == first
        assert found.path == "old/SKILL.md"  # where it lived then
        assert found.skill.name == "old"  # a name taken from the directory it had then
        assert (found.directory / "references/ref.md").read_text() == "ref at 1.0\n"


def test_the_commit_limit_counts_across_the_paths_followed(repo: Repo, temp: Path) -> None:
    first, _ = _moved_skill(repo)
    skill_md = repo.root / "new/SKILL.md"
    # Read: the move (new/), 2.0 (old/), 1.0 (old/): the third is the one.
    assert note(skill_md, temp, max_commits=2) == (
        "no earlier version of SKILL.md found in the last 2 commits"
    )
    with resolved(skill_md, temp, max_commits=3) as found:
        assert found.commit == first


def test_a_move_that_also_edits_skill_md_is_not_followed(repo: Repo, temp: Path) -> None:
    repo.commit("1.0", {"old/SKILL.md": skill_text("Old.", version="1.0")})
    (repo.root / "old").rename(repo.root / "new")
    repo.write("new/SKILL.md", skill_text("Old, edited.", version="2.0"))
    repo.commit("move and bump")
    assert note(repo.root / "new/SKILL.md", temp) == NO_EARLIER


def test_paths_are_literal_and_may_hold_glob_characters_and_unicode(repo: Repo, temp: Path) -> None:
    first = repo.commit("a", {"we*rd [x] ü/SKILL.md": skill_text("A.")})
    repo.commit("b", {"we*rd [x] ü/SKILL.md": skill_text("B.")})
    repo.commit("decoy", {"weXrd x ü/SKILL.md": skill_text("C.")})  # a glob would match it
    with resolved(repo.root / "we*rd [x] ü" / "SKILL.md", temp) as found:
        assert found.commit == first
        assert found.path == "we*rd [x] ü/SKILL.md"
    repo.commit("decoy 2", {"weXrd y/SKILL.md": skill_text("E.")})
    untracked = repo.write("we*rd [y]/SKILL.md", skill_text("D."))
    assert note(untracked, temp) == "SKILL.md is not tracked by git"  # as a glob, it would be


def test_a_skill_at_the_repository_root(repo: Repo, temp: Path) -> None:
    first = repo.commit("a", {"SKILL.md": skill_text("A.", name="demo"), "notes.md": "one\n"})
    repo.commit("b", {"SKILL.md": skill_text("B.", name="demo")})
    with resolved(repo.root / "SKILL.md", temp) as found:
        assert found.commit == first
        assert Bundle.of(found.directory).files() == ["notes.md"]


# -- shallow clones --------------------------------------------------------------------


def test_a_shallow_clone_says_so(repo: Repo, temp: Path, tmp_path: Path) -> None:
    first = repo.commit("a", {"skill/SKILL.md": skill_text("A.")})
    repo.commit("b", {"skill/SKILL.md": skill_text("B.")})
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone)],
        check=True,
        capture_output=True,
    )
    assert note(clone / "skill/SKILL.md", temp) == (
        NO_EARLIER + "; the clone is shallow, fetch the whole history (fetch-depth: 0)"
    )
    full = tmp_path / "full"
    subprocess.run(["git", "clone", "-q", str(repo.root), str(full)], check=True)
    with resolved(full / "skill/SKILL.md", temp) as found:
        assert found.commit == first  # the same history, whole


# -- the bundle ------------------------------------------------------------------------


def test_a_bundle_only_commit_after_the_skill_md_edit_is_invisible(repo: Repo, temp: Path) -> None:
    first = repo.commit(
        "1.0",
        {"skill/SKILL.md": skill_text("Old.", version="1.0"), "skill/references/ref.md": "one\n"},
    )
    repo.commit("bundle only", {"skill/references/ref.md": "two\n"})  # still 1.0
    repo.commit("2.0", {"skill/SKILL.md": skill_text("New.", version="2.0")})
    repo.commit("bundle only again", {"skill/references/ref.md": "three\n"})
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        # The commit that last edited SKILL.md at 1.0, with the bundle it had then.
        assert found.commit == first
        assert (found.directory / "references/ref.md").read_text() == "one\n"


def test_the_bundle_ships_what_the_bundle_rule_ships(repo: Repo, temp: Path) -> None:
    files = {
        "skill/SKILL.md": skill_text("Old.", version="1.0"),
        "skill/scripts/run.sh": "#!/bin/sh\necho hi\n",
        "skill/templates/SKILL.md": "a nested SKILL.md ships\n",
        "skill/evals/cases.eval.yaml": "answers\n",
        "skill/more.eval.yaml": "answers\n",
        "skill/evals.json": "{}\n",
        "skill/.env": "SECRET=1\n",
        "skill/node_modules/x/index.js": "dep\n",
    }
    for relpath, text in files.items():
        repo.write(relpath, text)
    os.chmod(repo.root / "skill/scripts/run.sh", 0o755)
    repo.commit("1.0")
    repo.commit("2.0", {"skill/SKILL.md": skill_text("New.", version="2.0")})
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        on_disk = sorted(
            str(p.relative_to(found.directory)) for p in found.directory.rglob("*") if p.is_file()
        )
        assert on_disk == ["SKILL.md", "scripts/run.sh", "templates/SKILL.md"]
        assert Bundle.of(found.directory).files() == ["scripts/run.sh", "templates/SKILL.md"]
        assert os.stat(found.directory / "scripts/run.sh").st_mode & 0o100  # still runnable


def test_a_commit_that_shipped_only_skill_md_gives_an_empty_bundle(repo: Repo, temp: Path) -> None:
    repo.commit("1.0", {"skill/SKILL.md": skill_text("Old.", version="1.0")})
    repo.commit("2.0", {"skill/SKILL.md": skill_text("New.", version="2.0"), "skill/x.md": "x\n"})
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        assert not Bundle.of(found.directory)  # no bundle tools, never the candidate's


def test_a_committed_symlink_out_is_dropped_and_never_followed(
    repo: Repo, temp: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the answer\n")
    repo.commit("1.0", {"skill/SKILL.md": skill_text("Old.", version="1.0"), "skill/a.md": "a\n"})
    os.symlink(secret, repo.root / "skill/out")
    os.symlink("a.md", repo.root / "skill/inner")
    os.symlink("/", repo.root / "skill/root")
    repo.commit("links")
    repo.commit("2.0", {"skill/SKILL.md": skill_text("New.", version="2.0")})
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        assert sorted(os.listdir(found.directory)) == ["SKILL.md", "a.md"]
    assert secret.read_text() == "the answer\n"


def test_an_archive_git_cannot_make_is_a_note(repo: Repo, temp: Path) -> None:
    first = repo.commit(
        "1.0", {"skill/SKILL.md": skill_text("Old.", version="1.0"), "skill/ref.md": "lost\n"}
    )
    repo.commit("2.0", {"skill/SKILL.md": skill_text("New.", version="2.0")})
    blob = repo.git("rev-parse", f"{first}:skill/ref.md")
    (repo.root / ".git/objects" / blob[:2] / blob[2:]).unlink()  # the tree still lists it
    reason = note(repo.root / "skill/SKILL.md", temp)
    assert reason.startswith(f"cannot archive commit {first[:8]}: ")


def test_git_failing_to_archive_is_git_failed(repo: Repo, tmp_path: Path) -> None:
    repo.commit("a", {"skill/SKILL.md": skill_text("A.")})
    git = Git(shutil.which("git") or "git", repo.root)
    with pytest.raises(GitFailed, match="not a valid object name"):
        previous_git.archive_into(git, "0" * 40 + ":skill", TreeFiles({}), tmp_path)


def test_filter_drivers_are_emptied_by_name(repo: Repo) -> None:
    repo.git("config", "filter.lfs.smudge", "git-lfs smudge -- %f")
    repo.git("config", "filter.My.Odd.process", "odd")
    git = Git(shutil.which("git") or "git", repo.root).without_filters()
    assert git.config == (
        "filter.My.Odd.smudge=",
        "filter.My.Odd.process=",
        "filter.My.Odd.required=false",
        "filter.lfs.smudge=",
        "filter.lfs.process=",
        "filter.lfs.required=false",
    )
    repo.git("config", "filter.a=b.smudge", "sh")  # '-c' cannot name it: refuse to archive
    with pytest.raises(GitFailed, match="cannot be overridden"):
        Git(shutil.which("git") or "git", repo.root).without_filters()


def test_a_bundle_over_the_cap_is_a_note(
    repo: Repo, temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = repo.commit(
        "1.0",
        {
            "skill/SKILL.md": skill_text("Old.", version="1.0"),
            "skill/a.md": "a\n",
            "skill/b.md": "b\n",
        },
    )
    repo.commit("2.0", {"skill/SKILL.md": skill_text("New.", version="2.0")})
    monkeypatch.setattr(previous_git, "MAX_BUNDLE_FILES", 1)
    assert note(repo.root / "skill/SKILL.md", temp) == (
        f"cannot extract the bundle at commit {first[:8]}: it ships more than 1 files"
    )


def test_the_caps_count_the_bundle_not_skill_md() -> None:
    thousand = {f"f{i}.md": 1 for i in range(1_000)}
    assert TreeFiles({"SKILL.md": 5, **thousand}).over_cap() is None
    assert TreeFiles({**thousand, "one_more.md": 1}).over_cap() == (
        "it ships more than 1,000 files"
    )
    assert TreeFiles({"SKILL.md": 10, "big": 100_000_000}).over_cap() is None
    assert TreeFiles({"big": 100_000_001}).over_cap() == "it ships more than 100 MB"


# -- the extraction, on archives git would never make ------------------------------------


def _tar(*members: tuple[tarfile.TarInfo, bytes]) -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for info, data in members:
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    buffer.seek(0)
    return buffer


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("/etc/cron.d/x", "an absolute name"),
        ("../outside.md", "a name that leaves the directory"),
        ("a/../../outside.md", "a name that leaves the directory"),
    ],
)
def test_an_absolute_or_escaping_name_refuses_the_archive(
    tmp_path: Path, name: str, problem: str
) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    stream = _tar((_member(name), b"x"))
    with pytest.raises(ExtractionRefused, match=problem):
        extract_members(stream, dest, frozenset({name}))
    assert list(dest.iterdir()) == []
    assert not (tmp_path / "outside.md").exists()


def test_links_devices_fifos_and_unasked_files_are_skipped(tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    stream = _tar(
        (_member("ok.md"), b"fine\n"),
        (_member("out", tarfile.SYMTYPE, "/etc/passwd"), b""),
        (_member("hard", tarfile.LNKTYPE, "ok.md"), b""),
        (_member("dev", tarfile.CHRTYPE), b""),
        (_member("fifo", tarfile.FIFOTYPE), b""),
        (_member("unasked.md"), b"no\n"),
    )
    wanted = frozenset({"ok.md", "out", "hard", "dev", "fifo"})
    assert extract_members(stream, dest, wanted) == 1
    assert os.listdir(dest) == ["ok.md"]
    assert (dest / "ok.md").read_text() == "fine\n"


def test_the_data_filter_strips_setuid_and_keeps_the_owner_bits(tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    info = _member("tool.sh")
    info.mode = 0o4777
    extract_members(_tar((info, b"#!/bin/sh\n")), dest, frozenset({"tool.sh"}))
    mode = os.stat(dest / "tool.sh").st_mode & 0o7777
    assert mode & 0o4000 == 0 and mode & 0o022 == 0 and mode & 0o700 == 0o700


def test_a_stream_past_the_caps_is_refused(tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    names = frozenset({"a", "b", "c"})
    members = [(_member(n), b"12345") for n in sorted(names)]
    with pytest.raises(ExtractionRefused, match="larger than a bundle"):
        extract_members(_tar(*members), dest, names, max_files=2)
    with pytest.raises(ExtractionRefused, match="larger than a bundle"):
        extract_members(_tar(*members), tmp_path, names, max_bytes=9)  # 5 + 5 > 9


# -- a repository that tries to run something ------------------------------------------


def _hostile(repo: Repo, tmp_path: Path) -> tuple[str, Path]:
    marker = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat\n')
    gpg = tmp_path / "gpg.sh"
    gpg.write_text(
        f'#!/bin/sh\necho "gpg $*" >> {marker}\ncat >/dev/null\n'
        'echo "[GNUPG:] SIG_CREATED D 1 8 00 1700000000 ABC" >&2\n'
        "printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nAAAA\\n-----END PGP SIGNATURE-----\\n'\n"
    )
    hook.chmod(0o755)
    gpg.chmod(0o755)
    for attributes in (".gitattributes", "skill/.gitattributes"):  # a subtree reads its own
        repo.write(attributes, "* filter=evil diff=evil\n")
    repo.commit(
        "1.0", {"skill/SKILL.md": skill_text("Old.", version="1.0"), "skill/ref.md": "raw\n"}
    )
    # A signed edit of SKILL.md, so the walk's own log would verify it through gpg.program.
    repo.write("skill/SKILL.md", skill_text("Old, signed.", version="1.0"))
    repo.git("add", "-A")
    repo.git("-c", f"gpg.program={gpg}", "-c", "user.signingkey=ABC", "commit", "-q", "-S",
             "-m", "signed")  # fmt: skip
    signed = repo.git("rev-parse", "HEAD")
    repo.commit("2.0", {"skill/SKILL.md": skill_text("New.", version="2.0")})
    for key, value in {
        "core.fsmonitor": str(hook),
        "filter.evil.smudge": str(hook),
        "filter.evil.required": "true",
        "diff.external": str(hook),
        "diff.evil.textconv": str(hook),
        "log.showSignature": "true",
        "gpg.program": str(gpg),
    }.items():
        repo.git("config", key, value)
    return signed, marker


def _live(repo: Repo, marker: Path, *args: str) -> bool:
    """Whether plain ``git args`` in the repository runs the planted commands."""
    subprocess.run(["git", *args], cwd=repo.root, capture_output=True, check=False)
    ran = marker.exists()
    marker.unlink(missing_ok=True)
    return ran


def test_a_hostile_repository_config_runs_nothing(repo: Repo, temp: Path, tmp_path: Path) -> None:
    first, marker = _hostile(repo, tmp_path)
    # The trap is live: each command we call would run it if called plainly.
    assert _live(repo, marker, "ls-files", "--error-unmatch", "--", "skill/SKILL.md")
    assert _live(repo, marker, "archive", "--format=tar", f"{first}:skill")
    assert _live(repo, marker, "log", "--format=%H", "-1", "HEAD~1", "--", "skill/SKILL.md")
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        assert found.commit == first
        assert (found.directory / "ref.md").read_text() == "raw\n"  # as committed
    assert not marker.exists()


def test_inherited_git_variables_do_not_steer_the_calls(
    repo: Repo, temp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = repo.commit("a", {"skill/SKILL.md": skill_text("A.")})
    repo.commit("b", {"skill/SKILL.md": skill_text("B.")})
    other = Repo(tmp_path / "other")
    other.commit("x", {"skill/SKILL.md": skill_text("Other.")})
    # What a run started from a git hook inherits, pointing at another repository.
    monkeypatch.setenv("GIT_DIR", str(other.root / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other.root))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other.root / ".git/index"))
    with resolved(repo.root / "skill/SKILL.md", temp) as found:
        assert found.commit == first


def test_the_git_environment() -> None:
    env = git_environment(
        {
            "PATH": "/bin",
            "GIT_DIR": "/elsewhere",
            "GIT_EXTERNAL_DIFF": "/evil",
            "GIT_CONFIG_GLOBAL": "/home/ci/.gitconfig",
            "LANGUAGE": "de",
        }
    )
    assert env == {
        "PATH": "/bin",
        "GIT_CONFIG_GLOBAL": "/home/ci/.gitconfig",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_LITERAL_PATHSPECS": "1",
        "LC_ALL": "C",
    }


def test_every_call_switches_the_fsmonitor_off_and_takes_no_shell() -> None:
    git = Git("/usr/bin/git", Path("/r"), config=("filter.x.smudge=",))
    assert git.argv("log", "-1") == [
        "/usr/bin/git",
        "--no-pager",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "log.showSignature=false",
        "-c",
        "filter.x.smudge=",
        "log",
        "-1",
    ]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_a_repository_owned_by_another_user_is_a_note_not_an_override(
    repo: Repo, temp: Path
) -> None:
    repo.commit("a", {"skill/SKILL.md": skill_text("A.")})
    repo.commit("b", {"skill/SKILL.md": skill_text("B.")})
    for path in [repo.root, *repo.root.rglob("*")]:
        os.lchown(path, 65534, 65534)
    reason = note(repo.root / "skill/SKILL.md", temp)
    assert reason == (
        f"git refuses the repository holding {repo.root / 'skill'}: it is owned by another "
        "user (git's safe.directory setting says which repositories to trust)"
    )


# -- the extracted directory's life ------------------------------------------------------


def test_the_directory_is_marked_for_the_sweep_and_removed_after_use(
    repo: Repo, temp: Path
) -> None:
    repo.commit("a", {"skill/SKILL.md": skill_text("A."), "skill/ref.md": "r\n"})
    repo.commit("b", {"skill/SKILL.md": skill_text("B.")})
    found = resolved(repo.root / "skill/SKILL.md", temp)
    assert found.directory.parent == temp
    assert found.directory.name.startswith("skill-lens-previous-")
    assert found.directory.name.endswith(owner_mark())
    with found:
        assert (found.directory / "ref.md").is_file()
    assert not found.directory.exists()
    found.close()  # twice is fine


def test_the_directory_is_removed_when_the_run_raises(repo: Repo, temp: Path) -> None:
    repo.commit("a", {"skill/SKILL.md": skill_text("A."), "skill/ref.md": "r\n"})
    repo.commit("b", {"skill/SKILL.md": skill_text("B.")})
    found = resolved(repo.root / "skill/SKILL.md", temp)
    with pytest.raises(RuntimeError, match="the case blew up"), found:
        raise RuntimeError("the case blew up")
    assert list(temp.iterdir()) == []


def test_the_default_directory_is_in_the_skill_lens_parent_of_the_system_temp_dir(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = tmp_path / "system-temp"
    system.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(system))
    repo.commit("a", {"skill/SKILL.md": skill_text("A.")})
    repo.commit("b", {"skill/SKILL.md": skill_text("B.")})
    found = resolve_previous(repo.root / "skill/SKILL.md")
    assert isinstance(found, PreviousVersion)
    with found:
        assert found.directory.parent == system.resolve() / f"skill-lens-{os.getuid()}"


def _two_versions(repo: Repo) -> str:
    first = repo.commit("a", {"skill/SKILL.md": skill_text("A."), "skill/ref.md": "r\n"})
    repo.commit("b", {"skill/SKILL.md": skill_text("B.")})
    return first


def test_an_archive_timeout_is_a_note_and_leaves_nothing(
    repo: Repo, temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _two_versions(repo)

    def times_out(git: Git, tree: str, wanted: TreeFiles, dest: Path) -> None:
        (dest / "partial.md").write_text("half")
        raise GitFailed("git archive timed out after 10 s", timed_out=True)

    monkeypatch.setattr(previous, "archive_into", times_out)
    assert note(repo.root / "skill/SKILL.md", temp) == (
        f"cannot archive commit {first[:8]}: git archive timed out after 10 s"
    )


def test_a_refused_extraction_is_a_note_and_leaves_nothing(
    repo: Repo, temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _two_versions(repo)

    def refuses(git: Git, tree: str, wanted: TreeFiles, dest: Path) -> None:
        (dest / "partial.md").write_text("half")
        raise ExtractionRefused("'/etc/x': an absolute name")

    monkeypatch.setattr(previous, "archive_into", refuses)
    assert note(repo.root / "skill/SKILL.md", temp) == (
        f"cannot extract the bundle at commit {first[:8]}: '/etc/x': an absolute name"
    )


def test_an_interrupt_while_extracting_propagates_and_leaves_nothing(
    repo: Repo, temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_versions(repo)

    def interrupted(git: Git, tree: str, wanted: TreeFiles, dest: Path) -> None:
        (dest / "partial.md").write_text("half")
        raise KeyboardInterrupt

    monkeypatch.setattr(previous, "archive_into", interrupted)
    with pytest.raises(KeyboardInterrupt):
        resolve_previous(repo.root / "skill/SKILL.md", temp_dir=temp)
    assert list(temp.iterdir()) == []


def test_a_git_timeout_while_reading_history_is_a_note(
    repo: Repo, temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_versions(repo)
    real = Git.run

    def slow_log(self: Git, *args: str) -> bytes:
        if args[0] == "log":
            raise GitFailed("git log timed out after 10 s", timed_out=True)
        return real(self, *args)

    monkeypatch.setattr(Git, "run", slow_log)
    skill_md = repo.root / "skill/SKILL.md"
    assert note(skill_md, temp) == (
        f"cannot read the git history of {skill_md}: git log timed out after 10 s"
    )
