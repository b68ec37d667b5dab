"""The ``opencode`` runner and judge driving the REAL OpenCode binary, offline.

``products_on_path`` puts the pinned binary (``npm ci --prefix products``) first on
PATH (``rg`` must be on PATH too, or OpenCode would download one), and OpenCode talks
Chat Completions, streamed, to the scripted server on 127.0.0.1 (``model_server.py``),
configured by the plugin alone (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``OPENCODE_MODEL``). Controls come in pairs: a skill call that triggers is matched by
one that does not, a right argument by a wrong one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from model_server import ScriptedModelServer, failure, text, tool_calls
from product_harness import ProductRun, by_case, needs_bwrap, opencode_env, run_skill  # noqa: F401
from product_harness import seen as about
from product_scenarios import (
    GREET_BODY,
    GREETS_WARMLY,
    NOT_CALLED,
    TWO_VISITS,
    call_args_held,
    looks_up_order,
    offered_outcomes_hold,
    reaches_for_the_skill,
)
from skillfactory import QUIET_PLUGINS

# slow: starts the real OpenCode (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "opencode_env")]

RUNNER = "opencode"
BODY = GREET_BODY
run = ProductRun(RUNNER, body=BODY)  # skill greet under opencode: outcomes by case name
SECRET = "sk-skill-lens-test-0123456789abcdef"  # the endpoint's key: never in a cassette


def load(skill: str = "greet") -> tuple[str, str]:
    return ("skill", json.dumps({"name": skill}))


def test_a_loaded_case_where_the_model_loads_the_skill_reports_it_and_the_tokens(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    server.by_content["greet the team"] = [
        tool_calls([load()], usage=(3100, 50), cached=400),
        text("Hello team, warmly.", usage=(3200, 26), cached=3000),
    ]
    result, outcomes = run(pytester, [GREETS_WARMLY])
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    assert outcome["status"] == "passed"
    assert outcome["output"] == "Hello team, warmly."
    assert outcome["skill_loaded"] is True
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (6300, 76)
    # No price table in the config: the spend is not priced, never $0.
    assert outcome["price_source"] == "not priced"
    assert "skill-lens gives it none" in outcome["cost_note"]
    first, second = about(server, "greet the team")
    assert "/greet greet the team" in first and "GREET-INSTRUCTIONS" not in first
    assert "GREET-INSTRUCTIONS" in second  # the skill tool put the text in front of the model
    assert len(server.requests) == 2  # --title: no title-generation call of its own


def test_a_loaded_case_whose_model_never_loads_it_says_so(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.")]
    result, outcomes = run(pytester, [GREETS_WARMLY])
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    assert outcome["skill_loaded"] is False
    assert "does not expand /greet" in outcome["load_note"]
    assert "Skill never loaded: 1 candidate run(s) under opencode" in result.stdout.str()


def test_an_offered_case_calling_the_skill_tool_triggers_and_one_not_calling_it_does_not(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    server.by_content["welcome the guest"] = [tool_calls([load()]), text("Hello, guest.")]
    server.by_content["what is two plus two"] = [text("Four.")]
    result, outcomes = run(pytester, [reaches_for_the_skill("skill"), *NOT_CALLED])
    offered_outcomes_hold(result, outcomes)
    first, _ = about(server, "welcome the guest")
    assert "<name>greet</name>" in first and "GREET-INSTRUCTIONS" not in first  # listed only


@pytest.mark.parametrize(
    ("order_id", "passes"), [("A-1", True), ("B-2", False)], ids=["right", "wrong"]
)
def test_a_mock_tool_reaches_opencode_through_the_bridge(
    pytester: pytest.Pytester, server: ScriptedModelServer, order_id: str, passes: bool
) -> None:
    # OpenCode names a bridged tool "skill-lens_<name>"; the report maps it back.
    server.by_content["where is order"] = [
        tool_calls([("skill-lens_get_order", json.dumps({"id": order_id}))]),
        text("Here is what I found."),
    ]
    result, outcomes = run(pytester, [looks_up_order()])
    outcome = outcomes["looks the order up"]
    call_args_held(result, outcome, passes)
    answer = "order A-1 shipped" if passes else "no such order"
    last = [r for r in server.requests if "where is order" in r.task][-1]
    assert [m["content"] for m in last.messages("tool")] == [answer]


def test_the_products_own_error_is_errored_never_failed(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    # OpenCode 1.18.33 retries a 400, 401 or 404 five times with backoff (over a
    # minute); a context overflow (413) it reports at once.
    server.by_content["greet the team"] = [failure(413, "context too long")]
    result, outcomes = run(pytester, [{"name": "refused", "task": "greet the team"}])
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["refused"]
    assert outcome["status"] == "errored"
    assert outcome["error"] == (
        "opencode reported an error: (ContextOverflowError) context too long"
    )
    assert outcome["price_source"] == "not priced"


def test_a_timeout_is_errored_never_failed(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.")]
    toml = "[runners.opencode]\ntimeout_seconds = 0.01\n"
    result, outcomes = run(pytester, [{"name": "too slow", "task": "greet the team"}], toml=toml)
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    assert "opencode timed out after 0.01 s" in outcomes["too slow"]["error"]


def test_opencode_judges_a_pass_and_a_fail_with_no_tools(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    def verdict(passed: bool) -> str:
        check = {"id": "r1", "passed": passed, "evidence": "order 1234 is named"}
        return json.dumps({"checks": [check]})

    server.by_content["refund order 1234"] = [text(verdict(True), usage=(30, 9))]
    server.by_content["cancel order 1234"] = [text(verdict(False), usage=(30, 9))]
    rubric = {"rubric": ["Names order 1234"]}
    cases = [
        {"name": "kind", "task": "refund order 1234", "judge": rubric},
        {"name": "curt", "task": "cancel order 1234", "judge": rubric},
    ]
    result, report = run_skill(
        pytester, "fake", cases, skill="orders", toml=f'judge = "{RUNNER}"\n'
    )
    assert result.ret == 1, result.stdout.str()
    outcomes = by_case(report)
    assert outcomes["kind"]["status"] == "passed"
    assert outcomes["curt"]["status"] == "failed"
    (request,) = [r for r in server.requests if "refund order 1234" in r.task]
    assert request.body.get("tools", []) == []  # its judge agent has every tool switched off
    assert "[fake] orders handled: refund order 1234" in request.task


def test_a_recorded_run_replays_with_no_process_and_no_request(
    pytester: pytest.Pytester, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server.by_content["greet the team"] = [
        tool_calls([load()], usage=(100, 7)),
        text("Hello team, warmly.", usage=(120, 8)),
    ]
    recorded_result, recorded = run(pytester, [GREETS_WARMLY], "--skill-lens-record", "once")
    assert recorded_result.ret == 0, recorded_result.stdout.str()
    files = sorted((pytester.path / "skills" / "greet" / "evals" / "cassettes").rglob("*.json"))
    assert files and all(SECRET not in path.read_text(encoding="utf-8") for path in files)
    spent = len(server.requests)

    kept = [p for p in os.environ["PATH"].split(os.pathsep) if not Path(p, "opencode").exists()]
    monkeypatch.setenv("PATH", os.pathsep.join(kept))
    assert shutil.which("opencode") is None
    result, replayed = run(pytester, [GREETS_WARMLY], "--skill-lens-record", "none")
    assert result.ret == 0, result.stdout.str()
    assert len(server.requests) == spent  # nothing reached the model
    before, after = recorded["greets warmly"], replayed["greets warmly"]
    assert after["replayed"] is True and before["replayed"] is False
    for key in ("status", "output", "input_tokens", "output_tokens", "skill_loaded", "tool_calls"):
        assert after[key] == before[key], key


def test_sessions_share_the_directory_and_what_one_writes_as_configuration_never_loads(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    # The first session writes what OpenCode would read as its project's configuration
    # (another model, instructions, agents' rules) and vandalises the delivered skill.
    config = json.dumps({"model": "nope/nope", "instructions": ["rules.md"]})
    plant = (
        f"echo '{config}' > opencode.json && mkdir -p .opencode && cp opencode.json .opencode/"
        " && echo RULES-MARKER > rules.md && echo AGENTS-MARKER > AGENTS.md"
        " && echo vandalised > .agents/skills/greet/SKILL.md && echo kept > notes.txt"
    )
    server.by_content["first visit"] = [
        tool_calls([("bash", json.dumps({"command": plant, "description": "Plant files"}))]),
        text("First done."),
    ]
    server.by_content["second visit"] = [tool_calls([load()]), text("Second done, warmly.")]
    cases = [TWO_VISITS]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["two visits"]["output"] == "Second done, warmly."
    first, second = about(server, "second visit")
    for request in (first, second):
        assert "RULES-MARKER" not in request and "AGENTS-MARKER" not in request
    assert '"model": "scripted-model"' in first  # the plugin's model, not the planted one
    assert "GREET-INSTRUCTIONS" in second and "vandalised" not in second  # delivered again


def test_without_ripgrep_on_path_the_run_is_refused_before_any_case(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    products_on_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # OpenCode would download a ripgrep build from the internet on its first skill call.
    monkeypatch.setenv("PATH", str(products_on_path))
    assert shutil.which("rg") is None and shutil.which("opencode") is not None
    result, _ = run(pytester, [{"name": "c", "task": "greet the team"}])
    assert result.ret == 2
    output = result.stdout.str() + result.stderr.str()
    assert "the opencode runner needs 'rg' on PATH beside 'opencode'" in output
    assert server.requests == []


AUDIT = """#!/bin/sh
# opencode under strace: every connect() it makes, its children's too.
log="$HOME/connects.log"
strace -f -qq -e trace=connect -o "$log" {real} "$@"
code=$?
grep -c 'inet_addr("127.0.0.1")' "$log" > audited.txt
if grep 'sin_addr\\|sin6_addr' "$log" | grep -v 'inet_addr("127.0.0.1")' >&2; then exit 97; fi
exit $code
"""


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace to watch connect()")
def test_a_run_connects_to_the_configured_endpoint_and_nowhere_else(
    pytester: pytest.Pytester,
    server: ScriptedModelServer,
    products_on_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No models fetch, update check, share, plugin install or ripgrep download: a
    # connection anywhere but 127.0.0.1 makes the audited start exit 97 (errored).
    shims = pytester.path / "shims"
    shims.mkdir()
    shim = shims / "opencode"
    shim.write_text(AUDIT.format(real=products_on_path / "opencode"), encoding="utf-8")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    server.by_content["greet the team"] = [tool_calls([load()]), text("Hello team, warmly.")]
    audited = {"kind": "regex", "file": "audited.txt", "value": "^[1-9]"}
    case = {
        **GREETS_WARMLY,
        "workspace": {"files": {"seed.txt": "seeded\n"}},
        "assertions": [*GREETS_WARMLY["assertions"], audited],
    }
    result, outcomes = run(pytester, [case])
    assert result.ret == 0, result.stdout.str()
    assert outcomes["greets warmly"]["skill_loaded"] is True


@needs_bwrap()
def test_under_bwrap_a_write_outside_the_working_directory_is_refused(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    outside = pytester.path / "escaped.txt"  # beside the suite, outside the case's directory
    command = f"echo pwned > {outside}; echo in > inside.txt && cat inside.txt"
    server.by_content["tidy the files"] = [
        tool_calls([("bash", json.dumps({"command": command, "description": "Write files"}))]),
        text("All done."),
    ]
    toml = 'product_sandbox = "required"\n'
    result, report = run_skill(
        pytester, RUNNER, [{"name": "tidies", "task": "tidy the files"}], body=BODY, toml=toml
    )
    assert result.ret == 0, result.stdout.str()
    assert not outside.exists()
    said = [m["content"] for m in server.requests[-1].messages("tool")]
    assert len(said) == 1 and "Read-only file system" in said[0], said
    assert "in" in said[0].splitlines()  # the working directory itself is writable
    (product,) = report["products"]
    assert product["sandbox"]["backend"] == "bwrap" and product["sandbox"]["mode"] == "required"


def test_an_opencode_judge_reply_that_is_not_one_verdict_is_errored(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    server.by_content["refund order 1234"] = [text("Looks fine to me.")]
    cases = [{"name": "kind", "task": "refund order 1234", "judge": {"rubric": ["Polite"]}}]
    result, report = run_skill(
        pytester, "fake", cases, skill="orders", toml=f'judge = "{RUNNER}"\n'
    )
    assert result.ret == 1, result.stdout.str()
    outcome = by_case(report)["kind"]
    assert outcome["status"] == "errored"
    assert "Looks fine to me." in json.dumps(outcome)  # the reply is shown, never scored


def test_the_task_reaches_the_model_whole_and_quoted_even_when_it_starts_with_a_dash(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    task = '--version: is "two"  plus\ttwo 4?'
    server.by_content["plus"] = [text("Four.")]
    cases = [{"name": "asks", "task": task, "mode": "offered"}]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["asks"]["output"] == "Four."
    (request,) = server.requests
    quoted = '"' + task.replace('"', '\\"') + '"'  # as OpenCode wraps an argument with a space
    assert [m["content"] for m in request.messages("user")] == [quoted]


def test_the_example_suite_runs_under_opencode_offline(
    pytester: pytest.Pytester, server: ScriptedModelServer
) -> None:
    example = Path(__file__).parents[2] / "examples" / "opencode" / "commit-message"
    shutil.copytree(example, pytester.path / "skills" / "commit-message")
    skill = [tool_calls([load("commit-message")])]
    message = "fix(auth): raise the login timeout to 30 seconds\n\nSlow links were cut off."
    server.by_content.update(
        {
            "login form": [*skill, text(message)],
            "--dry-run": [*skill, text("feat(deploy): add a --dry-run flag")],
            "capital of France": [text("Paris")],
        }
    )
    result = pytester.runpytest(
        "--skill-lens", "skills", "--skill-lens-runner", RUNNER, *QUIET_PLUGINS
    )
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=3)
    _, loaded = about(server, "login form")
    assert "imperative mood" in loaded  # the skill tool put its body in front of the model
