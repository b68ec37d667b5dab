"""Cassettes as hostile input: a hand-edited product cassette past recording's bounds, and
a skill that ships its cassettes directory (or one cassette) as a link out of itself.

The product is the ``cli`` runner's small shell script, run off the product sandbox so it
can log each start outside its directory; nothing here reaches a network. A recording is
made with ``--skill-lens-record once``, edited by hand as an attacker would, and replayed
with ``--skill-lens-record none``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from product_harness import by_case, run_skill
from skillfactory import write_file

# slow: each test starts a real (small) product process and several inner runs
pytestmark = pytest.mark.slow

AGENT = """\
#!/bin/sh
printf 'started\\n' >> {log}
printf 'answer to: %s\\n' "$1" > answer.txt
printf 'got: %s\\n' "$1"
"""
CASE: dict[str, Any] = {
    "name": "answers",
    "task": "say hi",
    "workspace": {"files": {"seed.txt": "seeded\n"}},
    "assertions": [
        {"kind": "contains", "value": "got: say hi"},
        {"kind": "contains", "file": "answer.txt", "value": "answer to: say hi"},
    ],
}
SKILL = "orders"


class Agent:
    """The ``cli`` product: a shell script that logs every start to ``log``."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.log = pytester.path / "started.log"
        script = write_file(pytester.path / "agent.sh", AGENT.format(log=self.log))
        script.chmod(0o755)
        self.toml = (
            f'product_sandbox = "off"\n[runners.cli]\ncommand = ["{script}", "{{prompt}}"]\n'
        )

    def run(self, mode: str, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
        """The one case under ``mode``: the result and its outcome."""
        result, report = run_skill(
            self.pytester,
            "cli",
            [CASE],
            "--skill-lens-record",
            mode,
            *args,
            skill=SKILL,
            toml=self.toml,
        )
        return result, by_case(report)["answers"]

    def starts(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0

    @property
    def evals(self) -> Path:
        return self.pytester.path / "skills" / SKILL / "evals"

    def cassettes(self) -> list[Path]:
        return sorted((self.evals / "cassettes").rglob("*.json"))


@pytest.fixture
def agent(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> Agent:
    # The inner runs' workspaces go under a directory of this test's own, so a kept one
    # (--skill-lens-keep-workspace, never swept by a later run) does not outlive it.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("workspaces")))
    return Agent(pytester)


def recorded(agent: Agent) -> Path:
    result, outcome = agent.run("once")
    assert result.ret == 0, result.stdout.str()
    assert outcome["status"] == "passed" and agent.starts() == 1
    (path,) = agent.cassettes()
    return path


def edit_start(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """The cassette's one recorded start edited by ``edit``, written back."""
    cassette = json.loads(path.read_text(encoding="utf-8"))
    edit(cassette["calls"][0]["exchanges"][0]["response"])
    path.write_text(json.dumps(cassette), encoding="utf-8")


def refused(result: pytest.RunResult, outcome: dict[str, Any], path: Path, *said: str) -> None:
    """The case errored naming the cassette and every phrase of ``said``; never replayed."""
    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(errors=1)
    assert outcome["status"] == "errored" and outcome["replayed"] is False
    error = outcome["error"]
    assert str(path) in error, error
    for phrase in said:
        assert phrase in error, error


def kept_entries(outcome: dict[str, Any]) -> set[str]:
    """Every entry of the outcome's kept workspace, '/'-joined."""
    root = Path(outcome["workspace"])
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


# --- item 6: replay holds a product cassette to recording's bounds ---------------------------


def test_a_cassette_with_more_workspace_entries_than_recording_keeps_is_refused_unmade(
    agent: Agent,
) -> None:
    path = recorded(agent)

    def flood(start: dict[str, Any]) -> None:
        start["workspace"] = [{"path": f"flood/{n}.txt", "text": "x"} for n in range(50_001)]

    edit_start(path, flood)
    result, outcome = agent.run("none", "--skill-lens-keep-workspace")
    refused(result, outcome, path, "50,001 workspace entries", "200")
    assert not any(entry.startswith("flood") for entry in kept_entries(outcome))
    assert agent.starts() == 1  # replaying started nothing


def test_a_cassette_with_a_file_larger_than_recording_keeps_is_refused_unmade(
    agent: Agent,
) -> None:
    path = recorded(agent)

    def big(start: dict[str, Any]) -> None:
        start["workspace"] = [
            {"path": "answer.txt", "text": "answer to: say hi\n"},
            {"path": "big.txt", "text": "x" * 20_000_000},
        ]

    edit_start(path, big)
    result, outcome = agent.run("none", "--skill-lens-keep-workspace")
    refused(result, outcome, path, "'big.txt'", "20,000,000 bytes", "1,000,000")
    entries = kept_entries(outcome)
    assert "big.txt" not in entries and "answer.txt" not in entries
    assert entries >= {"seed.txt"}  # the case's own seed is there: the workspace was made


def test_a_cassette_whose_files_come_to_more_than_recording_keeps_is_refused(
    agent: Agent,
) -> None:
    path = recorded(agent)

    def many(start: dict[str, Any]) -> None:  # each under the per-file cap, 9 MB in all
        start["workspace"] = [{"path": f"part{n}.txt", "text": "y" * 900_000} for n in range(10)]

    edit_start(path, many)
    result, outcome = agent.run("none", "--skill-lens-keep-workspace")
    refused(result, outcome, path, "8,388,608 bytes")
    assert not any(entry.startswith("part") for entry in kept_entries(outcome))


def test_a_cassette_trace_longer_than_recording_keeps_is_refused(agent: Agent) -> None:
    path = recorded(agent)

    def long_stderr(start: dict[str, Any]) -> None:
        start["stderr"] = "e" * 50_000

    edit_start(path, long_stderr)
    result, outcome = agent.run("none")
    refused(result, outcome, path, "stderr", "2,000")


# --- item 7: never through a link the skill ships --------------------------------------------


def test_a_linked_cassettes_directory_is_never_written_through(
    agent: Agent, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    agent.run("once")  # writes the skill; this first recording is thrown away
    shutil.rmtree(agent.evals / "cassettes")
    agent.log.unlink()
    link = agent.evals / "cassettes"
    link.symlink_to(elsewhere, target_is_directory=True)

    for mode in ("once", "all"):
        result, outcome = agent.run(mode)
        refused(result, outcome, link, "symbolic link")
        assert list(elsewhere.rglob("*")) == []  # nothing written there
        assert agent.starts() == 0  # refused before the product started


def test_a_linked_cassettes_directory_is_never_read_through(
    agent: Agent, tmp_path_factory: pytest.TempPathFactory
) -> None:
    recorded(agent)
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "cassettes"
    shutil.move(agent.evals / "cassettes", elsewhere)
    link = agent.evals / "cassettes"
    link.symlink_to(elsewhere, target_is_directory=True)

    result, outcome = agent.run("none")
    refused(result, outcome, link, "symbolic link")
    assert agent.starts() == 1


def test_a_linked_cassette_file_is_never_read_or_replaced(
    agent: Agent, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = recorded(agent)
    outside = tmp_path_factory.mktemp("elsewhere") / "cassette.json"
    shutil.move(path, outside)
    before = outside.read_bytes()
    path.symlink_to(outside)

    result, outcome = agent.run("none")
    refused(result, outcome, path, "symbolic link")
    result, outcome = agent.run("all")
    refused(result, outcome, path, "symbolic link")
    assert path.is_symlink() and outside.read_bytes() == before
    assert agent.starts() == 1
