"""``--skill-lens-changed``'s core against real git repositories built in ``tmp_path``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_skill_lens.run.history import changed
from pytest_skill_lens.run.history.changed import ChangedError, changed_skills
from pytest_skill_lens.suite.inputs import SkillInputs

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "Ann",
            "GIT_AUTHOR_EMAIL": "ann@example.org",
            "GIT_COMMITTER_NAME": "Ann",
            "GIT_COMMITTER_EMAIL": "ann@example.org",
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

    def write(self, relpath: str, text: str = "x\n") -> None:
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def commit(self, message: str, files: dict[str, str] | None = None) -> str:
        for relpath, text in (files or {}).items():
            self.write(relpath, text)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def skill(self, name: str, *others: str) -> SkillInputs:
        directory = (self.root / "skills" / name).resolve()
        extra = {(self.root / other).resolve() for other in others}
        return SkillInputs(name, directory, frozenset({directory, *extra}))


BASE = {
    "skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\nA\n",
    "skills/a/evals/cases.yaml": "cases: []\n",
    "skills/b/SKILL.md": "---\nname: b\ndescription: d\n---\nB\n",
    "shared/tools.yaml": "tools: []\n",
    "skill-lens.toml": "",
}


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    made = Repo(tmp_path / "repo")
    made.commit("base", BASE)
    made.git("checkout", "-q", "-b", "feature")
    return made


def reasons(repo: Repo, ref: str | None = None, **skills: SkillInputs) -> dict[str, list[str]]:
    found = changed_skills(
        repo.root, list(skills.values()), ref, shared=[repo.root / "skill-lens.toml"]
    )
    return {v.skill.name: [str(why) for why in v.reasons] for v in found.verdicts}


def test_a_committed_change_on_the_branch_marks_only_its_skill(repo: Repo) -> None:
    repo.commit("edit a", {"skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\nA2\n"})

    found = changed_skills(repo.root, [repo.skill("a"), repo.skill("b")], None)

    assert [v.changed for v in found.verdicts] == [True, False]
    assert found.baseline.ref == "main"
    assert found.baseline.commit == repo.git("rev-parse", "main")
    assert found.baseline.how == "the merge base of HEAD and main (no origin/HEAD; main exists)"
    assert found.unchanged_reason == f"unchanged since main ({found.baseline.short})"
    assert [str(w) for w in found.verdicts[0].reasons] == [
        "skills/a/SKILL.md modified (its own files)"
    ]


def test_nothing_changed_means_every_skill_unchanged(repo: Repo) -> None:
    found = changed_skills(repo.root, [repo.skill("a"), repo.skill("b")], None)

    assert [v.changed for v in found.verdicts] == [False, False]


def test_main_moving_on_after_the_branch_point_does_not_mark_a_skill(repo: Repo) -> None:
    repo.git("checkout", "-q", "main")
    repo.commit("main edits b", {"skills/b/SKILL.md": "---\nname: b\ndescription: d\n---\nB2\n"})
    repo.git("checkout", "-q", "feature")

    assert reasons(repo, a=repo.skill("a"), b=repo.skill("b")) == {"a": [], "b": []}
    # Against main's tip itself, b differs.
    assert reasons(repo, "main", b=repo.skill("b"))["b"] == [
        "skills/b/SKILL.md modified (its own files)"
    ]


def test_uncommitted_and_untracked_files_count_ignored_ones_do_not(repo: Repo) -> None:
    repo.commit("ignore logs", {".gitignore": "*.log\n"})  # not a skill's file
    repo.write("skills/a/evals/cases.yaml", "cases: [] # edited\n")
    repo.write("skills/b/scripts/new.py")
    repo.write("skills/b/run.log")

    assert reasons(repo, a=repo.skill("a"), b=repo.skill("b")) == {
        "a": ["skills/a/evals/cases.yaml modified (its own files)"],
        "b": ["skills/b/scripts/new.py untracked (its own files)"],
    }


def test_a_renamed_skill_is_followed_to_its_new_directory(repo: Repo) -> None:
    repo.git("mv", "skills/a", "skills/renamed")
    repo.commit("rename a")

    found = changed_skills(repo.root, [repo.skill("renamed"), repo.skill("b")], None)

    moved, other = found.verdicts
    assert moved.changed and moved.moved_from == "skills/a"
    assert "skills/renamed/SKILL.md renamed from skills/a/SKILL.md (its own files)" in [
        str(w) for w in moved.reasons
    ]
    assert not other.changed


def test_a_shared_tool_library_marks_every_skill_that_reads_it(repo: Repo) -> None:
    repo.commit("lib", {"shared/tools.yaml": "tools: [] # v2\n"})

    assert reasons(
        repo,
        a=repo.skill("a", "shared/tools.yaml"),
        b=repo.skill("b", "shared/tools.yaml"),
        c=repo.skill("c"),
    ) == {
        "a": ["shared/tools.yaml modified (a file its cases read)"],
        "b": ["shared/tools.yaml modified (a file its cases read)"],
        "c": [],
    }


def test_the_configuration_and_a_conftest_above_mark_every_skill(repo: Repo) -> None:
    repo.commit("config", {"skill-lens.toml": "repeat = 2\n", "skills/conftest.py": ""})

    assert reasons(repo, a=repo.skill("a"), b=repo.skill("b")) == {
        name: [
            "skill-lens.toml modified (configuration)",
            "skills/conftest.py added (a conftest.py above it)",
        ]
        for name in ("a", "b")
    }


def test_hostile_file_names_are_matched_exactly(repo: Repo) -> None:
    names = ["skills/a/line\nbreak.md", "skills/a/--output=x", "skills/a/caf\u00e9 \u2603.md"]
    repo.commit("hostile", {name: "h\n" for name in names})
    repo.write("skills/b/-rf", "untracked\n")
    with open(os.fsencode(repo.root) + b"/skills/b/tab\there-\xff", "wb") as raw:
        raw.write(b"not UTF-8 in its name\n")

    result = reasons(repo, a=repo.skill("a"), b=repo.skill("b"))

    assert result["a"] == [
        "skills/a/--output=x added (its own files)",
        "skills/a/caf\u00e9 \u2603.md added (its own files)",
        "'skills/a/line\\nbreak.md' added (its own files)",
    ]
    assert result["b"] == [
        "skills/b/-rf untracked (its own files)",
        "'skills/b/tab\\there-\\udcff' untracked (its own files)",
    ]
    assert not (repo.root / "x").exists()


def test_a_given_ref_is_used_and_said(repo: Repo) -> None:
    first = repo.commit("edit b", {"skills/b/SKILL.md": "---\nname: b\ndescription: d\n---\nB3\n"})
    repo.commit("edit a", {"skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\nA3\n"})

    found = changed_skills(repo.root, [repo.skill("a"), repo.skill("b")], first)

    assert [v.changed for v in found.verdicts] == [True, False]
    assert found.baseline.how == "given"
    assert found.unchanged_reason == f"unchanged since {first} ({first[:8]})"


def test_a_ref_searching_commit_messages_names_the_youngest_match(repo: Repo) -> None:
    # git's ":/<text>": all of the rest of the name is the text searched for.
    first = repo.commit("edit b", {"skills/b/SKILL.md": "---\nname: b\ndescription: d\n---\nB3\n"})
    repo.commit("edit a", {"skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\nA3\n"})

    found = changed_skills(repo.root, [repo.skill("a"), repo.skill("b")], ":/^edit b")

    assert found.baseline.commit == first
    assert [v.changed for v in found.verdicts] == [True, False]
    with pytest.raises(ChangedError, match="is not a commit"):
        changed_skills(repo.root, [repo.skill("a")], ":/no commit says this")


def test_origin_head_names_the_default_branch(tmp_path: Path, repo: Repo) -> None:
    repo.git("branch", "-m", "main", "trunk")
    repo.git("checkout", "-q", "trunk")  # the remote's HEAD, which a clone's origin/HEAD names
    clone = Repo.__new__(Repo)
    clone.root = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "-b", "feature", str(repo.root), str(clone.root)], check=True
    )

    found = changed_skills(clone.root, [clone.skill("a")], None)

    assert found.baseline.ref == "origin/trunk"
    assert found.baseline.how == "the merge base of HEAD and origin/trunk (origin/HEAD)"


@pytest.mark.parametrize("ref", ["nope", "--output=/tmp/x", "main\nHEAD", ""])
def test_an_unknown_ref_is_an_error_with_the_fix(repo: Repo, ref: str) -> None:
    with pytest.raises(ChangedError) as caught:
        changed_skills(repo.root, [repo.skill("a")], ref)

    assert "is not a commit in this repository" in caught.value.problem
    assert "git fetch" in caught.value.fix


def test_a_shallow_clone_without_the_ref_says_how_to_fetch_it(tmp_path: Path, repo: Repo) -> None:
    repo.commit("one more")
    shallow = tmp_path / "shallow"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            "-b",
            "feature",
            f"file://{repo.root}",
            str(shallow),
        ],
        check=True,
    )

    with pytest.raises(ChangedError) as default:
        changed_skills(shallow, [], None)
    assert "shallow" in default.value.problem
    assert "git fetch --unshallow" in default.value.fix and "fetch-depth: 0" in default.value.fix

    with pytest.raises(ChangedError) as given:
        changed_skills(shallow, [], repo.git("rev-parse", "main"))
    assert "shallow" in given.value.problem and "git fetch --unshallow" in given.value.fix


def test_no_repository_and_no_git_are_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ChangedError, match="not inside a git repository") as caught:
        changed_skills(tmp_path, [], None)
    assert "git init" in caught.value.fix or "repository" in caught.value.fix

    monkeypatch.setattr(changed, "find_git", lambda: None)
    with pytest.raises(ChangedError, match="git is not installed"):
        changed_skills(tmp_path, [], None)


def test_no_default_branch_is_an_error_naming_the_flag(tmp_path: Path) -> None:
    lone = Repo(tmp_path / "lone")
    lone.git("checkout", "-q", "-b", "work")
    lone.commit("first", {"f": "x\n"})

    with pytest.raises(ChangedError, match="no default branch") as caught:
        changed_skills(lone.root, [], None)
    assert "--skill-lens-changed" in caught.value.fix


def test_an_error_reads_with_its_fix() -> None:
    error = ChangedError("the problem", "the fix")

    assert str(error) == "the problem\n  fix: the fix"


def test_a_shallow_clone_with_a_ref_it_holds_is_compared(tmp_path: Path, repo: Repo) -> None:
    repo.commit("edit a", {"skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\nA4\n"})
    shallow = tmp_path / "shallow"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            "-b",
            "feature",
            f"file://{repo.root}",
            str(shallow),
        ],
        check=True,
    )
    (shallow / "skills/b/SKILL.md").write_text("edited\n", encoding="utf-8")
    skills = [
        SkillInputs(
            n, (shallow / "skills" / n).resolve(), frozenset({(shallow / "skills" / n).resolve()})
        )
        for n in "ab"
    ]

    found = changed_skills(shallow, skills, "HEAD")

    assert [v.changed for v in found.verdicts] == [False, True]


def test_a_ci_checkout_without_origin_head_or_main_uses_origin_main(
    tmp_path: Path, repo: Repo
) -> None:
    # actions/checkout: a detached merge commit, remote-tracking branches, no origin/HEAD.
    repo.commit("edit a", {"skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\nA5\n"})
    clone = Repo.__new__(Repo)
    clone.root = tmp_path / "ci"
    subprocess.run(
        ["git", "clone", "-q", "-b", "feature", str(repo.root), str(clone.root)], check=True
    )
    clone.git("remote", "set-head", "origin", "--delete")
    clone.git("checkout", "-q", "--detach")
    clone.git("branch", "-q", "-D", "feature")

    found = changed_skills(clone.root, [clone.skill("a"), clone.skill("b")], None)

    assert found.baseline.ref == "origin/main"
    assert (
        found.baseline.how
        == "the merge base of HEAD and origin/main (no origin/HEAD; origin/main exists)"
    )
    assert [v.changed for v in found.verdicts] == [True, False]


def test_a_flood_of_changed_names_or_a_slow_git_is_an_error(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write("skills/a/new-file-with-a-long-name.md")
    monkeypatch.setattr(changed, "MAX_OUTPUT", 10)
    with pytest.raises(ChangedError, match="more than 10 bytes of changed names") as flood:
        changed_skills(repo.root, [repo.skill("a")], "main")
    assert "closer REF" in flood.value.fix

    with pytest.raises(ChangedError, match="timed out") as slow:
        changed_skills(repo.root, [repo.skill("a")], "main", timeout=0.000_001)
    assert "closer REF" in slow.value.fix


def test_a_path_taken_as_the_ref_says_how_to_write_the_flag(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `pytest --skill-lens-changed skills` reads "skills" as REF, not as a path to collect.
    monkeypatch.chdir(repo.root)
    with pytest.raises(ChangedError) as caught:
        changed_skills(repo.root, [], "skills")

    assert "'skills' is a path" in caught.value.fix
    assert "--skill-lens-changed=REF" in caught.value.fix


def test_a_deleted_file_and_a_staged_edit_count(repo: Repo) -> None:
    repo.git("rm", "-q", "skills/a/evals/cases.yaml")
    repo.commit("drop a's cases")
    repo.write("skills/b/SKILL.md", "---\nname: b\ndescription: d\n---\nstaged\n")
    repo.git("add", "skills/b/SKILL.md")

    assert reasons(repo, a=repo.skill("a"), b=repo.skill("b")) == {
        "a": ["skills/a/evals/cases.yaml deleted (its own files)"],
        "b": ["skills/b/SKILL.md modified (its own files)"],
    }


def test_the_root_may_be_a_skill_file(repo: Repo) -> None:
    found = changed_skills(repo.root / "skills/a/SKILL.md", [repo.skill("a")], "main")

    assert found.top == repo.root.resolve()


def test_a_git_that_cannot_start_is_said_as_such(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(changed, "find_git", lambda: str(repo.root / "no-such-git"))

    with pytest.raises(ChangedError, match="could not start") as caught:
        changed_skills(repo.root, [], "main")
    assert "not inside a git repository" not in caught.value.problem


def test_a_root_that_does_not_exist_is_said_as_such(tmp_path: Path) -> None:
    with pytest.raises(ChangedError, match="does not exist"):
        changed_skills(tmp_path / "gone" / "skills", [], "main")
