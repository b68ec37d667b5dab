"""A cassette is input: read and written under its directory never through a link, and
held on replay to the bounds recording applies (size, nesting, values, calls, and a
product start's trace, files and workspace entries)."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.cassettes import files, product, workspace_changes
from pytest_skill_lens.run.cassettes.files import (
    CassetteError,
    CassetteFile,
    LinkRefused,
    cassette_root,
    check_place,
    parse_cassette,
    read_cassette,
    render,
    write_cassette,
)
from pytest_skill_lens.run.cassettes.product import capture_from
from pytest_skill_lens.run.cassettes.seat_call import CassetteMiss
from pytest_skill_lens.run.cassettes.tape import Tape
from pytest_skill_lens.run.products import copilot
from pytest_skill_lens.run.tools.bridge_calls import MAX_READ_BYTES


def call(exchanges: int = 1, response: Any = None) -> dict[str, Any]:
    return {
        "seat": "runner",
        "by": "cli",
        "recorded_at": "2026-01-31",
        "figures": {"cost_usd": 0.0},
        "exchanges": [{"request_sha256": "b" * 64, "sent": [], "response": response or {}}]
        * exchanges,
    }


def cassette(calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"cassette": 1, "item": {}, "key": {}, "calls": calls if calls is not None else [call()]}


def stored(data: dict[str, Any]) -> CassetteFile:
    return CassetteFile.model_validate(data)


# --- never through a link -----------------------------------------------------------------


def place(tmp_path: Path) -> tuple[Path, Path]:
    """A skill directory (the trusted root) and a cassette path below it."""
    root = tmp_path / "skill"
    root.mkdir()
    return root, root / "evals" / "cassettes" / "greet" / "c.cli.json"


def test_a_cassette_under_a_linked_directory_is_neither_read_nor_written(tmp_path: Path) -> None:
    root, path = place(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "greet").mkdir(parents=True)
    (elsewhere / "greet" / "c.cli.json").write_text(render(stored(cassette())))
    (root / "evals").mkdir()
    (root / "evals" / "cassettes").symlink_to(elsewhere, target_is_directory=True)
    linked = str(root / "evals" / "cassettes")
    with pytest.raises(LinkRefused, match=f"{linked} is a symbolic link"):
        read_cassette(path, root)
    with pytest.raises(LinkRefused, match=f"{linked} is a symbolic link"):
        check_place(path, root)
    with pytest.raises(LinkRefused, match="symbolic link"):
        write_cassette(path, stored(cassette(calls=[])), root)
    assert json.loads((elsewhere / "greet" / "c.cli.json").read_text())["calls"] != []
    assert sorted(p.name for p in elsewhere.rglob("*")) == ["c.cli.json", "greet"]


def test_a_linked_evals_directory_is_refused_too(tmp_path: Path) -> None:
    root, path = place(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "evals").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(LinkRefused, match=f"{root / 'evals'} is a symbolic link"):
        check_place(path, root)
    with pytest.raises(LinkRefused):
        write_cassette(path, stored(cassette()), root)
    assert list(elsewhere.iterdir()) == []


def test_a_linked_cassette_file_is_refused_and_never_replaced(tmp_path: Path) -> None:
    root, path = place(tmp_path)
    path.parent.mkdir(parents=True)
    outside = tmp_path / "outside.json"
    outside.write_text(render(stored(cassette())))
    path.symlink_to(outside)
    with pytest.raises(LinkRefused, match=f"{path} is a symbolic link"):
        read_cassette(path, root)
    with pytest.raises(LinkRefused):
        write_cassette(path, stored(cassette(calls=[])), root)
    assert path.is_symlink() and "pydantic" not in outside.read_text()
    assert json.loads(outside.read_text())["calls"] != []


def test_the_root_itself_may_be_a_link_the_user_made(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    root = tmp_path / "named"
    root.symlink_to(real, target_is_directory=True)  # --skill-lens-cassettes DIR: yours
    path = root / "greet" / "c.cli.json"
    assert read_cassette(path, root) is None
    check_place(path, root)
    write_cassette(path, stored(cassette()), root)
    assert (real / "greet" / "c.cli.json").is_file()
    assert read_cassette(path, root) == stored(cassette())


def test_a_hard_linked_cassette_is_refused(tmp_path: Path) -> None:
    root, path = place(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(render(stored(cassette())))
    os.link(path, tmp_path / "other.json")
    with pytest.raises(CassetteError, match="hard links"):
        read_cassette(path, root)


def test_a_tape_under_a_linked_directory_refuses_the_act_in_every_mode(tmp_path: Path) -> None:
    root, path = place(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "evals").mkdir()
    (root / "evals" / "cassettes").symlink_to(elsewhere, target_is_directory=True)
    for mode in ("none", "once", "all"):
        tape = Tape(path, mode, [], {}, root=root)
        assert tape.refusal is not None and "cassette refused" in tape.refusal
        assert str(root / "evals" / "cassettes") in tape.refusal
    assert list(elsewhere.iterdir()) == []


# --- the file's bounds, before and after parsing -----------------------------------------------


def test_a_file_that_grows_past_the_cap_after_its_stat_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b"x" * 100)
    monkeypatch.setattr(files, "MAX_BYTES", 50)
    with pytest.raises(CassetteError, match="more than a cassette may be"):
        read_cassette(path)


def test_nesting_deeper_than_a_cassette_may_be_is_refused_before_it_is_parsed() -> None:
    deep: Any = "leaf"
    for _ in range(files.MAX_DEPTH + 1):
        deep = [deep]
    data = cassette([call(response={"deep": deep})])
    with pytest.raises(CassetteError, match=f"nested more than {files.MAX_DEPTH} levels"):
        parse_cassette(json.dumps(data).encode(), Path("c.json"))
    # Brackets inside strings are text, not nesting.
    text = cassette([call(response={"text": "[" * 10_000})])
    assert parse_cassette(json.dumps(text).encode(), Path("c.json")).calls


def test_more_values_than_a_cassette_may_hold_are_refused_before_they_are_parsed() -> None:
    data = cassette([call(response={"many": [0] * (files.MAX_VALUES + 1)})])
    with pytest.raises(CassetteError, match=f"more than {files.MAX_VALUES:,} JSON values"):
        parse_cassette(json.dumps(data).encode(), Path("c.json"))
    # Commas inside strings are no values.
    text = cassette([call(response={"text": "," * (files.MAX_VALUES + 1)})])
    assert parse_cassette(json.dumps(text).encode(), Path("c.json")).calls


def test_more_calls_or_exchanges_than_a_cassette_may_hold_are_refused() -> None:
    data = cassette([call()] * (files.MAX_CALLS + 1))
    with pytest.raises(CassetteError, match=f"calls: List should have at most {files.MAX_CALLS}"):
        parse_cassette(json.dumps(data).encode(), Path("c.json"))
    data = cassette([call(exchanges=files.MAX_EXCHANGES + 1)])
    with pytest.raises(CassetteError, match=f"at most {files.MAX_EXCHANGES} items"):
        parse_cassette(json.dumps(data).encode(), Path("c.json"))


def test_recording_never_writes_what_replay_would_refuse(tmp_path: Path) -> None:
    deep: Any = 0
    for _ in range(files.MAX_DEPTH + 1):
        deep = {"a": deep}
    path = tmp_path / "c.json"
    with pytest.raises(ValueError, match="nested more than"):
        write_cassette(path, stored(cassette([call(response=deep)])))
    assert not path.exists()
    with pytest.raises(ValueError, match="calls"):
        stored(cassette([call()] * (files.MAX_CALLS + 1)))


# --- a product start's bounds ------------------------------------------------------------------


def start(**more: Any) -> dict[str, Any]:
    return {"stdout": {"lines": ["done"]}, "exit_code": 0, "cut": False, "stderr": "", **more}


def refused(record: dict[str, Any], *said: str) -> str:
    with pytest.raises(CassetteMiss) as caught:
        capture_from(record)
    message = str(caught.value)
    for phrase in said:
        assert phrase in message, message
    return message


def test_a_start_holding_more_workspace_entries_than_recording_keeps_is_refused() -> None:
    many = [{"path": f"f{n}.txt", "text": "x"} for n in range(workspace_changes.MAX_ENTRIES + 1)]
    refused(start(workspace=many), "201 workspace entries", "(200)")
    assert len(capture_from(start(workspace=many[:-1])).changes) == 200


def test_a_start_holding_a_file_larger_than_recording_keeps_is_refused() -> None:
    limit = workspace_changes.MAX_FILE_BYTES
    refused(start(workspace=[{"path": "big.txt", "text": "é" * (limit // 2 + 1)}]), "'big.txt'")
    capture_from(start(workspace=[{"path": "big.txt", "text": "x" * limit}]))
    binary = base64.b64encode(b"\xff" * (workspace_changes.MAX_BINARY_BYTES + 1)).decode()
    refused(start(workspace=[{"path": "b.bin", "base64": binary}]), "'b.bin'", "65,536")


def test_a_start_whose_files_come_to_more_than_recording_keeps_is_refused() -> None:
    part = "y" * 900_000
    many = [{"path": f"p{n}.txt", "text": part} for n in range(10)]
    refused(start(workspace=many), "8,388,608 bytes")


def test_a_start_naming_one_path_twice_is_refused() -> None:
    twice = [{"path": "a.txt", "text": "1"}, {"path": "a.txt", "deleted": True}]
    refused(start(workspace=twice), "'a.txt' twice")


def test_a_start_whose_trace_or_files_are_longer_than_recording_keeps_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refused(start(stderr="e" * (product.STDERR_KEPT + 1)), "stderr", "2,000")
    monkeypatch.setattr(product, "MAX_STREAM_BYTES", 10)
    refused(start(stdout={"lines": ["x" * 11]}), "stdout", "10")
    refused(start(left={"lines": ["x" * (product.MAX_LEFT_BYTES + 1)]}), "left")


def test_the_caps_are_the_ones_the_readers_apply() -> None:
    assert product.MAX_LEFT_BYTES == copilot.MAX_USAGE_BYTES
    assert product.MAX_CALLS_BYTES == MAX_READ_BYTES


def test_the_root_is_the_named_directory_else_the_skill_holding_the_evals(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "greet"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greet\n---\n")
    default = skill / "evals" / "cassettes" / "greet" / "c.cli.json"
    assert cassette_root(default, named=False) == skill  # so a linked evals/ is refused too
    beside = skill / "cassettes" / "greet" / "c.cli.json"  # *.eval.yaml beside SKILL.md
    assert cassette_root(beside, named=False) == skill
    own = tmp_path / "mine" / "cassettes" / "greet" / "c.cli.json"  # --skill-lens-evals mine/
    assert cassette_root(own, named=False) == tmp_path / "mine"
    named = tmp_path / "recorded" / "greet" / "c.cli.json"
    assert cassette_root(named, named=True) == tmp_path / "recorded"


# --- a workspace change dropped (or added, or changed) by hand ----------------------------------


def test_workspace_changes_edited_by_hand_are_a_miss_never_a_replay() -> None:
    changes = ({"path": "out.txt", "text": "hello"}, {"path": "gone.txt", "deleted": True})
    record = product.capture_record(product.Capture(b"done", 0, False, "", changes=changes))
    assert capture_from(record).changes == changes  # as recorded: replayed
    for edited in (changes[:1], (*changes, {"path": "new.txt", "text": "x"}), ()):
        message = refused({**record, "workspace": list(edited)}, "workspace")
        assert "edited since it was recorded" in message
    # A cassette recorded before the seal reads as it is; a start with no changes has none.
    unsealed = {k: v for k, v in record.items() if k != "workspace_sha256"}
    assert capture_from(unsealed).changes == changes
    assert "workspace_sha256" not in product.capture_record(product.Capture(b"", 0, False, ""))
