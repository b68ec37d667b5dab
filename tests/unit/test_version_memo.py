"""A product's ``--version`` answer remembered across sessions (run/products/version_memo.py).

Every test keeps its memo in its own temp parent (``base=tmp_path``); an entry is
remembered only for a file that has not changed for ``SETTLED_NS`` (0 here unless the
test is about that rule).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from pytest_skill_lens.run.process.temp_parent import parent_of
from pytest_skill_lens.run.products import version_memo
from pytest_skill_lens.run.products.version_memo import Question, question, recall, remember
from pytest_skill_lens.run.sandbox.product_sandbox import PRODUCT_ISOLATION, ProductSandbox

ANSWER = "0.61.0"


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(version_memo, "SETTLED_NS", 0)


@pytest.fixture
def exe(tmp_path: Path) -> Path:
    made = tmp_path / "bin" / "gemini"
    made.parent.mkdir()
    made.write_text("#!/bin/sh\necho 0.61.0\n")
    made.chmod(0o755)
    return made


@pytest.fixture
def bwrap(tmp_path: Path) -> Path:
    made = tmp_path / "sbin" / "bwrap"
    made.parent.mkdir()
    made.write_text("#!/bin/sh\n")
    made.chmod(0o755)
    return made


def under_bwrap(bwrap: Path, flags: tuple[str, ...] = PRODUCT_ISOLATION) -> ProductSandbox:
    return ProductSandbox("auto", "bwrap", True, executable=str(bwrap), isolation=flags)


def ask(exe: Path, sandbox: ProductSandbox | None = None, preset: str = "gemini-cli") -> Question:
    asked = question(preset, str(exe), sandbox)
    assert asked is not None
    return asked


def memo_file(tmp_path: Path) -> Path:
    return parent_of(tmp_path) / version_memo.MEMO_NAME


def test_the_same_question_is_answered_from_the_memo(exe: Path, tmp_path: Path) -> None:
    assert recall(ask(exe), tmp_path) is None
    remember(ask(exe), ANSWER, tmp_path)
    assert recall(ask(exe), tmp_path) == ANSWER


def test_a_link_to_the_executable_is_the_same_file(exe: Path, tmp_path: Path) -> None:
    link = tmp_path / "bin" / "gemini-link"
    link.symlink_to(exe)
    remember(ask(exe), ANSWER, tmp_path)
    assert recall(ask(link), tmp_path) == ANSWER


def test_a_touched_executable_is_asked_again(exe: Path, tmp_path: Path) -> None:
    remember(ask(exe), ANSWER, tmp_path)
    info = exe.stat()
    os.utime(exe, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))
    assert recall(ask(exe), tmp_path) is None


def test_a_replaced_executable_is_asked_again(exe: Path, tmp_path: Path) -> None:
    remember(ask(exe), ANSWER, tmp_path)
    info = exe.stat()
    new = exe.with_name("gemini.new")
    shutil.copy2(exe, new)  # same size, same times: only the inode tells
    os.utime(new, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(new, exe)
    assert recall(ask(exe), tmp_path) is None


def test_another_preset_is_asked_again(exe: Path, tmp_path: Path) -> None:
    remember(ask(exe), ANSWER, tmp_path)
    assert recall(ask(exe, preset="opencode"), tmp_path) is None


def test_another_sandbox_decision_is_asked_again(exe: Path, bwrap: Path, tmp_path: Path) -> None:
    remember(ask(exe, under_bwrap(bwrap)), ANSWER, tmp_path)
    assert recall(ask(exe, under_bwrap(bwrap)), tmp_path) == ANSWER
    assert recall(ask(exe), tmp_path) is None  # no sandbox
    home_only = ProductSandbox("auto", "none", True, detail="bwrap not found on PATH")
    assert recall(ask(exe, home_only), tmp_path) is None
    other_flags = (*PRODUCT_ISOLATION, "--unshare-net")
    assert recall(ask(exe, under_bwrap(bwrap, other_flags)), tmp_path) is None
    other_bwrap = bwrap.with_name("bwrap2")
    shutil.copy2(bwrap, other_bwrap)
    assert recall(ask(exe, under_bwrap(other_bwrap)), tmp_path) is None
    info = bwrap.stat()
    os.utime(bwrap, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))  # bwrap upgraded
    assert recall(ask(exe, under_bwrap(bwrap)), tmp_path) is None


def test_a_missing_executable_has_no_question(tmp_path: Path) -> None:
    assert question("gemini-cli", str(tmp_path / "nowhere"), None) is None


def test_a_file_that_just_changed_is_not_remembered(
    exe: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A change within the file system's timestamp granularity could leave the same stat.
    monkeypatch.setattr(version_memo, "SETTLED_NS", 2_000_000_000)
    remember(ask(exe), ANSWER, tmp_path)
    assert recall(ask(exe), tmp_path) is None
    assert not memo_file(tmp_path).exists()


# -- hostile or broken memo files: a miss, never an error -----------------------------------


def test_a_link_is_not_followed_and_is_replaced(exe: Path, tmp_path: Path) -> None:
    remember(ask(exe), ANSWER, tmp_path)
    elsewhere = tmp_path / "elsewhere.json"
    memo_file(tmp_path).rename(elsewhere)
    memo_file(tmp_path).symlink_to(elsewhere)
    assert recall(ask(exe), tmp_path) is None
    remember(ask(exe), ANSWER, tmp_path)
    assert not memo_file(tmp_path).is_symlink()
    assert recall(ask(exe), tmp_path) == ANSWER


def test_a_fifo_is_a_miss_and_does_not_hang(exe: Path, tmp_path: Path) -> None:
    parent_of(tmp_path).mkdir(mode=0o700)
    os.mkfifo(memo_file(tmp_path), 0o600)
    assert recall(ask(exe), tmp_path) is None
    remember(ask(exe), ANSWER, tmp_path)
    assert stat.S_ISREG(os.lstat(memo_file(tmp_path)).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_another_users_file_is_a_miss(exe: Path, tmp_path: Path) -> None:
    remember(ask(exe), ANSWER, tmp_path)
    os.chown(memo_file(tmp_path), 65534, 65534)
    assert recall(ask(exe), tmp_path) is None
    remember(ask(exe), ANSWER, tmp_path)
    assert memo_file(tmp_path).stat().st_uid == os.getuid()


def test_an_oversized_file_is_a_miss(exe: Path, tmp_path: Path) -> None:
    remember(ask(exe), ANSWER, tmp_path)
    text = memo_file(tmp_path).read_text()
    memo_file(tmp_path).write_text(text + " " * version_memo.MAX_BYTES)
    assert json.loads(memo_file(tmp_path).read_text())  # still valid JSON, only too long
    assert recall(ask(exe), tmp_path) is None


def test_malformed_json_is_a_miss_then_rewritten(exe: Path, tmp_path: Path) -> None:
    parent_of(tmp_path).mkdir(mode=0o700)
    memo_file(tmp_path).write_bytes(b'{"format": 1, "entries": [\xff')
    assert recall(ask(exe), tmp_path) is None
    remember(ask(exe), ANSWER, tmp_path)
    assert recall(ask(exe), tmp_path) == ANSWER


def test_deep_nesting_is_a_miss(exe: Path, tmp_path: Path) -> None:
    parent_of(tmp_path).mkdir(mode=0o700)
    memo_file(tmp_path).write_text('{"format": 1, "entries": ' + "[" * 60_000)
    assert recall(ask(exe), tmp_path) is None


def _entry(exe: Path, tmp_path: Path) -> dict[str, object]:
    remember(ask(exe), ANSWER, tmp_path)
    data = json.loads(memo_file(tmp_path).read_text())
    (entry,) = data["entries"]
    assert isinstance(entry, dict)
    return entry


SHAPES = {
    "a list": lambda e: [e],
    "another format": lambda e: {"format": 2, "entries": [e]},
    "an extra key": lambda e: {"format": 1, "entries": [e], "more": 1},
    "an extra entry key": lambda e: {"format": 1, "entries": [{**e, "more": 1}]},
    "a string stat": lambda e: {
        "format": 1,
        "entries": [{**e, "question": {**e["question"], "stat": ["1", "2", "3", "4", "5"]}}],
    },
    "a float stat": lambda e: {
        "format": 1,
        "entries": [{**e, "question": {**e["question"], "stat": [1.0, 2, 3, 4, 5]}}],
    },
    "a number as flag": lambda e: {
        "format": 1,
        "entries": [{**e, "question": {**e["question"], "home_isolated": 0}}],
    },
    "an answer too long": lambda e: {"format": 1, "entries": [{**e, "answer": "x" * 201}]},
    "too many entries": lambda e: {"format": 1, "entries": [e] * 33},
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_wrong_shape_is_a_miss_then_rewritten(exe: Path, tmp_path: Path, shape: str) -> None:
    entry = _entry(exe, tmp_path)
    memo_file(tmp_path).write_text(json.dumps(SHAPES[shape](entry)))
    assert recall(ask(exe), tmp_path) is None
    remember(ask(exe), ANSWER, tmp_path)
    assert recall(ask(exe), tmp_path) == ANSWER


def test_an_unsafe_parent_is_neither_read_nor_written(exe: Path, tmp_path: Path) -> None:
    remember(ask(exe), ANSWER, tmp_path)
    os.chmod(parent_of(tmp_path), 0o755)
    assert recall(ask(exe), tmp_path) is None
    memo_file(tmp_path).unlink()
    remember(ask(exe), ANSWER, tmp_path)
    assert not memo_file(tmp_path).exists()


# -- the file itself ------------------------------------------------------------------------


def test_at_most_32_entries_the_oldest_dropped(exe: Path, tmp_path: Path) -> None:
    for n in range(40):
        remember(ask(exe, preset=f"p{n}"), f"v{n}", tmp_path)
    data = json.loads(memo_file(tmp_path).read_text())
    assert len(data["entries"]) == version_memo.MAX_ENTRIES == 32
    assert [recall(ask(exe, preset=f"p{n}"), tmp_path) for n in (0, 7, 8, 39)] == [
        None,
        None,
        "v8",
        "v39",
    ]


def test_a_question_asked_again_keeps_one_entry_with_the_new_answer(
    exe: Path, tmp_path: Path
) -> None:
    remember(ask(exe), "old", tmp_path)
    remember(ask(exe), ANSWER, tmp_path)
    assert len(json.loads(memo_file(tmp_path).read_text())["entries"]) == 1
    assert recall(ask(exe), tmp_path) == ANSWER


def test_the_file_is_replaced_whole_and_private(exe: Path, tmp_path: Path) -> None:
    remember(ask(exe, preset="first"), "v1", tmp_path)
    with memo_file(tmp_path).open() as before:  # a reader that opened the old file
        remember(ask(exe), ANSWER, tmp_path)
        assert json.loads(before.read())["entries"][0]["answer"] == "v1"  # whole, unchanged
    assert stat.S_IMODE(memo_file(tmp_path).stat().st_mode) == 0o600
    assert [p.name for p in parent_of(tmp_path).iterdir()] == [version_memo.MEMO_NAME]
    assert recall(ask(exe, preset="first"), tmp_path) == "v1"
