"""The pure half of ``--skill-lens-changed``: git's ``-z`` output read, matched to skills."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.run.history.changed_diff import (
    Change,
    decide,
    parse_name_status,
    parse_untracked,
)
from pytest_skill_lens.suite.inputs import SkillInputs

TOP = Path("/repo")


def inputs(name: str, *others: str) -> SkillInputs:
    directory = TOP / "skills" / name
    return SkillInputs(name, directory, frozenset({directory, *(TOP / o for o in others)}))


def test_name_status_with_hostile_names_is_read_exactly() -> None:
    data = (
        b"M\0skills/a/SKILL.md\0"
        b"A\0skills/a/--force\0"
        b"D\0skills/a/line\nbreak.md\0"
        b"R087\0skills/old/SKILL.md\0skills/new/SKILL.md\0"
        b"T\0skills/a/link\0"
        b"U\0skills/a/conflict\0"
        + "A\0skills/a/caf\u00e9 \u2603.md\0".encode()
        + b"A\0skills/a/bad\xff\0"
    )

    assert parse_name_status(data) == [
        Change("modified", "skills/a/SKILL.md"),
        Change("added", "skills/a/--force"),
        Change("deleted", "skills/a/line\nbreak.md"),
        Change("renamed", "skills/new/SKILL.md", "skills/old/SKILL.md"),
        Change("modified", "skills/a/link"),
        Change("modified", "skills/a/conflict"),
        Change("added", "skills/a/caf\u00e9 \u2603.md"),
        Change("added", "skills/a/bad\udcff"),
    ]


def test_a_truncated_or_unknown_record_is_refused_not_guessed() -> None:
    with pytest.raises(ValueError, match="unexpected"):
        parse_name_status(b"R100\0only-one-path\0")
    with pytest.raises(ValueError, match="unexpected"):
        parse_name_status(b"Q\0x\0")


def test_untracked_files_are_changes() -> None:
    assert parse_untracked(b"skills/a/new.md\0-rf\0") == [
        Change("untracked", "skills/a/new.md"),
        Change("untracked", "-rf"),
    ]
    assert parse_untracked(b"") == []


def test_a_change_is_described_with_its_path_and_what_happened() -> None:
    assert Change("modified", "a/b").describe() == "a/b modified"
    assert Change("renamed", "n/SKILL.md", "o/SKILL.md").describe() == (
        "n/SKILL.md renamed from o/SKILL.md"
    )
    assert Change("deleted", "x\ny").describe() == "'x\\ny' deleted"


def test_only_the_skill_whose_own_file_changed_is_changed() -> None:
    a, b = inputs("a"), inputs("b")

    verdicts = decide(TOP, [a, b], [], [Change("modified", "skills/a/scripts/run.py")])

    assert [v.changed for v in verdicts] == [True, False]
    assert [str(why) for why in verdicts[0].reasons] == [
        "skills/a/scripts/run.py modified (its own files)"
    ]


def test_a_sibling_with_a_common_prefix_is_not_the_skill() -> None:
    verdicts = decide(TOP, [inputs("a")], [], [Change("modified", "skills/ab/SKILL.md")])

    assert not verdicts[0].changed


def test_a_shared_library_marks_every_skill_that_reads_it() -> None:
    a = inputs("a", "shared/tools.yaml")
    b = inputs("b", "shared/tools.yaml")
    c = inputs("c", "shared/other")
    changes = [Change("modified", "shared/tools.yaml"), Change("added", "shared/other/new.yaml")]

    verdicts = decide(TOP, [a, b, c], [], changes)

    assert [v.changed for v in verdicts] == [True, True, True]
    assert str(verdicts[0].reasons[0]) == "shared/tools.yaml modified (a file its cases read)"
    assert str(verdicts[2].reasons[0]) == "shared/other/new.yaml added (a file its cases read)"


def test_configuration_marks_all_and_a_conftest_marks_the_skills_below_it() -> None:
    a, b = inputs("a"), inputs("b")
    config = [Change("modified", "skill-lens.toml")]
    assert all(v.changed for v in decide(TOP, [a, b], [TOP / "skill-lens.toml"], config))
    assert str(decide(TOP, [a], [TOP / "skill-lens.toml"], config)[0].reasons[0]) == (
        "skill-lens.toml modified (configuration)"
    )

    conftests = [Change("deleted", "skills/conftest.py"), Change("added", "other/conftest.py")]
    verdicts = decide(TOP, [a, b], [], conftests)
    assert [[str(w) for w in v.reasons] for v in verdicts] == [
        ["skills/conftest.py deleted (a conftest.py above it)"]
    ] * 2


def test_a_rename_maps_the_old_directory_to_the_new() -> None:
    moved = inputs("new")
    change = Change("renamed", "skills/new/SKILL.md", "skills/old/SKILL.md")

    (verdict,) = decide(TOP, [moved], [], [change])

    assert verdict.changed and verdict.moved_from == "skills/old"


def test_a_file_moved_out_of_the_skill_changes_it() -> None:
    change = Change("renamed", "elsewhere/notes.md", "skills/a/notes.md")

    assert decide(TOP, [inputs("a")], [], [change])[0].changed


def test_what_git_cannot_see_is_changed_never_silently_skipped() -> None:
    outside = SkillInputs("x", Path("/elsewhere/x"), frozenset({Path("/elsewhere/x")}))
    reads_outside = SkillInputs(
        "y", TOP / "skills/y", frozenset({TOP / "skills/y", Path("/lib/tools.yaml")})
    )

    verdicts = decide(TOP, [outside, reads_outside, inputs("z")], [Path("/etc/sl.toml")], [])

    assert all(v.changed for v in verdicts)
    assert str(verdicts[0].reasons[0]) == (
        "/elsewhere/x is outside the repository at /repo: git cannot tell whether it changed"
    )
