"""Cassettes for products: the workspace's changes, the stored start, the bridge's calls
answered again, the product's key parts, and a runner recorded then replayed.

The runners here start real processes (a shell script standing in for the product),
so the record half is the real process layer's; the replay half runs with the script
deleted, which a start would need.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_skill_lens.run.cassettes import CassetteMiss, Mode, Tape, TapeReport, using_tape
from pytest_skill_lens.run.cassettes.files import KeyEntry
from pytest_skill_lens.run.cassettes.key import KeyPart, product_parts, stale_parts
from pytest_skill_lens.run.cassettes.product import (
    Capture,
    bridge_log,
    capture_from,
    capture_record,
    mock_difference,
    request_record,
    stderr_tail,
)
from pytest_skill_lens.run.cassettes.workspace_changes import (
    MAX_BINARY_BYTES,
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    ChangeRefused,
    NotRecordable,
    apply_changes,
    changes_since,
    snapshot,
)
from pytest_skill_lens.run.products import bridge, preflight
from pytest_skill_lens.run.products.claude_code import PRESET as CLAUDE_CODE
from pytest_skill_lens.run.products.cli import PRESET as CLI
from pytest_skill_lens.run.products.cli import start_problem as cli_start_problem
from pytest_skill_lens.run.products.runner import ProductRunner
from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase, ToolSpec
from pytest_skill_lens.suite.skill import Skill, load_skill

SECRET = "sk-unit-test-secret-0123456789"
ITEM = {"skill": "greet", "case": "c"}


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    directory = tmp_path / "skills" / "greet"
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greets warmly\n---\nSay hello.\n", encoding="utf-8"
    )
    return load_skill(directory / "SKILL.md")


def seeded(root: Path, **files: str) -> Path:
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


# -- the workspace's changes -------------------------------------------------------------


def test_changes_are_what_was_created_changed_and_deleted_and_are_made_again(
    tmp_path: Path,
) -> None:
    root = seeded(tmp_path / "ws", keep="same\n", edit="old\n", gone="bye\n")
    before = snapshot(root)
    (root / "edit").write_text("new text, longer\n", encoding="utf-8")
    (root / "gone").unlink()
    (root / "out").mkdir()
    (root / "out" / "report.md").write_text(f"key {SECRET}\n", encoding="utf-8")
    (root / "tool.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (root / "tool.sh").chmod(0o755)
    (root / "blob.bin").write_bytes(b"\xff\x00\xfe")
    os.symlink("out/report.md", root / "latest")
    changes = changes_since(root, before, [SECRET])
    assert changes == [
        {"path": "gone", "deleted": True},
        {"path": "blob.bin", "base64": "/wD+"},
        {"path": "edit", "text": "new text, longer\n"},
        {"path": "latest", "link": "out/report.md"},
        {"path": "out/report.md", "text": "key [redacted by skill-lens]\n"},
        {"path": "tool.sh", "text": "#!/bin/sh\n", "executable": True},
    ]
    again = seeded(tmp_path / "again", keep="same\n", edit="old\n", gone="bye\n")
    apply_changes(again, changes)
    assert sorted(p.name for p in again.iterdir()) == [
        "blob.bin",
        "edit",
        "keep",
        "latest",
        "out",
        "tool.sh",
    ]
    assert (again / "blob.bin").read_bytes() == b"\xff\x00\xfe"
    assert os.readlink(again / "latest") == "out/report.md"
    assert (again / "latest").read_text(encoding="utf-8").startswith("key [redacted")
    assert os.stat(again / "tool.sh").st_mode & stat.S_IXUSR


def test_a_secret_inside_a_longer_one_never_leaves_the_longer_half_kept(tmp_path: Path) -> None:
    # The environment's order is arbitrary: the shorter value first must not leave the
    # longer one's tail in the cassette.
    root = seeded(tmp_path / "ws")
    before = snapshot(root)
    (root / "out.txt").write_text(f"key {SECRET}-tail\n", encoding="utf-8")

    changes = changes_since(root, before, [SECRET, f"{SECRET}-tail"])

    assert changes == [{"path": "out.txt", "text": "key [redacted by skill-lens]\n"}]


def test_nothing_changed_is_no_change(tmp_path: Path) -> None:
    root = seeded(tmp_path / "ws", a="a")
    assert changes_since(root, snapshot(root)) == []


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda root: os.mkfifo(root / "pipe"), "a FIFO"),
        (lambda root: os.link(root / "seed", root / "twin"), "hard link"),
        (lambda root: (root / "big").write_bytes(b"x" * (MAX_FILE_BYTES + 1)), "of one file"),
        (
            lambda root: (root / "big.bin").write_bytes(b"\xff" * (MAX_BINARY_BYTES + 1)),
            "of a binary file",
        ),
        (lambda root: (root / "back\\slash").write_text("x"), "backslash"),
        (
            lambda root: [(root / f"f{n}").write_text("x") for n in range(MAX_ENTRIES + 1)],
            r"more than a cassette keeps \(200\)",
        ),
    ],
    ids=["fifo", "hard-link", "large", "large-binary", "bad-name", "too-many"],
)
def test_what_cannot_be_made_again_faithfully_is_not_recordable(
    tmp_path: Path, make: Callable[[Path], object], expected: str
) -> None:
    root = seeded(tmp_path / "ws", seed="s")
    before = snapshot(root)
    make(root)
    with pytest.raises(NotRecordable, match=expected):
        changes_since(root, before)


@pytest.mark.parametrize(
    "change",
    [
        {"path": "../escape", "text": "x"},
        {"path": "/abs", "text": "x"},
        {"path": "out/x", "text": "x"},
    ],
    ids=["dot-dot", "absolute", "through-a-link"],
)
def test_a_recorded_change_never_writes_outside_the_workspace(
    tmp_path: Path, change: dict[str, str]
) -> None:
    root = seeded(tmp_path / "ws")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / "out")
    with pytest.raises(ChangeRefused):
        apply_changes(root, [change])
    assert list(outside.iterdir()) == []


# -- the stored start ---------------------------------------------------------------------


def test_a_start_reads_back_byte_for_byte_with_no_secret_and_numbered_bridges() -> None:
    calls = (
        b'{"event": "initialize", "protocol_version": "x", "client": {}, "pid": 4242}\n'
        b'{"event": "call", "name": "poll", "arguments": {}, "answer": "pending", "error": null, '
        b'"pid": 4242}\n'
        b'{"event": "initialize", "protocol_version": "x", "client": {}, "pid": 977}\n'
    )
    capture = Capture(
        stdout=f'{{"type": "result", "key": "{SECRET}"}}\nnot json\n'.encode(),
        exit_code=None,
        cut=True,
        stderr=f"boom {SECRET}",
        left=b"\xff\xfe usage",
        calls=calls,
        changes=({"path": "a", "text": "x"},),
    )
    record = capture_record(capture, [SECRET, "short"])
    text = json.dumps(record)
    assert SECRET not in text and "4242" not in text
    assert record["stdout"]["lines"][1] == "not json"
    assert "base64" in record["left"]  # not UTF-8: kept exactly, as base64
    again = capture_from(json.loads(text))
    assert again.stdout == capture.stdout.replace(SECRET.encode(), b"[redacted by skill-lens]")
    assert (again.exit_code, again.cut, again.left) == (None, True, capture.left)
    assert again.stderr == "boom [redacted by skill-lens]"
    assert again.changes == ({"path": "a", "text": "x"},)
    assert again.calls is not None
    pids = [json.loads(line)["pid"] for line in again.calls.splitlines()]
    assert pids == [1, 1, 2]
    log = bridge_log(again.calls)  # the bridge's own reader reads it
    assert log.started and [c.answer for c in log.calls] == ["pending"]


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ({"stdout": {"lines": []}, "exit_code": 0, "cut": False}, "stderr: Field required"),
        ({"stdout": {}, "exit_code": 0, "cut": False, "stderr": ""}, "exactly one of lines"),
        (
            {"stdout": {"base64": "!!"}, "exit_code": 0, "cut": False, "stderr": ""},
            "cannot be read",
        ),
        (
            {
                "stdout": {"lines": []},
                "exit_code": 0,
                "cut": False,
                "stderr": "",
                "workspace": [{"path": "a", "text": "x", "deleted": True}],
            },
            "exactly one of text",
        ),
        ("not a start", "cannot be read"),
    ],
)
def test_a_start_of_the_wrong_shape_is_a_clear_miss(stored: object, expected: str) -> None:
    with pytest.raises(CassetteMiss, match=expected):
        capture_from(stored)


def test_stderr_keeps_what_a_reader_quotes() -> None:
    tail = stderr_tail(b"x" * 5000 + b"the end\n\n")
    assert tail.endswith("the end") and len(tail) == 2000


def test_the_request_is_the_prompt_and_the_command_line_without_it() -> None:
    sent = request_record("/greet hi", ["claude", "-p", "/greet hi", "--verbose"])
    assert sent == {
        "messages": [{"prompt": "/greet hi"}],
        "argv": ["claude", "-p", "{prompt}", "--verbose"],
    }


# -- the bridge's calls answered again ------------------------------------------------------


POLL = ToolSpec.model_validate(
    {"name": "poll", "description": "Poll", "returns": ["pending", "done"]}
)


def _calls(*served: tuple[int, str]) -> bytes:
    lines = [
        json.dumps(
            {"event": "call", "name": "poll", "arguments": {}, "answer": a, "error": None, "pid": p}
        )
        for p, a in served
    ]
    return "\n".join(lines).encode() + b"\n"


def test_fresh_mock_tools_answer_the_recorded_calls_one_set_per_bridge() -> None:
    assert mock_difference([POLL], _calls((1, "pending"), (1, "done"))) is None
    # A second bridge process starts its sequence from the top, as the bridge does.
    assert mock_difference([POLL], _calls((1, "pending"), (2, "pending"))) is None
    said = mock_difference([POLL], _calls((1, "pending"), (1, "pending")))
    assert said is not None and "mock tool poll answers its recorded call (line 2" in said


# -- the key ------------------------------------------------------------------------------


def _recorded(version: str) -> dict[str, KeyEntry]:
    parts = product_parts("runner", "claude-code", {"args": []}, version, known=True)
    return {p.name: p.entry() for p in parts}


def test_a_new_product_version_is_a_miss_naming_both_versions() -> None:
    now = product_parts("runner", "claude-code", {"args": []}, "2.2 (Claude Code)", known=True)
    stale = stale_parts(_recorded("2.1 (Claude Code)"), now)
    recorded, now_shown = "'2.1 (Claude Code)'", "'2.2 (Claude Code)'"
    assert stale == {
        "runner": [f"the claude-code version changed (recorded {recorded}, now {now_shown})"]
    }


def test_replaying_only_takes_the_recorded_version_but_not_other_settings() -> None:
    unknown = product_parts("runner", "claude-code", {"args": []}, None, known=False)
    assert stale_parts(_recorded("2.1"), unknown) == {}
    moved = product_parts("runner", "claude-code", {"args": ["--model", "x"]}, None, known=False)
    (said,) = stale_parts(_recorded("2.1"), moved)["runner"]
    assert said.startswith("the claude-code settings ([runners.claude-code]")


def test_replaying_only_asks_nothing_of_a_product_or_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    replaying = Settings.model_validate({"record": "none"})
    assert preflight.start_problem(CLAUDE_CODE, replaying, None) is None
    assert preflight.start_problem(CLAUDE_CODE, Settings(), None) is not None  # control
    table = {"runners": {"cli": {"command": ["absent-agent", "{prompt}"], "pass_env": []}}}
    assert cli_start_problem(Settings.model_validate({**table, "record": "none"})) is None
    assert cli_start_problem(Settings.model_validate(table)) is not None

    def started(*args: object) -> str:
        raise AssertionError("the bridge was started")

    monkeypatch.setattr(bridge, "check_bridge", started)
    assert bridge.check_tools(CLAUDE_CODE, replaying, [POLL]) is None


# -- a runner recorded, then replayed --------------------------------------------------------

AGENT = """\
#!/bin/sh
printf 'answer to: %s\\n' "$1" > answer.txt
rm -f seed.txt
printf 'got: %s\\n' "$1"
printf 'a warning\\n' >&2
"""

# A stand-in for Claude Code: the real reader reads its stream-json, secret and all.
RESULT = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "result": "Hi KEY",
    "total_cost_usd": 0.25,
    "usage": {"input_tokens": 3, "output_tokens": 2},
}
CLAUDE = (
    "#!/bin/sh\n"
    """echo '{"type":"system","subtype":"init","model":"claude-test","tools":[]}'\n"""
    f"""echo '{json.dumps(RESULT)}' | sed "s/KEY/$ANTHROPIC_API_KEY/"\n"""
)


def _script(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


def _act(
    runner: ProductRunner | ProductRunner,
    mode: Mode,
    path: Path,
    skill: Skill,
    workspace: Path | None,
) -> tuple[RunResult, TapeReport]:
    tape = Tape(path, mode, runner.cassette_parts(), ITEM)
    with using_tape(tape):
        result = runner.run(skill, EvalCase(name="c", task="say hi"), workspace)
    return result, tape.finish(keep=result.error is None)


def test_the_cli_runner_replays_output_figures_and_files_with_the_command_gone(
    tmp_path: Path, skill: Skill
) -> None:
    agent = _script(tmp_path / "bin" / "agent.sh", AGENT)
    table = {"command": [str(agent), "{prompt}"], "pass_env": []}
    cassette = tmp_path / "cassettes" / "c.cli.json"
    recording = ProductRunner(
        CLI, Settings.model_validate({"runners": {"cli": table}, "record": "once"}), sandbox=None
    )
    live, report = _act(recording, "once", cassette, skill, seeded(tmp_path / "ws1", seed="s"))
    assert live.error is None and live.output == "got: say hi\n"
    assert report.replayed is False and report.note is None
    agent.unlink()

    replaying = ProductRunner(
        CLI, Settings.model_validate({"runners": {"cli": table}, "record": "none"}), sandbox=None
    )
    workspace = seeded(tmp_path / "ws2", seed="s")
    again, report = _act(replaying, "none", cassette, skill, workspace)
    assert report.replayed is True and report.miss is None
    for field in ("output", "error", "latency_ms", "cost_note", "usage_note"):
        assert getattr(again, field) == getattr(live, field), field
    assert (workspace / "answer.txt").read_text(encoding="utf-8") == "answer to: say hi\n"
    assert not (workspace / "seed.txt").exists()
    assert (workspace / ".agents" / "skills" / "greet" / "SKILL.md").is_file()  # delivered again


def test_a_traced_runner_reads_its_recorded_trace_with_its_own_reader_and_no_secret(
    tmp_path: Path, skill: Skill, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    _script(bin_dir / "claude", CLAUDE)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    cassette = tmp_path / "cassettes" / "c.claude-code.json"
    base = {"product_sandbox": "off"}
    recording = ProductRunner(
        CLAUDE_CODE, Settings.model_validate({**base, "record": "once"}), sandbox=None
    )
    live, _ = _act(recording, "once", cassette, skill, None)
    assert live.output == f"Hi {SECRET}"  # the run itself saw it
    assert SECRET not in cassette.read_text(encoding="utf-8")
    (bin_dir / "claude").unlink()

    replaying = ProductRunner(
        CLAUDE_CODE, Settings.model_validate({**base, "record": "none"}), sandbox=None
    )
    again, report = _act(replaying, "none", cassette, skill, None)
    assert report.replayed is True
    assert again.output == "Hi [redacted by skill-lens]"
    for field in ("cost_usd", "input_tokens", "output_tokens", "model", "latency_ms"):
        assert getattr(again, field) == getattr(live, field), field


def test_a_changed_prompt_under_replay_only_is_a_miss_naming_it(
    tmp_path: Path, skill: Skill
) -> None:
    agent = _script(tmp_path / "bin" / "agent.sh", AGENT)
    table = {"command": [str(agent), "{prompt}"], "pass_env": []}
    cassette = tmp_path / "cassettes" / "c.cli.json"
    _act(
        ProductRunner(
            CLI,
            Settings.model_validate({"runners": {"cli": table}, "record": "once"}),
            sandbox=None,
        ),
        "once",
        cassette,
        skill,
        None,
    )
    other = {**table, "invoke": "please {task}"}  # the table changes, so does the prompt
    runner = ProductRunner(
        CLI, Settings.model_validate({"runners": {"cli": other}, "record": "none"}), sandbox=None
    )
    tape = Tape(cassette, "none", runner.cassette_parts(), ITEM)
    assert tape.refusal is not None and "the cli settings ([runners.cli]" in tape.refusal
    # Keyed the same, a different prompt is still caught request by request.
    same_key = Tape(cassette, "none", _act_key(table), ITEM)
    with using_tape(same_key):
        result = runner.run(skill, EvalCase(name="c", task="say hi"), None)
    assert result.error is not None and "the prompt sent differs" in result.error


def _act_key(table: dict[str, object]) -> list[KeyPart]:
    runner = ProductRunner(
        CLI, Settings.model_validate({"runners": {"cli": table}, "record": "none"}), sandbox=None
    )
    return runner.cassette_parts()


def test_a_workspace_the_cassette_cannot_hold_leaves_the_run_scored_and_the_file_unwritten(
    tmp_path: Path, skill: Skill
) -> None:
    agent = _script(tmp_path / "bin" / "agent.sh", "#!/bin/sh\nmkfifo pipe\necho done\n")
    table = {"command": [str(agent), "{prompt}"], "pass_env": []}
    cassette = tmp_path / "cassettes" / "c.cli.json"
    runner = ProductRunner(
        CLI, Settings.model_validate({"runners": {"cli": table}, "record": "once"}), sandbox=None
    )
    result, report = _act(runner, "once", cassette, skill, seeded(tmp_path / "ws"))
    assert (result.error, result.output) == (None, "done\n")  # measured as it ran
    assert report.note is not None and "'pipe', which is a FIFO (named pipe)" in report.note
    assert str(cassette) in report.note
    assert not cassette.exists()
