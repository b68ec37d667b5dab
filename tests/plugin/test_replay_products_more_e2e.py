"""More product cassettes, with the REAL Claude Code and Copilot: Copilot in a workspace,
and a ``sessions:`` case under Claude Code.

As in test_replay_products_e2e.py (whose fixtures and helpers this module imports):
record with ``--skill-lens-record once`` against the scripted Anthropic server, then
stop the server, take every directory holding ``claude`` or ``copilot`` off PATH and
replay with ``--skill-lens-record none``. A replay that started a product would not
find it; and since the MCP bridge is started with this interpreter, which PATH does not
hide, the replays here also refuse and list every process the inner run tries to start
(:func:`no_process_starts`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import AnthropicServer, text
from product_harness import CLAUDE_TOML, anthropic_as_server, stop
from product_scenarios import ORDERS, ask, same
from replay_checks import recorded_day
from test_replay_products_e2e import SECRET, cassettes, product_env, run, without_products

from pytest_skill_lens.run.cassettes.files import digest

# That module's fixtures, registered here by their names (pytest reads the module's names).
FIXTURES = (anthropic_as_server, product_env)

# slow: starts the real Claude Code and Copilot (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "product_env")]

REPORTS = ("--skill-lens-markdown", "summary.md", "--junitxml", "junit.xml", "-v")


def said_replayed(pytester: pytest.Pytester, stdout: str, count: int = 1) -> None:
    """Every place a person reads the run says it was replayed, and that nothing started."""
    assert "PASSED (replayed)" in stdout
    assert f"Replayed: {count} of {count} outcome(s) from cassettes" in stdout
    assert "this run started no product" in stdout
    markdown = (pytester.path / "summary.md").read_text(encoding="utf-8")
    assert f"> ⏪ Replayed: {count} of {count} outcome(s) from cassettes" in markdown
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    assert '<property name="replayed" value="True"' in junit
    recorded_day(junit)  # the day it was recorded, in this session


def no_process_starts(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every process the (in-process) inner run tries to start is refused and listed: the
    product, its MCP bridge (``python -m ...``, which PATH alone would not stop), the
    sandbox's probe."""
    tried: list[list[str]] = []

    class Refused(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, args: Any, *rest: Any, **options: Any) -> None:
            tried.append([str(a) for a in args] if isinstance(args, list | tuple) else [args])
            raise PermissionError("this replay must start no process")

    monkeypatch.setattr(subprocess, "Popen", Refused)
    return tried


def a_miss(result: pytest.RunResult, outcome: dict[str, Any], path: Path, part: str) -> None:
    """The run's one case errored as a cassette miss naming ``path`` and the ``part`` that
    changed: never replayed, never passed."""
    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(errors=1)
    assert outcome["status"] == "errored" and outcome["replayed"] is False
    assert "cassette miss" in outcome["error"] and str(path) in outcome["error"]
    assert part in outcome["error"]


def rewrite(path: Path, edit: Any) -> None:
    """The cassette at ``path`` with ``edit`` applied to its parsed JSON, written back."""
    cassette = json.loads(path.read_text(encoding="utf-8"))
    edit(cassette)
    path.write_text(json.dumps(cassette, indent=2, sort_keys=True), encoding="utf-8")


# --- copilot in a workspace ------------------------------------------------------------------

WRITE = "printf 'hello from copilot' > out.txt && printf 'changed\\n' >> seed.txt && rm gone.txt"
COPILOT_CASE: dict[str, Any] = {
    "name": "writes its greeting",
    "task": "write the greeting to out.txt",
    "workspace": {"files": {"seed.txt": "seeded\n", "gone.txt": "delete me\n"}},
    "assertions": [
        {"kind": "contains", "value": "Wrote out.txt"},
        {"kind": "file-produced", "file": "out.txt"},
        {"kind": "contains", "file": "out.txt", "value": "hello from copilot"},
        {"kind": "contains", "file": "seed.txt", "value": "seeded\nchanged"},
    ],
}


def recorded_copilot(
    pytester: pytest.Pytester, server: AnthropicServer
) -> tuple[dict[str, Any], Path, str]:
    """The case recorded once under copilot: its outcome, its cassette and the file's text."""
    server.by_content["write the greeting"] = [
        ask("bash", {"command": WRITE, "description": "Write the greeting"}, "toolu_write"),
        text("Wrote out.txt.", usage=(12, 7)),
    ]
    result, outcomes = run(pytester, "copilot", [COPILOT_CASE], "--skill-lens-record", "once")
    assert result.ret == 0, result.stdout.str()
    first = outcomes["writes its greeting"]
    assert first["status"] == "passed" and first["replayed"] is False
    (path,) = cassettes(pytester)
    written = path.read_text(encoding="utf-8")
    assert SECRET not in written
    return first, path, written


