"""``auto:N`` against a real framework runner: the runs not spent are never sent, and a
replay of the recorded rounds stops at the same round for nothing.

pydantic-ai talks to the local scripted model server, which counts every request: three
cases that always pass against a bar of 50% are decided ``pass`` after round 2 of 5, so
the server sees 6 requests where ``--skill-lens-repeat 5`` would send 15.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pydantic_ai.models.openai")
pytest.importorskip("genai_prices")

import runner_e2e
from model_server import ScriptedModelServer, text
from runs import LensRun, Report, served_by

# slow: a real framework against a local server (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("openai_key")]

TASKS = ("refund 1", "refund 2", "refund 3")
CASES = [
    runner_e2e.case(f"case {i}", task, assertions=[{"kind": "contains", "value": "refunded"}])
    for i, task in enumerate(TASKS, start=1)
]
TOML = 'retry_backoff_seconds = 0.0\nrepeat = "auto:5"\nmin_pass_rate = 0.0\n'
TOML += "[per_skill_min]\norder-support = 0.5\n"
REASON = "stopped early: decided pass after round 2 of 5 (betting test, alpha 0.05)"


@pytest.fixture
def stopped() -> Iterator[ScriptedModelServer]:
    """A server to record with inside ``with``; leaving the block stops it, port closed."""
    server = ScriptedModelServer()
    try:
        yield server
    finally:
        server._server.server_close()


def check(report: Report) -> None:
    # Round by round: each case's first run, then each case's second.
    assert [(o["case_name"], o["repeat_index"]) for o in report.outcomes] == [
        (f"case {i}", r) for r in (0, 1) for i in (1, 2, 3)
    ]
    early = report["stopped_early"]
    assert len(early) == 9 and {e["reason"] for e in early} == {REASON}
    assert sorted({e["repeat_index"] for e in early}) == [2, 3, 4]
    assert report.summary["not_spent"]["stopped_early"] == 9
    assert report.gate["passed"] is True and report["not_run"] == []


def test_runs_not_spent_are_never_sent_and_a_replay_stops_at_the_same_round(
    pytester: pytest.Pytester, stopped: ScriptedModelServer
) -> None:
    script: dict[str, list[dict[str, Any]]] = {t: [text("Your order is refunded.")] for t in TASKS}
    with stopped as server:
        result, _ = runner_e2e.run(
            pytester, server, CASES, script, "--skill-lens-record", "once",
            runners=["pydantic-ai"], toml=TOML,
        )  # fmt: skip
        assert result.ret == 0, result.stdout.str()
        assert len(server.requests) == 6  # 3 cases x 2 rounds; the 9 stopped were never sent
    recorded = Report.read(pytester.path / "report.json")
    check(recorded)
    assert recorded.summary["not_spent"]["runs_made"] == 6
    assert recorded.summary["not_spent"]["replayed"] == 0
    # A list price at an endpoint of our own: the spend says so.
    assert recorded.summary["not_spent"]["spent_note"].endswith(
        "your endpoint may bill differently"
    )

    lens = LensRun(runner="pydantic-ai", json="report.json")
    result = lens(pytester, *served_by(stopped.url), "--skill-lens-record", "none")
    assert result.ret == 0, result.stdout.str()
    assert len(stopped.requests) == 6  # the server is down: nothing more was asked of it
    replayed = lens.report(pytester)
    check(replayed)
    assert all(o["replayed"] for o in replayed.outcomes)
    not_spent = replayed.summary["not_spent"]
    assert (not_spent["runs_made"], not_spent["replayed"]) == (0, 6)
    assert not_spent["replayed_usd"] == pytest.approx(sum(o["cost_usd"] for o in recorded.outcomes))
    assert not_spent["note"].startswith("replayed_usd is their recorded cost")
    result.stdout.fnmatch_lines(["*6 outcome(s) replayed from cassettes: $*, their recorded cost*"])
