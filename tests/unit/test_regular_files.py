"""spec.regular_files and spec.names, called directly.

A read that opened a FIFO would block for ever, so each read runs in a daemon thread
joined with a generous timeout: a regression fails the test instead of hanging it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from no_hang import within
from pytest_skill_lens.suite import regular_files
from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.names import case_name_problem, hidden_problem
from pytest_skill_lens.suite.regular_files import eval_like_files, read_regular, special_kind

BLOCKED = "the read blocked (it opened a FIFO)"

fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


@fifo_only
def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "cases.yaml"
    os.mkfifo(fifo)

    with pytest.raises(AuthoringError) as caught:
        within(30, lambda: read_regular(fifo), BLOCKED)

    assert caught.value.message.startswith(f"{fifo}: is a FIFO, not a regular file")
    assert "fix: replace it with a regular file" in caught.value.message


@fifo_only
def test_a_fifo_swapped_in_after_the_look_is_refused_on_the_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "cases.yaml"
    os.mkfifo(fifo)
    # The look said "regular file"; by the open, a FIFO is there.
    monkeypatch.setattr(regular_files, "special_kind", lambda path: None)

    with pytest.raises(AuthoringError, match="is a FIFO, not a regular file"):
        within(30, lambda: read_regular(fifo), BLOCKED)


def test_a_device_a_directory_and_a_broken_link_are_named(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to("gone")
    (tmp_path / "file").write_text("x")
    (tmp_path / "to-file").symlink_to("file")

    assert special_kind(Path(os.devnull)) == "a character device"
    assert special_kind(tmp_path / "dir") == "a directory"
    assert special_kind(tmp_path / "link") == "a broken symbolic link"
    assert special_kind(tmp_path / "file") is None
    assert special_kind(tmp_path / "to-file") is None
    assert special_kind(tmp_path / "missing") is None
    assert read_regular(tmp_path / "to-file") == b"x"
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "missing")


@fifo_only
def test_a_listing_refuses_what_it_would_have_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("cases: []\n")
    (tmp_path / "notes.txt").write_text("ignored by name\n")
    os.mkfifo(tmp_path / "pipe.txt")  # not an eval name: never looked at
    assert eval_like_files(tmp_path, lambda name: name.endswith(".yaml")) == [tmp_path / "a.yaml"]

    os.mkfifo(tmp_path / "b.yaml")
    with pytest.raises(AuthoringError, match=r"b\.yaml: is a FIFO, not a regular file"):
        eval_like_files(tmp_path, lambda name: name.endswith(".yaml"))


def test_a_listed_file_name_with_a_control_character_is_refused_escaped(tmp_path: Path) -> None:
    (tmp_path / "a\x1b[2J.yaml").write_text("cases: []\n")

    with pytest.raises(AuthoringError) as caught:
        eval_like_files(tmp_path, lambda name: name.endswith(".yaml"))

    assert "the file name 'a\\x1b[2J.yaml' holds the control character '\\x1b'" in str(caught.value)
    assert "\x1b" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("plain name, with punctuation: (ok) & 'quoted'", None),
        ("accentué 日本語 🙂 e\u0301", None),
        ("a\tb", "the control character '\\t' (U+0009)"),
        ("a\x85b", "the control character '\\x85' (U+0085)"),
        ("a\u200fb", "the invisible format character '\\u200f' (U+200F RIGHT-TO-LEFT MARK)"),
        ("a\ufeffb", "the invisible format character '\\ufeff' (U+FEFF ZERO WIDTH NO-BREAK SPACE)"),
        (
            "a\U000e0041b",
            "the invisible format character '\\U000e0041' (U+E0041 TAG LATIN CAPITAL LETTER A)",
        ),
        ("a\ud800b", "the lone surrogate '\\ud800' (U+D800)"),
        ("a\u2029b", "the line break '\\u2029' (U+2029 PARAGRAPH SEPARATOR)"),
        ("a\u2003b", "the space '\\u2003' (U+2003 EM SPACE), which is not a plain space"),
    ],
)
def test_hidden_characters(text: str, found: str | None) -> None:
    assert hidden_problem(text) == found


def test_a_path_may_hold_other_spaces_but_no_hidden_character() -> None:
    assert hidden_problem("a\xa0b", spaces=False) is None
    assert hidden_problem("a\x1bb", spaces=False) is not None


@pytest.mark.parametrize(
    ("name", "accepted"),
    [
        ("refund/late", True),
        ("a:b", True),
        ("back\\slash", True),
        ("a::b", False),
        ("a[b", False),
        ("b]", False),
        (" a", False),
        ("a ", False),
        ("a\nb", False),
    ],
)
def test_case_name_rules(name: str, accepted: bool) -> None:
    assert (case_name_problem("the case name", name) is None) is accepted
