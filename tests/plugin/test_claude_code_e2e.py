"""The ``claude-code`` runner driving the REAL Claude Code binary, offline.

``products_on_path`` puts the pinned binary (``npm ci --prefix products``) first on
PATH, and Claude Code talks to the scripted Anthropic server on 127.0.0.1 through
``ANTHROPIC_BASE_URL``. Every conversation's first user message carries Claude
Code's own reminders before the task, so the server answers by a phrase of the task
(``by_content``). Controls come in pairs: a check that passes with the right answer
fails with the wrong one, a Skill call that triggers is matched by one that does not.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from anthropic_server import AnthropicServer, text, tool_use
from product_harness import CLAUDE_TOML, ProductRun, anthropic_as_server, seen  # noqa: F401
from product_scenarios import (
    GREET_BODY,
    GREETS_WARMLY,
    TWO_VISITS,
    a_wrong_answer_fails_showing_it,
    an_offered_skill_called_is_loaded,
    an_offered_skill_not_called_is_a_measured_negative,
)
from skillfactory import QUIET_PLUGINS, write_file

# slow: starts the real Claude Code (-m "not slow" skips it)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("products_on_path", "claude_env")]

RUNNER = "claude-code"
BODY = GREET_BODY
TOML = CLAUDE_TOML
run = ProductRun(RUNNER, body=BODY, toml=TOML)  # skill greet: outcomes by case name


def test_a_loaded_case_passes_with_the_skill_expanded_and_the_products_cost(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.", usage=(10, 5))]
    cases = [{**GREETS_WARMLY, "budget": {"max_cost_usd": 0.01, "max_tokens": 1000}}]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    outcome = outcomes["greets warmly"]
    assert outcome["status"] == "passed"
    assert outcome["skill_loaded"] is True
    assert outcome["output"] == "Hello team, warmly."
    # Claude Code's own total_cost_usd, at list price for the model it asked for.
    assert outcome["cost_usd"] == pytest.approx(0.00014)
    assert outcome["cost_note"] is None
    assert (outcome["input_tokens"], outcome["output_tokens"]) == (10, 5)
    (request,) = seen(server, "greet the team")
    # /greet was expanded into the delivered SKILL.md's text, in the working directory.
    assert "GREET-INSTRUCTIONS" in request
    assert "<command-name>/greet</command-name>" in request
    assert "/.claude/skills/greet" in request


def test_a_loaded_case_fails_when_the_answer_lacks_the_expected_text(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    a_wrong_answer_fails_showing_it(pytester, server, run)


def test_an_offered_case_where_the_model_calls_the_skill_tool(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    an_offered_skill_called_is_loaded(pytester, server, run, skill_tool="Skill")


def test_an_offered_case_where_the_model_does_not_call_it_is_a_measured_negative(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    an_offered_skill_not_called_is_a_measured_negative(pytester, server, run)


def test_sessions_share_the_working_directory_and_get_the_skill_delivered_again(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    vandal = "echo vandalised > .claude/skills/greet/SKILL.md && echo kept > notes.txt"
    server.by_content["first visit"] = [
        tool_use([("Bash", {"command": vandal, "description": "Overwrite the skill"})]),
        text("First done."),
    ]
    server.by_content["second visit"] = [text("Second done, warmly.")]
    cases = [TWO_VISITS]
    result, outcomes = run(pytester, cases)
    assert result.ret == 0, result.stdout.str()
    assert outcomes["two visits"]["output"] == "Second done, warmly."
    (second,) = seen(server, "second visit")
    assert "GREET-INSTRUCTIONS" in second and "vandalised" not in second  # delivered again


def test_a_timeout_is_errored_never_failed_and_says_the_spend_is_unknown(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    server.by_content["greet the team"] = [text("Hello team, warmly.")]
    toml = TOML + "timeout_seconds = 0.01\n"
    cases = [{"name": "too slow", "task": "greet the team"}]
    result, outcomes = run(pytester, cases, toml=toml)
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    outcome = outcomes["too slow"]
    assert outcome["status"] == "errored"
    assert "claude-code timed out after 0.01 s" in outcome["error"]
    assert (
        outcome["cost_note"] == "claude-code timed out before reporting cost; the spend is unknown"
    )


def test_the_skills_hooks_are_reported_and_a_failed_one_is_shown_on_a_failing_case(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    frontmatter = """\
        name: greet
        description: Greets people warmly
        hooks:
          PostToolUse:
            - matcher: "Bash"
              hooks:
                - type: command
                  command: "echo hook-said-no; exit 3"
        """
    server.by_content["greet the team"] = [
        tool_use([("Bash", {"command": "echo hi", "description": "Say hi"})]),
        text("Hello."),
    ]
    cases = [
        {
            "name": "runs a hook",
            "task": "greet the team",
            "assertions": [{"kind": "contains", "value": "warmly"}],
        }
    ]
    result, outcomes = run(pytester, cases, frontmatter=frontmatter)
    assert result.ret == 1  # the assertion failed; the hook never decides a verdict
    (hook,) = outcomes["runs a hook"]["hooks"]
    assert (hook["name"], hook["outcome"], hook["exit_code"]) == ("PostToolUse:Bash", "error", 3)
    assert hook["stdout"] == "hook-said-no\n"
    assert "PostToolUse:Bash" in result.stdout.str()  # under "failed hooks:" in the excerpt


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        (TOML + 'skills_dir = ".x"\n', "skills_dir is for the cli runner"),
        (TOML + 'args = ["{prompt}"]\n', "args may not hold {prompt}"),
        (TOML + 'command = ["claude", "-p"]\n', "exactly one {prompt} element"),
        ('[runners.claude-code]\npass_env = ["HOME"]\n', "which home isolation sets itself"),
        ('[runners.claude-code]\npass_env = ["A=B"]\n', "takes variable names only"),
    ],
)
def test_a_table_the_runner_cannot_run_is_exit_2_before_any_case(
    pytester: pytest.Pytester, server: AnthropicServer, toml: str, expected: str
) -> None:
    result, _ = run(pytester, [{"name": "c", "task": "greet the team"}], toml=toml)
    assert result.ret == 2
    assert expected in result.stdout.str() + result.stderr.str()
    assert server.requests == []


def test_a_missing_executable_is_exit_2_before_any_case(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(pytester.path / "nothing-here"))
    result, _ = run(pytester, [{"name": "c", "task": "greet the team"}])
    assert result.ret == 2
    assert "needs 'claude', which is not on PATH" in result.stdout.str() + result.stderr.str()
    assert server.requests == []


def test_no_way_to_sign_in_under_home_isolation_is_exit_2_unless_pass_env_names_one(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    cases = [{"name": "c", "task": "greet the team"}]
    result, _ = run(pytester, cases)
    assert result.ret == 2
    assert "can sign in only from the environment" in result.stdout.str() + result.stderr.str()
    assert server.requests == []
    # A credential kept under another name, passed by name, passes the preflight; this
    # one is no Claude Code login, so the product fails the case: errored, not raised.
    monkeypatch.setenv("MY_GATEWAY_TOKEN", "t")
    toml = '[runners.claude-code]\npass_env = ["MY_GATEWAY_TOKEN"]\n'
    result, outcomes = run(pytester, cases, toml=toml)
    assert result.ret == 1, result.stdout.str()
    assert outcomes["c"]["status"] == "errored"
    assert "claude-code reported an error: (is_error) Not logged in" in outcomes["c"]["error"]


def test_a_product_that_does_not_start_is_exit_2_and_model_is_refused(
    pytester: pytest.Pytester, server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = write_file(pytester.path / "bin" / "claude", "#!/bin/sh\necho broken >&2\nexit 4\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    result, _ = run(pytester, [{"name": "c", "task": "greet the team"}])
    assert result.ret == 2
    output = result.stdout.str() + result.stderr.str()
    assert "'--version' exited with code 4; stderr ends: broken" in output
    result = pytester.runpytest(
        "--skill-lens", "skills", "--skill-lens-runner", RUNNER, "--skill-lens-model", "x:y"
    )
    assert result.ret == 2
    assert "--skill-lens-model is read by no runner" in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_home_isolation_gives_a_temporary_home_and_only_the_allowlisted_environment(
    pytester: pytest.Pytester,
    server: AnthropicServer,
    monkeypatch: pytest.MonkeyPatch,
    sandbox: str,
) -> None:
    monkeypatch.setenv("SKILL_LENS_TEST_SECRET", "leak-me")
    server.by_content["show the environment"] = [
        tool_use([("Bash", {"command": "env", "description": "Print the environment"})]),
        text("Shown."),
    ]
    toml = f'product_sandbox = "{sandbox}"\n' + TOML
    result, _ = run(pytester, [{"name": "env", "task": "show the environment"}], toml=toml)
    assert result.ret == 0, result.stdout.str()
    _, second = server.requests
    ((_, printed),) = second.tool_results()
    variables = dict(line.partition("=")[::2] for line in printed.splitlines() if "=" in line)
    assert variables["ANTHROPIC_BASE_URL"] == server.url  # the product's endpoint travels
    if sandbox == "off":  # the product as you have it: your whole environment
        assert variables["SKILL_LENS_TEST_SECRET"] == "leak-me"
        return
    assert "SKILL_LENS_TEST_SECRET" not in variables
    home = variables["HOME"]
    assert "skill-lens-claude-code-" in home
    assert variables["TMPDIR"].startswith(home) and variables["XDG_CONFIG_HOME"].startswith(home)
    assert not any(name.startswith("PYTEST") for name in variables)
    assert not Path(home).exists()  # removed when the call ended


def test_the_example_suite_runs_under_claude_code_offline(
    pytester: pytest.Pytester, server: AnthropicServer
) -> None:
    example = Path(__file__).parents[2] / "examples" / "claude-code" / "commit-message"
    shutil.copytree(example, pytester.path / "skills" / "commit-message")
    write_file(pytester.path / "skill-lens.toml", TOML)
    server.by_content.update(
        {
            "login form": [
                text("fix(auth): raise the login timeout to 30 seconds\n\nSlow links were cut off.")
            ],
            "--dry-run": [
                tool_use([("Skill", {"skill": "commit-message"})]),
                text("feat(deploy): add a --dry-run flag"),
            ],
            "capital of France": [text("Paris")],
        }
    )
    result = pytester.runpytest(
        "--skill-lens", "skills", "--skill-lens-runner", RUNNER, *QUIET_PLUGINS
    )
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=3)
    expanded = seen(server, "login form")[0]
    assert "imperative mood" in expanded  # the skill's body reached the model
