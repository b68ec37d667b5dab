"""The workspace under both framework runners: what skill-lens.toml sets reaches the tools
the model calls, and every session rebuilds its mock tools.

Each test runs pytest as a user does against the scripted Chat Completions server on
127.0.0.1 and asserts the exact tool results the server received.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("langchain.agents")
pytest.importorskip("langchain_openai")
pytest.importorskip("genai_prices")

from model_server import ScriptedModelServer, text, tool_calls
from runner_e2e import RUNNERS, case, checks, run

# slow: real agent frameworks against local servers (-m "not slow" skips it)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.parametrize("runner", RUNNERS),
    pytest.mark.usefixtures("openai_key"),
]


def test_the_configured_caps_reach_the_models_tools_and_checks_keep_the_built_in_one(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        case(
            "capped",
            "fill the workspace",
            workspace={"files": {"seed.md": "12345678901"}},  # 11 bytes
            assertions=[{"kind": "contains", "value": "12345678901", "file": "seed.md"}],
        )
    ]
    writes = [
        ("write_file", json.dumps({"path": "big.md", "content": "x" * 11})),
        ("read_file", json.dumps({"path": "seed.md"})),
        ("write_file", json.dumps({"path": "a.md", "content": "aaaa"})),
        ("write_file", json.dumps({"path": "b.md", "content": "b"})),
        ("write_file", json.dumps({"path": "a.md", "content": "a" * 10})),
    ]
    # One call per turn: a framework may run one turn's calls concurrently, in any order.
    script = {"fill the workspace": [*(tool_calls([call]) for call in writes), text("done")]}
    toml = "retry_backoff_seconds = 0.0\nmax_file_bytes = 10\nmax_files = 2\nmax_total_bytes = 20\n"

    result, outcomes = run(
        pytester,
        server,
        cases,
        script,
        "--skill-lens-markdown",
        "report.md",
        runners=[runner],
        toml=toml,
    )

    assert result.ret == 0, result.stdout.str()
    assert [m["content"] for m in server.requests[-1].messages("tool")] == [
        "refused: big.md would be 11 bytes; max_file_bytes is 10",
        "refused: seed.md is 11 bytes; max_file_bytes is 10",
        "wrote 4 bytes to a.md",
        "refused: writing b.md would make 3 files; max_files is 2",
        "refused: writing a.md would bring the workspace to 21 bytes; max_total_bytes is 20",
    ]
    # The assertion reads with the built-in 1,000,000-byte cap, whatever is configured.
    assert checks(outcomes["capped"], "assertion")["contains[0]"][0] is True
    # The endpoint is a setting, never part of a report.
    reports = [
        result.stdout.str(),
        (pytester.path / "report.json").read_text(encoding="utf-8"),
        (pytester.path / "report.md").read_text(encoding="utf-8"),
    ]
    host = server.url.split("//", 1)[1].split("/", 1)[0]
    assert not [r for r in reports if host in r]


def test_every_session_starts_its_mock_sequences_afresh(
    pytester: pytest.Pytester, server: ScriptedModelServer, runner: str
) -> None:
    cases = [
        {
            "name": "two sessions",
            "sessions": ["session one", "session two"],
            "workspace": {},
            "tools": [
                {"name": "next_step", "description": "The next step", "returns": ["plan", "ship"]}
            ],
            "trajectory": {"called": ["next_step"]},
        }
    ]
    script = {
        task: [tool_calls([("next_step", "{}")]), text(f"{task} done")]
        for task in ("session one", "session two")
    }

    result, outcomes = run(pytester, server, cases, script, runners=[runner])

    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["two sessions"]
    assert outcome["status"] == "passed"
    assert outcome["output"] == "session two done"
    for task in ("session one", "session two"):
        assert server.for_task(task)[-1].messages("tool")[-1]["content"] == "plan"
