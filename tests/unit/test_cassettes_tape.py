"""One item's tape: what replays, what records, what is a miss, and what is written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.cassettes import CassetteMiss, Figures, Tape
from pytest_skill_lens.run.cassettes.key import KeyPart, part

KEY = [part("skill", "runner", "SKILL.md", "v1"), part("rubric", "judge", "the judge: block", 1)]
ITEM = {"skill": "greet", "case": "c"}
SPENT = Figures(latency_ms=250.0, cost_usd=0.5, cost_note=None, retry_cost_usd=0.25)
TODAY = "2026-02-01"


def request(*messages: str, tools: tuple[str, ...] = ("lookup",)) -> dict[str, Any]:
    return {"messages": list(messages), "tools": list(tools)}


def tape(path: Path, mode: str, key: list[KeyPart] = KEY, today: str = TODAY) -> Tape:
    return Tape(path, mode, key, ITEM, today=today)  # type: ignore[arg-type]


def answered(reply: str) -> Callable[[], Any]:
    return lambda: {"text": reply}


def never() -> Any:
    raise AssertionError("the model was called")


def record(path: Path, *, key: list[KeyPart] = KEY, judge: bool = True) -> None:
    """One runner call of two requests (costing SPENT), then one judge call."""
    recording = tape(path, "once", key)
    call = recording.open_call("runner", "pydantic-ai")
    call.begin_attempt()
    call.exchange(request("sys", "task"), answered("call lookup"))
    call.exchange(request("sys", "task", "call lookup", "order"), answered("done"))
    assert call.finish(SPENT) is SPENT
    if judge:
        grading = recording.open_call("judge", "pydantic-ai")
        grading.begin_attempt()
        grading.exchange(request("rubric"), answered("verdict"))
        grading.finish(Figures(cost_usd=0.125))
    report = recording.finish(keep=True)
    assert (report.replayed, report.miss, report.note) == (False, None, None)


def replay(
    path: Path, mode: str = "none", *, later: str = "order", key: list[KeyPart] = KEY
) -> Tape:
    replaying = tape(path, mode, key, today="2026-03-01")
    call = replaying.open_call("runner", "pydantic-ai")
    call.begin_attempt()
    assert call.exchange(request("sys", "task"), never) == {"text": "call lookup"}
    assert call.exchange(request("sys", "task", "call lookup", later), never) == {"text": "done"}
    assert call.finish(Figures(latency_ms=1.0)) == SPENT  # the recording's figures
    return replaying


def test_a_recording_keeps_what_was_sent_new_each_time_and_the_options_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.json"
    record(path)

    data = json.loads(path.read_text(encoding="utf-8"))
    runner, judge = data["calls"]
    assert (runner["seat"], runner["by"], runner["recorded_at"]) == ("runner", "pydantic-ai", TODAY)
    assert runner["figures"] == {
        "latency_ms": 250.0,
        "cost_usd": 0.5,
        "cost_note": None,
        "retry_cost_usd": 0.25,
    }
    first, second = runner["exchanges"]
    assert first["sent"] == ["sys", "task"] and first["options"] == {"tools": ["lookup"]}
    assert second["sent"] == ["call lookup", "order"] and second["options"] is None
    assert second["response"] == {"text": "done"}
    assert judge["seat"] == "judge" and judge["figures"]["cost_usd"] == 0.125
    assert data["key"]["skill"] == {"seat": "runner", "what": "SKILL.md", "sha256": KEY[0].sha256}


def test_a_replay_answers_every_request_without_the_model_and_reports_it(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path)
    before = path.read_bytes()

    replaying = replay(path)
    grading = replaying.open_call("judge", "pydantic-ai")
    assert grading.exchange(request("rubric"), never) == {"text": "verdict"}
    assert grading.finish(Figures()) == Figures(cost_usd=0.125)
    report = replaying.finish(keep=True)

    assert report.replayed and report.replayed_calls == 2
    assert report.replayed_usd == 0.5 + 0.25 + 0.125  # the run, its retries, the verdict
    assert report.recorded_at == TODAY and report.miss is None
    assert path.read_bytes() == before  # replaying never writes


def test_only_the_final_attempt_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    recording = tape(path, "all")
    call = recording.open_call("runner", "pydantic-ai")
    call.begin_attempt()
    call.exchange(request("first try"), answered("503"))
    call.begin_attempt()  # a retry: a fresh conversation
    call.exchange(request("sys", "task"), answered("call lookup"))
    call.exchange(request("sys", "task", "call lookup", "order"), answered("done"))
    call.finish(SPENT)
    recording.finish(keep=True)

    replay(path).finish(keep=False)  # replays the final attempt alone


def test_replaying_only_a_request_that_differs_is_a_miss_saying_what_changed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.json"
    record(path, judge=False)
    replaying = tape(path, "none")
    call = replaying.open_call("runner", "pydantic-ai")
    call.exchange(request("sys", "task"), never)

    def explain(before: list[Any], now: list[Any], *_: Any) -> str:
        assert (before, now) == (["call lookup", "order"], ["call lookup", "other order"])
        return "the answer of tool lookup differs"

    with pytest.raises(CassetteMiss) as raised:
        call.exchange(request("sys", "task", "call lookup", "other order"), never, explain)

    assert str(raised.value) == (
        f"cassette miss: {path}: request 2 of the pydantic-ai runner call differs from the "
        "recorded one: the answer of tool lookup differs; re-record it with "
        "--skill-lens-record all"
    )
    assert replaying.close() == str(raised.value)


def test_without_an_explanation_the_differing_options_are_named(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path, judge=False)
    call = tape(path, "none").open_call("runner", "pydantic-ai")
    with pytest.raises(CassetteMiss, match=r"request 1 .*: its tools differ; record it again"):
        call.exchange(request("sys", "task", tools=("lookup", "refund")), never)


def test_once_records_afresh_from_a_differing_first_request(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path, judge=False)
    again = tape(path, "once", today="2026-03-01")
    call = again.open_call("runner", "pydantic-ai")
    call.begin_attempt()

    assert call.exchange(request("sys", "new task"), answered("hi")) == {"text": "hi"}
    call.finish(Figures(latency_ms=5.0, cost_usd=0.01))
    report = again.finish(keep=True)

    assert report.miss is None and not report.replayed and report.replayed_usd == 0
    assert "request 1 of the pydantic-ai runner call differs" in (again.rerecorded or "")
    (stored,) = json.loads(path.read_text(encoding="utf-8"))["calls"]
    assert stored["recorded_at"] == "2026-03-01" and len(stored["exchanges"]) == 1


def test_once_never_mixes_a_half_replayed_conversation_with_live_requests(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path, judge=False)
    before = path.read_bytes()
    again = tape(path, "once")
    call = again.open_call("runner", "pydantic-ai")
    call.exchange(request("sys", "task"), never)

    with pytest.raises(CassetteMiss, match="re-record it with --skill-lens-record all"):
        call.exchange(request("sys", "task", "call lookup", "changed"), never)
    call.finish(Figures(cost_usd=0.5))
    report = again.finish(keep=True)

    assert report.miss is not None and not report.replayed
    assert report.replayed_usd == 0.5  # what it measured came from recorded responses
    assert path.read_bytes() == before  # a miss writes nothing


def test_more_or_fewer_requests_than_recorded_are_misses(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path, judge=False)
    longer = tape(path, "none")
    call = longer.open_call("runner", "pydantic-ai")
    call.exchange(request("sys", "task"), never)
    call.exchange(request("sys", "task", "call lookup", "order"), never)
    with pytest.raises(CassetteMiss, match="request 3 of the pydantic-ai runner call is not in"):
        call.exchange(request("sys", "task", "call lookup", "order", "done", "more"), never)

    shorter = tape(path, "none")
    call = shorter.open_call("runner", "pydantic-ai")
    call.exchange(request("sys", "task"), never)
    call.finish(Figures())
    assert "ended after request 1 of the 2 recorded" in (shorter.close() or "")


def test_a_second_call_under_none_raises_before_any_request(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path, judge=False)
    replaying = tape(path, "none")
    replaying.open_call("runner", "pydantic-ai")
    with pytest.raises(CassetteMiss, match="holds no pydantic-ai runner call #2"):
        replaying.open_call("runner", "pydantic-ai")


def test_another_runners_recording_is_never_replayed(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path, judge=False)
    with pytest.raises(CassetteMiss, match="holds no langchain runner call"):
        tape(path, "none").open_call("runner", "langchain")


def test_fewer_calls_than_recorded_is_a_miss_when_replaying_only(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path)
    replaying = replay(path)  # the judge is never asked
    assert "the run made 0 judge call(s); the cassette holds 1" in (replaying.close() or "")


@pytest.mark.parametrize("mode", ["none", "once"])
def test_a_missing_or_unreadable_file_is_refused_before_the_act(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "c.json"
    missing = tape(path, mode)
    if mode == "none":
        assert missing.refusal is not None and missing.refusal.startswith("no cassette for")
    else:
        assert missing.refusal is None  # once: it records
    path.write_text("{", encoding="utf-8")
    refused = tape(path, mode).refusal
    assert refused is not None
    assert refused.startswith(f"cassette unusable: {path} is not valid JSON")
    assert tape(path, "all").refusal is None  # all never reads the old file


def test_a_stale_runner_part_refuses_replaying_only_and_records_afresh_under_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.json"
    record(path)
    changed = [part("skill", "runner", "SKILL.md", "v2"), KEY[1]]

    refused = tape(path, "none", changed).refusal
    assert refused == (
        f"cassette miss: {path} was recorded for another version of this case: SKILL.md "
        "changed; record it again with --skill-lens-record once (or all)"
    )
    again = tape(path, "once", changed)
    assert again.refusal is None
    assert not again.open_call("runner", "pydantic-ai").replaying
    assert not again.open_call("judge", "pydantic-ai").replaying  # a new run, a new verdict


def test_a_stale_judge_part_under_once_replays_the_run_and_grades_again(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    record(path)
    rubric = [KEY[0], part("rubric", "judge", "the judge: block", 2)]
    assert "the judge: block changed" in (tape(path, "none", rubric).refusal or "")

    again = replay(path, "once", key=rubric)
    grading = again.open_call("judge", "pydantic-ai")
    assert not grading.replaying
    grading.exchange(request("rubric 2"), answered("verdict 2"))
    grading.finish(Figures(cost_usd=0.2))
    report = again.finish(keep=True)

    assert not report.replayed and report.replayed_calls == 1
    assert report.replayed_usd == 0.75
    runner, judge = json.loads(path.read_text(encoding="utf-8"))["calls"]
    assert runner["recorded_at"] == TODAY and judge["recorded_at"] == "2026-03-01"
    assert judge["exchanges"][0]["response"] == {"text": "verdict 2"}


def test_an_errored_item_or_a_closed_tape_records_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    recording = tape(path, "once")
    call = recording.open_call("runner", "pydantic-ai")
    call.exchange(request("a"), answered("b"))
    call.finish(SPENT)
    assert recording.finish(keep=False).miss is None
    assert not path.exists()

    late = tape(path, "once")
    abandoned = late.open_call("runner", "pydantic-ai")
    late.close()  # the act's deadline passed
    with pytest.raises(CassetteMiss, match="cassette is closed"):
        abandoned.exchange(request("a"), answered("b"))
