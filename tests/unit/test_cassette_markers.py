"""What a recording does with an item's file, and the marker an errored item leaves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.cassettes import Figures, Tape
from pytest_skill_lens.run.cassettes.files import MAX_ERROR
from pytest_skill_lens.run.cassettes.key import KeyPart, part
from pytest_skill_lens.run.cassettes.marker import error_line

KEY = [part("skill", "runner", "SKILL.md", "v1"), part("task", "runner", "the task", "t")]
ITEM = {"skill": "greet", "case": "c"}
ERROR = "cli exited with code 3; stderr ends: boom\nsecond line"


def tape(path: Path, mode: str, key: list[KeyPart] = KEY, today: str = "2026-02-01") -> Tape:
    return Tape(path, mode, key, ITEM, today=today)  # type: ignore[arg-type]


def act(recording: Tape, reply: str = "done") -> None:
    call = recording.open_call("runner", "cli")
    call.begin_attempt()
    call.exchange({"messages": ["task"]}, lambda: {"text": reply})
    call.finish(Figures(cost_usd=0.5))


def errored(path: Path, mode: str = "once", error: str = ERROR, **more: Any) -> Any:
    recording = tape(path, mode, **more)
    act(recording)
    return recording.finish(keep=False, error=error)


def test_an_errored_item_leaves_a_marker_that_replaying_only_reads_as_the_reason(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.json"
    report = errored(path)

    assert report.action == "not_written"
    assert report.note == (
        f"{path}: the case errored (cli exited with code 3; stderr ends: boom); "
        "a marker in its place tells a replay so"
    )
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["calls"] == []
    assert written["not_recorded"] == {
        "reason": "errored",
        "error": "cli exited with code 3; stderr ends: boom",
        "at": "2026-02-01",
    }
    refusal = tape(path, "none").refusal
    assert refusal == (
        "not recorded: the case errored when it was recorded (on 2026-02-01: cli exited with "
        f"code 3; stderr ends: boom), so {path} holds no run to replay (--skill-lens-record "
        "none never calls a model); mend what made it error, then record it with "
        "--skill-lens-record once"
    )
    changed = [KEY[0], part("task", "runner", "the task", "t2")]
    assert "; since then the task changed;" in (tape(path, "none", changed).refusal or "")


def test_once_records_over_a_marker_and_a_second_error_renews_it(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    errored(path)
    errored(path, error="another failure", today="2026-02-02")
    renewed = json.loads(path.read_text(encoding="utf-8"))["not_recorded"]
    assert (renewed["error"], renewed["at"]) == ("another failure", "2026-02-02")

    again = tape(path, "once")
    assert again.refusal is None
    assert not again.open_call("runner", "cli").replaying  # nothing to replay: it records
    again = tape(path, "once")
    act(again, "recorded at last")
    assert again.finish(keep=True).action == "written"
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert "not_recorded" not in stored and len(stored["calls"]) == 1

    kept = tape(path, "once")
    call = kept.open_call("runner", "cli")
    call.begin_attempt()
    assert call.exchange({"messages": ["task"]}, lambda: None) == {"text": "recorded at last"}
    call.finish(Figures())
    before = path.read_bytes()
    assert kept.finish(keep=True).action == "kept"
    assert path.read_bytes() == before


@pytest.mark.parametrize("mode", ["once", "all"])
def test_a_marker_never_replaces_a_recording(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "c.json"
    recording = tape(path, "once")
    act(recording)
    assert recording.finish(keep=True).action == "written"
    before = path.read_bytes()
    stale = [KEY[0], part("task", "runner", "the task", "changed")]

    report = errored(path, mode, key=stale)

    assert path.read_bytes() == before  # a passing failure never destroys a recording
    assert report.action == "not_written"
    assert (report.note or "").endswith("; the cassette recorded before is left as it was")


def test_an_unreadable_file_is_left_as_it_is_too(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text("{broken", encoding="utf-8")
    report = errored(path, "all")
    assert path.read_text(encoding="utf-8") == "{broken"
    assert "left as it was" in (report.note or "")


def test_a_refused_item_writes_no_marker(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "skill"
    root.mkdir()
    (root / "cassettes").symlink_to(elsewhere, target_is_directory=True)
    path = root / "cassettes" / "c.json"
    refused = Tape(path, "once", KEY, ITEM, root=root)
    assert refused.refusal is not None and "symbolic link" in refused.refusal

    report = refused.finish(keep=False, error=refused.refusal)

    assert list(elsewhere.iterdir()) == []
    assert report.action == "not_written"
    assert (report.note or "").startswith(f"{path}: the case errored (cassette refused: ")


def test_replaying_only_writes_and_counts_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    report = tape(path, "none").finish(keep=False, error="no cassette")
    assert (report.action, report.note) == (None, None)
    assert not path.exists()


def test_the_error_line_is_its_first_words_printable_bounded_and_without_credentials() -> None:
    environment = {"MY_SERVICE_API_KEY": "sk-very-secret-1234", "HOME": "/home/someone"}
    line = error_line(
        "\n  \nfailed: key sk-very-secret-1234 refused in /home/someone\x1b[31m\u202e\nmore",
        environment,
    )
    assert line == (
        "failed: key [redacted by skill-lens] refused in /home/someone\\u001b[31m\\u202e"
    )
    long = error_line("x" * 10_000, {})
    assert len(long) == MAX_ERROR and long.endswith("…")
    assert error_line("\n\n", {}) == "no error text"


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda m: m["not_recorded"].update(error="x" * (MAX_ERROR + 1)), "not_recorded.error"),
        (lambda m: m["not_recorded"].update(reason="tired"), "not_recorded.reason"),
        (lambda m: m.update(calls=[{"seat": "runner"}]), "calls.0"),
    ],
)
def test_a_hand_edited_marker_is_held_to_its_shape(tmp_path: Path, edit: Any, said: str) -> None:
    path = tmp_path / "c.json"
    errored(path)
    marker = json.loads(path.read_text(encoding="utf-8"))
    edit(marker)
    path.write_text(json.dumps(marker), encoding="utf-8")

    refusal = tape(path, "none").refusal or ""

    assert refusal.startswith(f"cassette unusable: {path} has the wrong shape: {said}"), refusal


def test_a_marker_with_calls_is_no_marker(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    recording = tape(path, "once")
    act(recording)
    recording.finish(keep=True)
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["not_recorded"] = {"reason": "errored", "error": "x", "at": "2026-02-01"}
    path.write_text(json.dumps(stored), encoding="utf-8")

    refusal = tape(path, "none").refusal or ""

    assert "a not_recorded marker holds no calls" in refusal, refusal