def test_copilot_replays_its_workspace_changes_with_no_process(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, path, written = recorded_copilot(pytester, server)
    cassette = json.loads(written)
    version = cassette["key"]["runner:version"]
    assert version["what"] == "the copilot version" and "Copilot CLI" in version["shown"]
    (call,) = cassette["calls"]
    start = call["exchanges"][0]["response"]
    assert start["exit_code"] == 0 and start["cut"] is False
    changes = {c["path"]: c for c in start["workspace"]}
    # Only what Copilot did: the delivered skill and the untouched seeds are not kept.
    assert changes == {
        "gone.txt": {"path": "gone.txt", "deleted": True},
        "out.txt": {"path": "out.txt", "text": "hello from copilot"},
        "seed.txt": {"path": "seed.txt", "text": "seeded\nchanged\n"},
    }
    assert "left" in start  # Copilot's usage file
    requests = len(server.requests)

    stop(server)
    without_products(monkeypatch)
    started = no_process_starts(monkeypatch)
    result, replayed = run(
        pytester, "copilot", [COPILOT_CASE], "--skill-lens-record", "none", *REPORTS
    )
    assert result.ret == 0, result.stdout.str()
    assert started == []
    again = replayed["writes its greeting"]
    same(first, again)  # every file check scored the restored files as it scored the real ones
    assert all(c["passed"] for s in again["scores"] for c in s["checks"])
    said_replayed(pytester, result.stdout.str())
    assert len(server.requests) == requests
    assert path.read_text(encoding="utf-8") == written  # replaying never rewrites


def test_a_copilot_cassette_without_its_file_change_is_a_miss_never_a_pass(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, path, _ = recorded_copilot(pytester, server)
    stop(server)
    without_products(monkeypatch)

    # Changed seed files: the recorded changes were made to other files, a miss.
    changed = {**COPILOT_CASE, "workspace": {"files": {"seed.txt": "reseeded\n", "gone.txt": ""}}}
    result, missed = run(pytester, "copilot", [changed], "--skill-lens-record", "none")
    a_miss(result, missed["writes its greeting"], path, "the workspace: files changed")

    # A recorded change that cannot be made inside the workspace (its digest made again,
    # as a forger would): errored, never skipped, and nothing of it made.
    def escape(cassette: dict[str, Any]) -> None:
        response = cassette["calls"][0]["exchanges"][0]["response"]
        response["workspace"].append({"path": "../outside.txt", "text": "escaped"})
        response["workspace_sha256"] = digest(response["workspace"])

    rewrite(path, escape)
    result, refused = run(pytester, "copilot", [COPILOT_CASE], "--skill-lens-record", "none")
    assert result.ret == 1, result.stdout.str()
    outcome = refused["writes its greeting"]
    assert outcome["status"] == "errored"
    assert "the recorded workspace changes cannot be made" in outcome["error"]
    assert "'../outside.txt'" in outcome["error"]
    assert not (pytester.path / "outside.txt").exists()

    # The cassette edited by hand so it no longer holds the file: a miss naming the file,
    # never a replay whose file checks fail as if Copilot had not written it.
    def drop(cassette: dict[str, Any]) -> None:
        response = cassette["calls"][0]["exchanges"][0]["response"]
        response["workspace"] = [c for c in response["workspace"] if c["path"] == "seed.txt"]

    rewrite(path, drop)
    result, replayed = run(pytester, "copilot", [COPILOT_CASE], "--skill-lens-record", "none")
    a_miss(result, replayed["writes its greeting"], path, "edited since it was recorded")


# --- sessions: under claude-code ----------------------------------------------------------

PLAN = "printf 'phase 1 done\\n' > plan.txt"
RESUME = "printf 'phase 2 done\\n' >> plan.txt"
SESSIONS_CASE: dict[str, Any] = {
    "name": "resumes its plan",
    "sessions": ["start the plan for order A-1", "resume the plan from plan.txt"],
    "tools": [ORDERS],
    "workspace": {"files": {"notes.txt": "seeded\n"}},
    "assertions": [
        {"kind": "contains", "value": "Phase 2 finished"},
        {"kind": "contains", "file": "plan.txt", "value": "phase 1 done\nphase 2 done"},
    ],
    "trajectory": {"called": ["get_order"], "order": ["get_order", "Bash"]},
}


def test_claude_code_sessions_replay_every_session_with_no_process(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.by_content["start the plan"] = [
        ask("mcp__skill-lens__get_order", {"id": "A-1"}, "toolu_order"),
        ask("Bash", {"command": PLAN, "description": "Write phase 1"}, "toolu_plan"),
        text("Phase 1 finished.", usage=(20, 6)),
    ]
    server.by_content["resume the plan"] = [
        ask("Bash", {"command": RESUME, "description": "Write phase 2"}, "toolu_resume"),
        text("Phase 2 finished.", usage=(30, 8)),
    ]
    cases = [SESSIONS_CASE]
    result, recorded = run(
        pytester, "claude-code", cases, "--skill-lens-record", "once", toml=CLAUDE_TOML
    )
    assert result.ret == 0, result.stdout.str()
    first = recorded["resumes its plan"]
    assert first["status"] == "passed"
    assert first["output"] == "Phase 2 finished."  # the last session's
    names = [c["name"] for c in first["tool_calls"]]
    assert names == ["get_order", "Bash", "Bash"]  # every session's, in order
    (path,) = cassettes(pytester)
    written = path.read_text(encoding="utf-8")
    assert SECRET not in written
    calls = json.loads(written)["calls"]
    assert [(c["seat"], c["by"]) for c in calls] == [("runner", "claude-code")] * 2
    starts = [c["exchanges"][0]["response"] for c in calls]
    prompts = [c["exchanges"][0]["sent"][0]["prompt"] for c in calls]
    assert "start the plan" in prompts[0] and "resume the plan" in prompts[1]
    assert [{c["path"]: c for c in s["workspace"]}["plan.txt"] for s in starts] == [
        {"path": "plan.txt", "text": "phase 1 done\n"},
        {"path": "plan.txt", "text": "phase 1 done\nphase 2 done\n"},
    ]
    # The merged figures are the sessions' sums: the scripted usage of session 1's three
    # requests (40 in, 16 out) and session 2's two (40 in, 13 out).
    assert (first["input_tokens"], first["output_tokens"]) == (80, 29)
    figures = [c["figures"] for c in calls]
    assert first["cost_usd"] == pytest.approx(sum(f["cost_usd"] for f in figures))
    assert first["cost_usd"] > 0
    assert first["latency_ms"] == pytest.approx(sum(f["latency_ms"] for f in figures))
    requests = len(server.requests)

    stop(server)
    without_products(monkeypatch)
    started = no_process_starts(monkeypatch)  # nor the bridge that served get_order
    result, replayed = run(
        pytester, "claude-code", cases, "--skill-lens-record", "none", *REPORTS, toml=CLAUDE_TOML
    )
    assert result.ret == 0, result.stdout.str()
    assert started == []
    again = replayed["resumes its plan"]
    same(first, again)  # output, every call in order, summed tokens, cost and latency
    assert again["replayed_calls"] == 2
    assert again["skill_triggered_by_session"] == first["skill_triggered_by_session"]
    said_replayed(pytester, result.stdout.str())
    assert len(server.requests) == requests
    assert path.read_text(encoding="utf-8") == written

    # A changed second task is a miss naming the cassette; nothing starts, nothing passes.
    changed = [{**SESSIONS_CASE, "sessions": [SESSIONS_CASE["sessions"][0], "start over"]}]
    result, missed = run(
        pytester, "claude-code", changed, "--skill-lens-record", "none", toml=CLAUDE_TOML
    )
    a_miss(result, missed["resumes its plan"], path, "sessions: changed")
    assert len(server.requests) == requests and started == []


def test_a_sessions_cassette_missing_a_session_is_a_miss_never_a_pass(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.by_content["start the plan"] = [
        ask("Bash", {"command": PLAN, "description": "Write phase 1"}, "toolu_plan"),
        text("Phase 1 finished."),
    ]
    server.by_content["resume the plan"] = [
        ask("Bash", {"command": RESUME, "description": "Write phase 2"}, "toolu_resume"),
        text("Phase 2 finished."),
    ]
    case = {
        key: value for key, value in SESSIONS_CASE.items() if key not in ("tools", "trajectory")
    }
    result, _ = run(
        pytester, "claude-code", [case], "--skill-lens-record", "once", toml=CLAUDE_TOML
    )
    assert result.ret == 0, result.stdout.str()
    (path,) = cassettes(pytester)
    stop(server)
    without_products(monkeypatch)

    # The second session's start cut out of the file: the replay cannot answer it.
    rewrite(path, lambda cassette: cassette["calls"].pop())
    result, missed = run(
        pytester, "claude-code", [case], "--skill-lens-record", "none", toml=CLAUDE_TOML
    )
    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(errors=1)
    outcome = missed["resumes its plan"]
    assert outcome["status"] == "errored" and outcome["replayed"] is False
    assert "cassette miss" in outcome["error"] and "runner call #2" in outcome["error"]
    assert str(path) in outcome["error"]


# --- the product sandbox under replay only ---------------------------------------------------


def test_a_replay_only_run_needs_no_product_sandbox(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A CI replay job where unprivileged user namespaces are refused has no working bwrap.
    monkeypatch.setenv("PATH", str(pytester.path / "nothing-here"))
    started = no_process_starts(monkeypatch)
    toml = f'product_sandbox = "required"\n{CLAUDE_TOML}'
    cases = [{"name": "greets", "task": "greet the team"}]
    result, outcomes = run(pytester, "claude-code", cases, "--skill-lens-record", "none", toml=toml)
    # No cassette: the case is errored naming it, as with any sandbox setting.
    assert result.ret == 1, result.stdout.str() + result.stderr.str()
    assert "no cassette for this case at" in outcomes["greets"]["error"]
    assert started == []
