"""What a recording run says of its cassettes, and what a replay says of one it cannot use.

A recording run (``--skill-lens-record once`` or ``all``) ends by counting its
cassettes (written, kept, not written), naming where they are and why each unwritten
one is not; the JSON report says the same. A case that errored while it was recorded
leaves a marker in its cassette's place, so replaying only says why there is nothing
to replay instead of advising a recording that was already tried.

The product is the ``cli`` runner's small shell script (no network), which fails with
exit code 3 on any task that says "break", logging every start it makes.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from product_harness import by_case, run_skill
from skillfactory import write_file

# slow: each test starts a real (small) product process in several inner runs
pytestmark = pytest.mark.slow

AGENT = """\
#!/bin/sh
printf '%s\\n' "$1" >> {log}
case "$1" in
  *break*) printf 'boom: the endpoint refused the request\\nsecond line\\n' >&2; exit 3;;
esac
printf 'got: %s\\n' "$1"
"""
SKILL = "orders"
ERROR_LINE = "cli exited with code 3"


def case(name: str, task: str) -> dict[str, Any]:
    return {"name": name, "task": task, "assertions": [{"kind": "contains", "value": "got:"}]}


CASES = [case("one", "say one"), case("two", "say two"), case("breaks", "please break")]


class Agent:
    """The ``cli`` product: a shell script that logs every start to ``log``."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.log = pytester.path / "started.log"
        self.script = pytester.path / "agent.sh"
        self.breaks(True)
        self.toml = (
            f'product_sandbox = "off"\n[runners.cli]\ncommand = ["{self.script}", "{{prompt}}"]\n'
        )

    def breaks(self, breaking: bool) -> None:
        """Whether the script fails on a task saying "break" (it is mended otherwise)."""
        text = AGENT.format(log=self.log)
        write_file(self.script, text if breaking else text.replace("*break*)", "*never*)"))
        self.script.chmod(0o755)

    def run(
        self, mode: str, *args: str, cases: list[dict[str, Any]] = CASES
    ) -> tuple[pytest.RunResult, dict[str, Any]]:
        """The cases under ``mode``: the result and the JSON report."""
        return run_skill(
            self.pytester,
            "cli",
            cases,
            "--skill-lens-record",
            mode,
            *args,
            skill=SKILL,
            toml=self.toml,
        )

    def starts(self) -> list[str]:
        """The task of every start so far, in order; the log is emptied."""
        if not self.log.exists():
            return []
        tasks = self.log.read_text().splitlines()
        self.log.unlink()
        return tasks

    @property
    def directory(self) -> Path:
        return self.pytester.path / "skills" / SKILL / "evals" / "cassettes" / SKILL

    def files(self) -> dict[str, Path]:
        """Every file in the cassettes directory, by the case it is for."""
        found = {}
        for path in sorted(self.directory.glob("*.json")):
            found[json.loads(path.read_text(encoding="utf-8"))["item"]["case"]] = path
        return found


@pytest.fixture
def agent(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> Agent:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("workspaces")))
    return Agent(pytester)


def accounts(report: dict[str, Any]) -> dict[str, Any]:
    cassettes: dict[str, Any] = report["summary"]["cassettes"]
    assert cassettes is not None, report["summary"]
    return cassettes


