"""``--skill-lens-reuse DIR`` end to end: outcomes reused by content (docs/reuse.md).

A real git repository, a real PydanticAI agent against a scripted model server on
127.0.0.1 that counts every request: ``main`` runs and records into the store; a pull
request changes the skill and runs with ``--skill-lens-baseline previous`` and the same
store, so its candidate runs fresh and its ``previous`` arm (main's candidate, the same
content) is served from the store with no model request at all.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from git_repo import commit, git

pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

from model_server import ScriptedModelServer, text
from runs import LensRun, served_by
from skillfactory import make_skill, write_file

# slow: a real PydanticAI agent against a local server, and git
pytestmark = [
    pytest.mark.slow,
    pytest.mark.usefixtures("openai_key"),
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
]

lens = LensRun(runner="pydantic-ai", json="report.json", markdown="report.md", junit="junit.xml")
CASES = [
    {"name": "refund", "task": "refund 1234", "assertions": [{"kind": "contains", "value": "no"}]},
    {"name": "greet", "task": "say hello", "assertions": [{"kind": "contains", "value": "hello"}]},
]
SCRIPT = {"refund 1234": [text("no refund, sorry")], "say hello": [text("hello there")]}


def skill(root: Path, body: str) -> None:
    make_skill(root / "skills", "orders", CASES, body=body)


def main_branch(pytester: pytest.Pytester) -> str:
    """A repository whose ``main`` holds skill ``orders``; its commit."""
    git(pytester.path, "init", "-q", "-b", "main")
    write_file(pytester.path / ".gitignore", "/report.*\n/junit.xml\n/store/\n__pycache__/\n")
    write_file(pytester.path / "skill-lens.toml", "retry_backoff_seconds = 0.0\n")
    skill(pytester.path, "Answer briefly.\n")
    return commit(pytester.path, "main")


def run(pytester: pytest.Pytester, server: ScriptedModelServer, *args: str) -> Any:
    server.script.update({task: list(replies) for task, replies in SCRIPT.items()})
    return lens(pytester, *served_by(server.url), "--skill-lens-reuse", "store", *args)


def by_arm(pytester: pytest.Pytester) -> dict[tuple[str, str], dict[str, Any]]:
    return {(o["arm"], o["case_name"]): o for o in lens.report(pytester).outcomes}


def test_a_pull_request_s_previous_arm_is_main_s_candidate_at_no_model_call(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    main = main_branch(pytester)
    result = run(pytester, server)
    assert result.ret == 0
    assert len(server.requests) == 2  # main pays for its two cases once
    recorded = by_arm(pytester)
    assert [o["reused_from"] for o in recorded.values()] == [None, None]
    assert list((pytester.path / "store").iterdir())  # the store holds them now

    git(pytester.path, "checkout", "-q", "-b", "pr")
    skill(pytester.path, "Answer briefly and kindly.\n")
    commit(pytester.path, "pr: kinder")
    result = run(pytester, server, "--skill-lens-baseline", "previous", "-v")

    assert result.ret == 0
    # Only the changed candidate asked the model: two more requests, none for previous.
    assert len(server.requests) == 4
    outcomes = by_arm(pytester)
    for case in ("refund", "greet"):
        fresh, reused = outcomes["candidate", case], outcomes["baseline", case]
        assert fresh["reused_from"] is None and fresh["replayed"] is False
        assert "SKILL.md changed" in fresh["reuse_note"]
        assert reused["replayed"] is True and reused["status"] == "passed"
        origin = reused["reused_from"]
        assert origin["commit"] == main
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", origin["recorded_at"])
        assert origin["item"] == {
            "skill": "orders",
            "case": case,
            "runner": "pydantic-ai",
            "arm": "candidate",
            "repeat": 1,
        }
        assert reused["output"] == recorded["candidate", case]["output"]
    report = lens.report(pytester)
    assert report["summary"]["reuse"]["reused"] == 2
    assert report["summary"]["reuse"]["oldest_recorded_at"] == min(
        o["reused_from"]["recorded_at"] for o in outcomes.values() if o["reused_from"]
    )
    result.stdout.fnmatch_lines(
        [f"*Reused: 2 of 4 outcome(s) from the reuse store, recorded at commit {main[:8]}*"]
    )
    result.stdout.fnmatch_lines(["*greet*baseline*(reused)*"])
    # The savings block counts them apart from cassette replays, at their recorded cost.
    not_spent = report["summary"]["not_spent"]
    assert (not_spent["runs_made"], not_spent["replayed"], not_spent["reused"]) == (2, 0, 2)
    assert not_spent["reused_commits"] == [main]
    assert not_spent["reused_usd"] == pytest.approx(
        sum(recorded["candidate", case]["cost_usd"] for case in ("refund", "greet"))
    )
    result.stdout.fnmatch_lines(
        [f"*2 outcome(s) reused from the store (recorded at commit {main[:8]} on *): $*"]
    )
    markdown = (pytester.path / "report.md").read_text()
    assert f"- 2 outcome(s) reused from the store (recorded at commit {main[:8]}" in markdown
    assert (
        f"Reused: 2 of 4 outcome(s) from the reuse store, recorded at commit {main[:8]}" in markdown
    )
    junit = ET.parse(pytester.path / "junit.xml").getroot()
    properties = {
        (case.get("name"), p.get("name")): p.get("value")
        for case in junit.iter("testcase")
        for p in case.iter("property")
    }
    reused_props = [v for (_, name), v in properties.items() if name == "reused_from"]
    assert len(reused_props) == 2 and all(main[:8] in str(v) for v in reused_props)


def test_a_changed_runner_setting_is_a_miss_naming_it(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    main_branch(pytester)
    assert run(pytester, server).ret == 0
    before = len(server.requests)

    write_file(
        pytester.path / "skill-lens.toml", "retry_backoff_seconds = 0.0\ntemperature = 0.5\n"
    )
    result = run(pytester, server)

    assert result.ret == 0
    assert len(server.requests) == before + 2  # nothing reused: the setting changed
    for outcome in lens.report(pytester).outcomes:
        assert outcome["reused_from"] is None
        assert (
            "the runner's settings (runner, model, endpoint, ...) changed"
            in (outcome["reuse_note"])
        )
    # Run again as it is now: reused, no request.
    assert run(pytester, server).ret == 0
    assert len(server.requests) == before + 2


def test_a_corrupt_or_linked_store_entry_errors_the_item_naming_it(
    pytester: pytest.Pytester, server: ScriptedModelServer, tmp_path: Path
) -> None:
    main_branch(pytester)
    assert run(pytester, server).ret == 0
    entries = sorted((pytester.path / "store" / "outcomes").rglob("*.json"))
    assert len(entries) == 2
    broken, linked = entries
    broken.write_text('{"cassette": 1, "calls": [')
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(linked.read_bytes())
    linked.unlink()
    linked.symlink_to(elsewhere)
    before = len(server.requests)

    result = run(pytester, server)

    assert result.ret != 0  # errored, never a false green
    assert len(server.requests) == before  # nothing sent for either
    errors = {o["status"]: o["error"] for o in lens.report(pytester).outcomes}
    assert set(errors) == {"errored"}
    messages = [o["error"] for o in lens.report(pytester).outcomes]
    assert any(str(broken) in m and "not valid JSON" in m for m in messages)
    assert any(str(linked) in m and "symbolic link" in m for m in messages)
    assert json.loads(elsewhere.read_text())  # the link's target was not written through


def test_xdist_records_and_the_concurrency_pool_reuses_each_repeat_its_own(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    main_branch(pytester)
    server.script.update({task: list(replies) for task, replies in SCRIPT.items()})
    argv = (*served_by(server.url), "--skill-lens-reuse", "store", "--skill-lens-repeat", "3")
    in_processes = replace(lens, subprocess=True)
    assert in_processes(pytester, *argv, "-n", "2", "-p", "no:cacheprovider").ret == 0
    assert len(server.requests) == 6  # two cases, three repeats: each recorded once
    entries = list((pytester.path / "store" / "outcomes").glob("*.json"))
    assert len(entries) == 6  # the repeat index is content: one entry each

    assert lens(pytester, *argv, "--skill-lens-concurrency", "3").ret == 0

    assert len(server.requests) == 6
    outcomes = lens.report(pytester).outcomes
    assert len(outcomes) == 6
    for outcome in outcomes:
        assert outcome["reused_from"]["item"]["repeat"] == outcome["repeat_index"] + 1
        assert outcome["reused_from"]["item"]["case"] == outcome["case_name"]


def test_reuse_beside_record_is_refused_before_anything_runs(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    main_branch(pytester)
    write_file(pytester.path / "skill-lens.toml", 'reuse = "store"\nrecord = "once"\n')

    result = lens(pytester, *served_by(server.url))

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        ["*reuse in skill-lens.toml and record in skill-lens.toml both choose where*"]
    )
    assert server.requests == [] and not (pytester.path / "store").exists()


def test_the_toml_key_is_read_against_its_file_s_directory(
    pytester: pytest.Pytester, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    main_branch(pytester)
    write_file(pytester.path / "skill-lens.toml", 'retry_backoff_seconds = 0.0\nreuse = "cache"\n')
    server.script.update({task: list(replies) for task, replies in SCRIPT.items()})
    below = pytester.path / "below"
    below.mkdir()
    monkeypatch.chdir(below)  # started below the file: the store is still beside it
    skills = str(pytester.path / "skills")

    result = replace(lens, skills=skills)(pytester, *served_by(server.url))

    assert result.ret == 0
    assert len(list((pytester.path / "cache" / "outcomes").glob("*.json"))) == 2
    assert not (below / "cache").exists()
