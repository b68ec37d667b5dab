"""The reuse store (run/cassettes/store.py) and what the reports say of reuse (docs/reuse.md).

The store's end-to-end behaviour (a pull request's previous arm served from main's
recording, misses naming what changed) is tested in tests/plugin/test_reuse_e2e.py;
here: the key leaves the arm out, hostile item files are refused naming the file,
and every report reads back and says what it must.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.gate.fingerprint import settings_digests
from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.html import render_html
from pytest_skill_lens.report.html.page import SCRIPT_PARTS, asset
from pytest_skill_lens.report.json_read import ReportError, read_report
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.report.junit_properties import case_properties
from pytest_skill_lens.report.markdown import render_markdown
from pytest_skill_lens.report.reuse_lines import ReuseShare
from pytest_skill_lens.run.cassettes.key import part
from pytest_skill_lens.run.cassettes.store import StoreTape, key_digest

COMMIT = "0123456789abcdef0123456789abcdef01234567"
ORIGIN: dict[str, Any] = {
    "commit": COMMIT,
    "recorded_at": "2026-12-05T03:40:12Z",
    "item": {"skill": "s", "case": "c", "runner": "pydantic-ai", "arm": "candidate", "repeat": 1},
    "entry": "ab" * 32,
}
KEY = [part("skill", "runner", "SKILL.md", "text"), part("repeat", "runner", "the repeat", 0)]


def _item(arm: str = "baseline") -> dict[str, Any]:
    return {"skill": "s", "case": "c", "runner": "pydantic-ai", "arm": arm, "repeat": 1}


def _record() -> RunRecord:
    return RunRecord(
        outcomes=[
            Outcome("s", "c", "pydantic-ai", "passed", arm="baseline", replayed=True,
                    replayed_calls=1, reused_from=dict(ORIGIN)),
            Outcome("s", "c", "pydantic-ai", "failed", reuse_note="recorded ... SKILL.md changed"),
        ]
    )  # fmt: skip


def test_the_key_digest_is_the_content_alone() -> None:
    assert key_digest(KEY) == key_digest(list(reversed(KEY)))  # a part's order aside
    other = [part("skill", "runner", "SKILL.md", "other text"), KEY[1]]
    assert key_digest(other) != key_digest(KEY)


def test_an_item_of_another_arm_finds_the_entry_of_the_same_content(tmp_path: Path) -> None:
    candidate = StoreTape(tmp_path, KEY, _item("candidate"))
    assert candidate.found is None and candidate.refusal is None
    assert candidate.note == "not in the reuse store: this item was never recorded there"
    baseline = StoreTape(tmp_path, KEY, _item("baseline"))
    assert baseline.path == candidate.path  # the arm is no part of where it is found


def test_a_hostile_item_file_errors_the_item_naming_it(tmp_path: Path) -> None:
    tape = StoreTape(tmp_path, KEY, _item())
    items = tmp_path / "items" / "s"
    items.mkdir(parents=True)
    (item_file,) = [items / Path(tape._item_path()).name]
    item_file.write_text("[" * 200 + "]" * 200)
    refused = StoreTape(tmp_path, KEY, _item())
    assert refused.refusal is not None
    assert str(item_file) in refused.refusal and "nested more than 100" in refused.refusal
    item_file.unlink()
    (tmp_path / "elsewhere.json").write_text("{}")
    item_file.symlink_to(tmp_path / "elsewhere.json")
    linked = StoreTape(tmp_path, KEY, _item())
    assert linked.refusal is not None and "symbolic link" in linked.refusal
    item_file.unlink()
    item_file.write_text(" " * (1024 * 1024 + 1))  # past an item file's bound, never parsed
    large = StoreTape(tmp_path, KEY, _item())
    assert large.refusal is not None and "1,048,577 bytes" in large.refusal


def test_an_entry_of_the_wrong_shape_is_refused_naming_it(tmp_path: Path) -> None:
    tape = StoreTape(tmp_path, KEY, _item())
    tape.path.parent.mkdir(parents=True)
    tape.path.write_text(json.dumps({"cassette": 1, "item": {}, "key": {}, "calls": "x"}))
    refused = StoreTape(tmp_path, KEY, _item())
    assert refused.refusal is not None and str(tape.path) in refused.refusal
    assert "wrong shape" in refused.refusal and refused.refusal.endswith(
        "delete it and run the item again: it is then added afresh"
    )


def test_an_entry_naming_no_item_it_could_come_from_is_refused(tmp_path: Path) -> None:
    tape = StoreTape(tmp_path, KEY, _item())
    stored = {"cassette": 1, "item": {"skill": ["x"]}, "key": {}, "calls": []}
    stored["key"] = {p.name: {"seat": p.seat, "what": p.what, "sha256": p.sha256} for p in KEY}
    tape.path.parent.mkdir(parents=True)
    tape.path.write_text(json.dumps(stored))
    refused = StoreTape(tmp_path, KEY, _item())
    assert refused.refusal is not None and str(tape.path) in refused.refusal
    assert "item: skill" in refused.refusal
    stored["item"] = _item("candidate")
    tape.path.write_text(json.dumps(stored))
    found = StoreTape(tmp_path, KEY, _item())
    assert found.refusal is None and found.reused_from() == {
        "commit": None,
        "recorded_at": None,
        "item": _item("candidate"),
        "entry": key_digest(KEY),
    }


def test_the_json_report_reads_back_what_reuse_said() -> None:
    record = _record()
    again = read_report(render_json(record, GateResult(True, 0)))
    assert [o.reused_from for o in again.outcomes] == [ORIGIN, None]
    assert [o.reuse_note for o in again.outcomes] == [None, "recorded ... SKILL.md changed"]
    data = json.loads(render_json(record, GateResult(True, 0)))
    assert data["summary"]["reuse"] == {
        "reused": 1,
        "not_reused": 1,
        "of": 2,
        "oldest_recorded_at": "2026-12-05T03:40:12Z",
        "commits": [COMMIT],
        "note": "reused outcomes: the gate counts each as a fresh one; none of their spend is new",
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [("commit", 7), ("entry", None), ("item", "c"), ("recorded_at", ["x"])],
)
def test_a_report_whose_reused_from_is_malformed_is_refused(field: str, value: object) -> None:
    data = json.loads(render_json(_record(), GateResult(True, 0)))
    data["outcomes"][0]["reused_from"][field] = value
    with pytest.raises(ReportError, match="reused_from"):
        read_report(json.dumps(data))


def test_every_report_says_reused_and_from_when() -> None:
    record = _record()
    lines = ReuseShare.of(record).lines(2)
    assert lines[0].startswith(
        "Reused: 1 of 2 outcome(s) from the reuse store, recorded at commit 01234567 on "
        "2026-12-05 03:40:12 UTC"
    )
    assert lines[1].startswith("Not reused: 1 outcome(s) ran and were added to the store")
    markdown = render_markdown(record, GateResult(True, 0))
    assert "Reused: 1 of 2 outcome(s)" in markdown
    props = dict(case_properties(record.outcomes[0]))
    assert props["reused_from"] == "at commit 01234567 on 2026-12-05 03:40:12 UTC"
    assert str(dict(case_properties(record.outcomes[1]))["not_reused"]).endswith("SKILL.md changed")
    # The page reads only fields the JSON report writes.
    script = "\n".join(asset(name) for name in SCRIPT_PARTS)
    data = json.loads(render_json(record, GateResult(True, 0)))
    assert set(re.findall(r"\bo\.(reuse\w*)", script)) == {"reused_from", "reuse_note"}
    assert set(re.findall(r"\breuse\.(\w+)", script)) <= data["summary"]["reuse"].keys()
    assert "reused" in render_html(data)


def test_where_a_shard_keeps_its_store_is_machine_local() -> None:
    # Shards on other machines may restore the store elsewhere: merge must not refuse them.
    here = settings_digests({"reuse": "/runner/a/.store", "model": "m"})
    there = settings_digests({"reuse": "/runner/b/.store", "model": "m"})
    assert here == there and "model" in here