def test_a_recording_run_counts_its_cassettes_and_says_why_one_is_not_written(
    agent: Agent,
) -> None:
    result, report = agent.run("once")

    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(passed=2, errors=1)
    assert sorted(agent.starts()) == ["please break", "say one", "say two"]
    files = agent.files()
    broken = agent.directory / files["breaks"].name
    result.stdout.fnmatch_lines(
        [
            f"Cassettes: 2 written, 0 kept, 1 not written (1 errored) in {agent.directory}",
            f"Cassette not written: {broken}: the case errored ({ERROR_LINE}*",
        ]
    )
    said = accounts(report)
    assert (said["written"], said["kept"], said["not_written"]) == (2, 0, 1)
    assert said["directories"] == [str(agent.directory)]
    (unwritten,) = said["not_written_cassettes"]
    assert unwritten["cassette"] == str(broken) and unwritten["status"] == "errored"
    assert ERROR_LINE in unwritten["why"]
    actions = {o["case_name"]: o["cassette_action"] for o in report["outcomes"]}
    assert actions == {"one": "written", "two": "written", "breaks": "not_written"}
    # The two measured cases are real cassettes; the errored one is a marker saying why.
    for name in ("one", "two"):
        assert json.loads(files[name].read_text(encoding="utf-8"))["calls"]
    marker = json.loads(broken.read_text(encoding="utf-8"))
    assert marker["calls"] == []
    assert marker["not_recorded"]["error"].startswith(ERROR_LINE)
    assert "second line" not in marker["not_recorded"]["error"]  # its first line only


def test_a_second_recording_keeps_what_replays_and_tries_the_errored_case_again(
    agent: Agent,
) -> None:
    agent.run("once")
    before = {name: path.read_bytes() for name, path in agent.files().items() if name != "breaks"}
    agent.starts()

    result, report = agent.run("once")

    assert agent.starts() == ["please break"]  # only the marker's case was started again
    result.stdout.fnmatch_lines(
        [f"Cassettes: 0 written, 2 kept, 1 not written (1 errored) in {agent.directory}"]
    )
    said = accounts(report)
    assert (said["written"], said["kept"], said["not_written"]) == (0, 2, 1)
    after = agent.files()
    assert all(after[name].read_bytes() == data for name, data in before.items())

    agent.breaks(False)  # mended: the marker gives way to a real recording
    result, report = agent.run("once")
    assert agent.starts() == ["please break"]
    result.stdout.fnmatch_lines(["Cassettes: 1 written, 2 kept, 0 not written in *"])
    assert json.loads(agent.files()["breaks"].read_text(encoding="utf-8"))["calls"]
    result, report = agent.run("none")
    assert result.ret == 0, result.stdout.str()
    assert agent.starts() == []
    assert all(o["replayed"] for o in report["outcomes"])


def test_replaying_a_case_that_errored_when_recorded_says_so_not_record_it_first(
    agent: Agent,
) -> None:
    agent.run("once")
    agent.starts()

    result, report = agent.run("none")

    assert agent.starts() == []  # replaying only starts nothing
    result.assert_outcomes(passed=2, errors=1)
    error = by_case(report)["breaks"]["error"]
    assert "not recorded: the case errored when it was recorded (" in error, error
    assert ERROR_LINE in error
    assert "record it first" not in error
    assert "Cassettes:" not in result.stdout.str()  # replaying only writes nothing
    assert report["summary"]["cassettes"] is None


def test_a_never_recorded_case_says_record_it_first_and_a_changed_task_names_the_part(
    agent: Agent,
) -> None:
    agent.run("once")
    changed = [case("one", "say one, now differently"), CASES[1], case("three", "say three")]

    result, report = agent.run("none", cases=changed)

    result.assert_outcomes(errors=2, passed=1)
    outcomes = by_case(report)
    assert "record it first with --skill-lens-record once" in outcomes["three"]["error"]
    changed_task = "recorded for another version of this case: the task changed"
    assert changed_task in outcomes["one"]["error"]
    assert outcomes["two"]["replayed"] is True


def test_under_xdist_the_counts_are_summed_at_the_controller(agent: Agent) -> None:
    result, report = agent.run("once", "-n", "2")

    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [f"Cassettes: 2 written, 0 kept, 1 not written (1 errored) in {agent.directory}"]
    )
    said = accounts(report)
    assert (said["written"], said["kept"], said["not_written"]) == (2, 0, 1)

    result, report = agent.run("once", "-n", "2")
    said = accounts(report)
    assert (said["written"], said["kept"], said["not_written"]) == (0, 2, 1)
