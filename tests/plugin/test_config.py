"""Configuration: skill-lens.toml, command-line precedence, runner names, flag combinations."""

from __future__ import annotations

import pytest
from skillfactory import make_skill, write_file

# One case passes and one fails under the fake runner: pass rate 50%.
HALF_PASSING = """\
cases:
  - name: holds
    task: say hello
    assertions:
      - kind: contains
        value: say hello
  - name: breaks
    task: say hello
    assertions:
      - kind: contains
        value: words the fake runner never says
"""

ONE_CASE = "cases:\n  - name: greets\n    task: say hello\n"

# A runner that echoes the model it was configured with, so a test can see the setting.
ECHO_CONFTEST = """\
from pytest_skill_lens.run.result import RunResult


class Echo:
    name = "echo"

    def __init__(self, context):
        self.model = context.settings.model

    def run(self, skill, case, workspace):
        return RunResult(output=f"echo({self.model}) {skill.name}: {case.task}")


def pytest_skill_lens_runners(config):
    return {"echo": Echo}
"""


def configure_run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Run pytest for runs stopped by ``pytest.exit`` in ``pytest_configure``.

    In-process: tests/conftest.py's ``pytester`` reports such a stop as its exit code and
    message, as a real ``pytest`` process does.
    """
    return pytester.runpytest(*args)


@pytest.fixture
def half(pytester: pytest.Pytester) -> pytest.Pytester:
    make_skill(pytester.path / "skills", "half", HALF_PASSING)
    return pytester


# --- finding and reading skill-lens.toml -------------------------------------------------


def test_config_file_is_found_upward_from_the_cwd(
    half: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_file(half.path / "skill-lens.toml", "min_pass_rate = 0.5\n")
    work = half.mkdir("work")
    (work / "deeper").mkdir()
    monkeypatch.chdir(work / "deeper")

    result = half.runpytest("--skill-lens", "../../skills")

    assert result.ret == 0  # 50% meets the file's 0.5; the default 1.0 would fail
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"skill-lens *: runner(s) fake; judge fake; config {config}"])


def test_without_a_config_file_the_defaults_apply(half: pytest.Pytester) -> None:
    result = half.runpytest("--skill-lens", "skills")

    assert result.ret == 1  # default min_pass_rate 1.0
    result.stdout.fnmatch_lines(["*config defaults (no skill-lens.toml)*"])
    result.stdout.fnmatch_lines(["*pass rate 50% is below the required 100%*"])


def test_unknown_key_is_exit_2_naming_it(half: pytest.Pytester) -> None:
    write_file(half.path / "skill-lens.toml", "min_pass_rate = 0.5\nmin_pas_rate = 0.5\n")

    result = configure_run(half, "--skill-lens", "skills")

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        ["*skill-lens: configuration error: *skill-lens.toml*unknown key 'min_pas_rate'*"]
    )
    result.stdout.no_fnmatch_line("*passed*")


def test_command_line_wins_over_the_file(half: pytest.Pytester) -> None:
    write_file(half.path / "skill-lens.toml", "min_pass_rate = 1.0\n")

    lenient = half.runpytest("--skill-lens", "skills", "--skill-lens-min-pass-rate", "0.5")
    assert lenient.ret == 0

    write_file(half.path / "skill-lens.toml", "min_pass_rate = 0.5\n")
    strict = half.runpytest("--skill-lens", "skills", "--skill-lens-min-pass-rate", "0.75")
    assert strict.ret == 1
    strict.stdout.fnmatch_lines(["*pass rate 50% is below the required 75%*"])


def test_explicit_config_path_is_used_instead_of_the_upward_one(half: pytest.Pytester) -> None:
    write_file(half.path / "skill-lens.toml", "min_pass_rate = 1.0\n")
    other = write_file(half.path / "configs" / "lenient.toml", "min_pass_rate = 0.5\n")

    result = half.runpytest("--skill-lens", "skills", "--skill-lens-config", "configs/lenient.toml")

    assert result.ret == 0
    result.stdout.fnmatch_lines([f"*config {other}"])


def test_missing_skill_path_is_exit_2(pytester: pytest.Pytester) -> None:
    result = configure_run(pytester, "--skill-lens", "no-such-dir")

    assert result.ret == 2
    result.stderr.fnmatch_lines(["*the skill path */no-such-dir does not exist*"])


def test_ini_skill_lens_paths_turns_the_plugin_on(half: pytest.Pytester) -> None:
    half.makeini("[pytest]\nskill_lens_paths = skills\n")
    write_file(half.path / "skill-lens.toml", "min_pass_rate = 0.5\n")
    half.makepyfile(test_x="def test_ordinary():\n    assert False\n")

    result = half.runpytest("-v")

    assert result.ret == 0
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["skills/half/SKILL.md::holds[[]fake[]] PASSED*"])
    result.stdout.no_fnmatch_line("*test_ordinary*")


# --- runners -------------------------------------------------------------------------------


def test_unknown_runner_is_one_exit_2_error_listing_the_runners(
    pytester: pytest.Pytester,
) -> None:
    for name in ("alpha", "beta", "gamma"):
        make_skill(pytester.path / "skills", name, ONE_CASE)
    pytester.makeconftest(ECHO_CONFTEST)

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "nosuch")

    assert result.ret == 2
    # A configuration error, found before collection: no skill is blamed for it.
    result.stdout.no_fnmatch_line("*ERROR collecting*")
    result.stderr.fnmatch_lines(
        [
            "Exit: skill-lens: --skill-lens-runner: unknown runner 'nosuch'; "
            "available: claude-code, cli, codex, copilot, echo, fake, gemini-cli, langchain, "
            "opencode, pydantic-ai",
            "  fix: name one of them with --skill-lens-runner, or register 'nosuch' with "
            "pytest_skill_lens_runners in a conftest.py this run loads (docs/extending.md)",
        ]
    )
    assert result.stderr.str().count("unknown runner 'nosuch'") == 1


def test_a_runner_a_conftest_below_the_skill_path_registers_is_found_at_collection(
    pytester: pytest.Pytester,
) -> None:
    """A name unknown before collection is not refused while a conftest.py collection
    would still load (below the skill path, outside every skill) may register it."""
    make_skill(pytester.path / "skills" / "team", "alpha", ONE_CASE)
    write_file(pytester.path / "skills" / "team" / "conftest.py", ECHO_CONFTEST)

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "echo")

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)


def test_a_runner_registered_deeper_than_the_search_looks_is_found_at_collection(
    pytester: pytest.Pytester,
) -> None:
    """The search for conftests still to come is bounded; past its bound it cannot say
    that none is to come, so the name is left to collection, which loads this one."""
    deep = pytester.path.joinpath("skills", *(f"level{n}" for n in range(1, 9)))
    make_skill(deep, "alpha", ONE_CASE)
    write_file(deep / "conftest.py", ECHO_CONFTEST)

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "echo")

    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1)


def test_unknown_runner_from_the_config_file_is_exit_2(half: pytest.Pytester) -> None:
    write_file(half.path / "skill-lens.toml", 'default_runner = "nosuch"\n')

    result = half.runpytest("--skill-lens", "skills")

    assert result.ret == 2
    result.stdout.no_fnmatch_line("*ERROR collecting*")
    result.stderr.fnmatch_lines(
        [
            "Exit: skill-lens: */skill-lens.toml, field 'default_runner': unknown runner 'nosuch'; "
            "available: claude-code, cli, codex, copilot, fake*",
            "  fix: name one of them with default_runner in skill-lens.toml, or register*",
        ]
    )


def test_an_unknown_judge_is_refused_naming_every_judge(half: pytest.Pytester) -> None:
    write_file(half.path / "skill-lens.toml", 'judge = "nosuch"\n')
    result = half.runpytest("--skill-lens", "skills")

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "*unknown judge 'nosuch'; available: "
            "claude-code, cli, codex, copilot, fake, gemini-cli, langchain, opencode, pydantic-ai*"
        ]
    )


def with_echo_and_a_case_expecting(pytester: pytest.Pytester, echoed: str) -> None:
    """The echo runner, and skill ``hello`` whose one case ``echoed`` passes iff the output
    contains ``echoed``."""
    case = {
        "name": "echoed",
        "task": "say hello",
        "assertions": [{"kind": "contains", "value": echoed}],
    }
    make_skill(pytester.path, "hello", [case])
    pytester.makeconftest(ECHO_CONFTEST)


def test_a_conftest_runner_is_used_by_name(pytester: pytest.Pytester) -> None:
    with_echo_and_a_case_expecting(pytester, "echo(openai:gpt-4o-mini) hello: say hello")

    result = pytester.runpytest("--skill-lens", "hello", "--skill-lens-runner", "echo", "-v")

    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["hello/SKILL.md::echoed[[]echo[]] PASSED*"])
    result.stdout.fnmatch_lines(["skill-lens *: runner(s) echo; judge fake;*"])


def test_a_conftest_runner_as_default_runner_in_the_file(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "hello", ONE_CASE)
    pytester.makeconftest(ECHO_CONFTEST)
    write_file(pytester.path / "skill-lens.toml", 'default_runner = ["echo", "fake"]\n')

    result = pytester.runpytest("--skill-lens", "hello", "--collect-only", "-q")

    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["hello/SKILL.md::greets[[]echo[]]", "hello/SKILL.md::greets[[]fake[]]"]
    )


def test_a_conftest_runner_reads_the_model_flag(pytester: pytest.Pytester) -> None:
    with_echo_and_a_case_expecting(pytester, "echo(my:model) hello")

    result = pytester.runpytest(
        "--skill-lens", "hello", "--skill-lens-runner", "echo", "--skill-lens-model", "my:model"
    )

    assert result.ret == 0
    result.assert_outcomes(passed=1)


def test_a_runner_name_taken_by_a_builtin_is_refused(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path, "hello", ONE_CASE)
    pytester.makeconftest(ECHO_CONFTEST.replace('{"echo": Echo}', '{"fake": Echo}'))

    result = pytester.runpytest("--skill-lens", "hello")

    assert result.ret == 2
    result.stderr.fnmatch_lines(["*registers the runner 'fake', which is already taken*"])


# --- settings refused at startup -----------------------------------------------------------

# skill-lens.toml (None: no file), more command-line arguments, the stderr line expected.
REFUSED_AT_STARTUP = [
    # the config file
    pytest.param(
        "min_pass_rate = [\n",
        (),
        "*configuration error: *skill-lens.toml: not valid TOML*",
        id="invalid-toml",
    ),
    pytest.param(
        'repeat = "2"\n',
        (),
        "*configuration error: *skill-lens.toml*repeat*",
        id="wrong-value-type-in-config",
    ),
    pytest.param(
        None,
        ("--skill-lens-config", "nope.toml"),
        "*nope.toml: the config file does not exist or is not a file*",
        id="missing-config-path",
    ),
    # runners
    pytest.param(
        'default_runner = ["fake", "fake"]\n',
        (),
        "*default_runner*runner 'fake' is named twice*",
        id="default-runner-list-with-duplicates",
    ),
    pytest.param(
        "default_runner = []\n",
        (),
        "*default_runner*name at least one runner*",
        id="empty-default-runner-list",
    ),
    pytest.param(
        None,
        ("--skill-lens-runner", "fake", "--skill-lens-runner", "fake"),
        "Exit: skill-lens: configuration error: --skill-lens-runner must name each runner "
        "once; runner 'fake' is named twice, got *",
        id="the-same-runner-twice-on-the-command-line",
    ),
    # flags that need other flags
    pytest.param(
        None,
        ("--skill-lens-model", "openai:gpt-4o"),
        "*--skill-lens-model is read by no runner or judge in this run*",
        id="model-flag-with-only-the-fake-runner",
    ),
    pytest.param(
        None,
        ("--skill-lens-markdown-max-chars", "1000"),
        "*--skill-lens-markdown-max-chars needs --skill-lens-markdown*",
        id="markdown-max-chars-without-markdown",
    ),
    pytest.param(
        None,
        ("--skill-lens-min-delta", "0.1"),
        "*a minimum delta needs a baseline arm*",
        id="min-delta-without-baseline",
    ),
    pytest.param(
        "min_delta = 0.1\n",
        (),
        "*a minimum delta needs a baseline arm*",
        id="min-delta-in-the-file-without-baseline",
    ),
    # bad flag values
    pytest.param(
        None, ("--skill-lens-min-pass-rate", "1.5"), "*between 0.0 and 1.0*", id="min-pass-rate-1.5"
    ),
    pytest.param(
        None, ("--skill-lens-min-pass-rate", "most"), "*expects a number*", id="min-pass-rate-most"
    ),
    pytest.param(None, ("--skill-lens-repeat", "0"), "*must be 1 or more*", id="repeat-0"),
    # the spend ceiling: its values are checked, and then it is refused as not built yet
    pytest.param(
        None,
        ("--skill-lens-max-spend", "0"),
        "*--skill-lens-max-spend must be more than 0, got 0.0*",
        id="max-spend-0",
    ),
    pytest.param(
        None,
        ("--skill-lens-max-spend", "nan"),
        "*--skill-lens-max-spend must be a finite number, got 'nan'*",
        id="max-spend-nan",
    ),
    pytest.param(
        "max_spend_usd = inf\n",
        (),
        "*field 'max_spend_usd'*must be a finite number, got inf",
        id="max-spend-inf-in-the-file",
    ),
]


@pytest.mark.parametrize(("toml", "args", "message"), REFUSED_AT_STARTUP)
def test_refused_settings_are_exit_2(
    half: pytest.Pytester, toml: str | None, args: tuple[str, ...], message: str
) -> None:
    if toml is not None:
        write_file(half.path / "skill-lens.toml", toml)

    result = configure_run(half, "--skill-lens", "skills", *args)

    assert result.ret == 2
    result.stderr.fnmatch_lines([message])


# --- the skill_lens_config fixture ----------------------------------------------------------

FIXTURE_TEST = """\
def test_settings(skill_lens_config):
    assert skill_lens_config.min_pass_rate == 0.5  # from the command line
    assert skill_lens_config.repeat == 2  # from skill-lens.toml
    assert skill_lens_config.runner_names == ["fake"]  # the default
"""


def test_skill_lens_config_fixture_returns_the_resolved_settings(half: pytest.Pytester) -> None:
    write_file(half.path / "skill-lens.toml", "min_pass_rate = 1.0\nrepeat = 2\n")
    half.makepyfile(test_settings=FIXTURE_TEST)

    result = half.runpytest(
        "--skill-lens", "skills", "test_settings.py", "--skill-lens-min-pass-rate", "0.5", "-v"
    )

    result.stdout.fnmatch_lines(["test_settings.py::test_settings PASSED*"])
    result.assert_outcomes(passed=3, failed=2)  # 2 cases x 2 repeats + the ordinary test
    assert result.ret == 0


def test_skill_lens_config_fixture_skips_without_skill_lens(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_settings=FIXTURE_TEST)

    result = pytester.runpytest("-rs")

    assert result.ret == 0
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*pytest-skill-lens is not enabled*"])
