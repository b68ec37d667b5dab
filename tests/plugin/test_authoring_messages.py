"""Messages that teach: what a person reads when a skill, an eval file or the config is wrong.

Each test writes real skill folders, runs pytest in-process as a user would and asserts
the lines printed, word for word: the value the author wrote, quoted; every independent
mistake of a file in one run; the line of the field; YAML mistakes said in words; the
source of a configuration value; an eval file where discovery does not look; and that a
fix, followed, is not refused in turn. The table of every rule is in
docs/authoring-errors.md; the runner ``spy`` and the wrapped ``fake`` (test_authoring_rules'
conftest) log every call, so an empty log proves nothing was spent.
"""

from __future__ import annotations

import socket

import pytest
from skillfactory import make_skill, write_file
from test_authoring_rules import BAD, GOOD_CASE, bad_case_file, run, runner_calls, write_skill

PREFIX = "skill-lens authoring error: "
EVALS = "*/skills/order-support/evals"


def literal(lines: list[str]) -> list[str]:
    """``lines`` as fnmatch patterns that read ``[`` as itself (``*`` stays a wildcard)."""
    return [line.replace("[", "[[]") for line in lines]


def refused(result: pytest.RunResult, pytester: pytest.Pytester) -> list[str]:
    """Exit 2 before any runner call; the authoring error lines, in order."""
    assert result.ret == 2, result.stdout.str()
    assert runner_calls(pytester) == [], "a runner was called before the error stopped the run"
    return [line for line in result.outlines if line.startswith(PREFIX)]


# --- the value the author wrote, quoted ---------------------------------------------------


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        pytest.param(
            "assertions:\n  - kind: regex\n    value: '(unclosed'\n",
            [
                f"{PREFIX}{EVALS}/cases.yaml:8, {BAD}, field 'assertions[0].value': the regex "
                "'(unclosed' does not compile: missing ), unterminated subpattern at position 0",
                "  fix: fix the pattern; in YAML, single-quote it so backslashes stay as written",
            ],
            id="regex",
        ),
        pytest.param(
            "assertions:\n  - kind: contains\n    value: north\n    file: report.md\n",
            [
                f"{PREFIX}{EVALS}/cases.yaml:9, {BAD}, field 'assertions[0].file': the "
                "assertion reads the workspace file 'report.md', but the case has no "
                "workspace: block",
                "  fix: add workspace: {} (or the files to seed it with)",
            ],
            id="file-without-workspace",
        ),
        pytest.param(
            "tools:\n  - name: get_work_item\n    parameters: {id: string}\n    returns:\n"
            "      - when: {id: '7'}\n        value: open\n"
            "      - when: {id: '7'}\n        value: closed\n",
            [
                f"{PREFIX}{EVALS}/cases.yaml:12, {BAD}, field 'tools[0].returns[1]': this "
                "entry of tool 'get_work_item' can never answer: returns[0] (when: {'id': '7'}) "
                "already matches every call it would",
                "  fix: put the narrower when: first, or merge the two entries",
            ],
            id="shadowed-lookup-entry",
        ),
        pytest.param(
            "tools:\n  - name: list_orders\n    input_schema: {type: array}\n",
            [
                f"{PREFIX}{EVALS}/cases.yaml:8, {BAD}, field 'tools[0].input_schema': the "
                "input_schema of tool 'list_orders' must have top-level type: object (every "
                "provider requires it); its type is 'array'",
                "  fix: add type: object and list the arguments under properties:",
            ],
            id="input-schema-not-an-object",
        ),
    ],
)
def test_the_message_quotes_what_the_author_wrote(
    pytester: pytest.Pytester, body: str, lines: list[str]
) -> None:
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester)

    assert len(refused(result, pytester)) == 1
    result.stdout.fnmatch_lines(literal(lines), consecutive=True)


def test_a_hostile_value_reaches_the_terminal_bounded_and_escaped(
    pytester: pytest.Pytester,
) -> None:
    # A megabyte-long pattern that does not compile, opening with a terminal escape.
    pattern = "\\e[2J(" + "a" * 1_000_000
    body = f'assertions:\n  - kind: regex\n    value: "{pattern}"\n'
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester)

    (line,) = refused(result, pytester)
    out = result.stdout.str()
    assert "\x1b" not in out
    assert max(len(printed) for printed in result.outlines) < 2_000
    assert "the regex '\\x1b[2J(aaaa" in line
    assert "... (1,000,005 characters) does not compile" in line


# --- every mistake of a file, in one run --------------------------------------------------


THREE_MISTAKES = """\
cases:
  - name: fine
    task: Say hello.
  - name: typo
    task: Say hello.
    assertion:
      - kind: contains
        value: hello
  - name: pattern
    task: Say hello.
    assertions:
      - kind: regex
        value: '(unclosed'
  - name: unread
    task: Say hello.
    assertions:
      - kind: contains
        value: north
        file: report.md
"""


def test_every_independent_mistake_of_a_file_is_reported_in_one_run(
    pytester: pytest.Pytester,
) -> None:
    write_skill(pytester, {"evals/cases.yaml": THREE_MISTAKES})

    result = run(pytester)

    assert refused(result, pytester) == [
        f"{PREFIX}{pytester.path}/skills/order-support/evals/cases.yaml:6, case 'typo' "
        "(#2 in the file), field 'assertion': unknown key 'assertion'",
        f"{PREFIX}{pytester.path}/skills/order-support/evals/cases.yaml:13, case 'pattern' "
        "(#3 in the file), field 'assertions[0].value': the regex '(unclosed' does not "
        "compile: missing ), unterminated subpattern at position 0",
        f"{PREFIX}{pytester.path}/skills/order-support/evals/cases.yaml:19, case 'unread' "
        "(#4 in the file), field 'assertions[0].file': the assertion reads the workspace "
        "file 'report.md', but the case has no workspace: block",
    ]
    # Each with its own fix, right under it.
    result.stdout.fnmatch_lines(
        [
            f"{PREFIX}*case 'typo'*",
            "  fix: did you mean 'assertions'? *",
            f"{PREFIX}*case 'pattern'*",
            "  fix: fix the pattern; *",
            f"{PREFIX}*case 'unread'*",
            "  fix: add workspace: {} (or the files to seed it with)",
        ],
        consecutive=True,
    )
    result.assert_outcomes(errors=1)  # one collection error: the skill's SKILL.md


def test_independent_blocks_of_one_case_are_each_reported(pytester: pytest.Pytester) -> None:
    body = (
        "assertions:\n  - kind: regex\n    value: '(unclosed'\n"
        "tools:\n  - name: get.pr\n"
        "judge:\n  rubric: ['  ']\n"
    )
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester)

    fields = [line.split(", field ")[1].split(":")[0] for line in refused(result, pytester)]
    assert fields == ["'assertions[0].value'", "'tools[0].name'", "'judge.rubric[0]'"]


def test_each_broken_field_of_a_case_is_reported_once(pytester: pytest.Pytester) -> None:
    body = "assertions:\n  - kind: contain\n    value: x\nbudget:\n  max_token: 10\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester)

    assert [line.split(": ", 2)[-1] for line in refused(result, pytester)] == [
        "'contain' is not allowed here; expected 'contains', 'not_contains', 'regex', "
        "'equals', 'file-produced' or 'json-schema'",
        "unknown key 'max_token'",
    ]


def test_a_case_whose_shape_is_broken_does_not_cascade(pytester: pytest.Pytester) -> None:
    # assertions: as a mapping. The trajectory name it also holds is never reached: the
    # rules that need more than one field wait until the shape is right.
    body = "assertions:\n  kind: contains\n  value: x\ntrajectory:\n  called: [nowhere]\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester, runner=None)  # fake: it would refuse the undeclared name too

    assert refused(result, pytester) == [
        f"{PREFIX}{pytester.path}/skills/order-support/evals/cases.yaml:6, {BAD}, "
        "field 'assertions': expected a list, got a mapping"
    ]


def test_a_file_that_is_not_yaml_stops_there_and_the_next_file_is_still_read(
    pytester: pytest.Pytester,
) -> None:
    write_skill(
        pytester,
        {
            "evals/a.yaml": "cases:\n  - name: a\n    task: [unclosed\n",
            "evals/b.yaml": bad_case_file("tags: smoke\n"),
        },
    )

    result = run(pytester)

    lines = refused(result, pytester)
    assert [line.split("/evals/")[1].split(",")[0].split(":")[0] for line in lines] == [
        "a.yaml",
        "b.yaml",
    ]
    assert "not valid YAML" in lines[0]
    assert "field 'tags': expected a list, got 'smoke'" in lines[1]


def test_the_runner_dependent_rules_are_reported_with_the_rest(pytester: pytest.Pytester) -> None:
    text = bad_case_file("tags: smoke\n") + (
        "  - name: calls\n    task: Say hello.\n    trajectory:\n      called:\n"
        "        - lookup_ordr\n"
    )
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester, runner=None)  # fake declares every tool it offers

    lines = refused(result, pytester)
    assert len(lines) == 2
    assert "case 'bad' (#2 in the file), field 'tags'" in lines[0]
    assert lines[1].endswith(
        "cases.yaml:11, case 'calls' (#3 in the file), field 'trajectory.called[0]': the "
        "trajectory names 'lookup_ordr', which the case does not declare in tools:; runner "
        "'fake' can never see such a call"
    )


def test_past_ten_mistakes_in_a_file_the_rest_are_counted(pytester: pytest.Pytester) -> None:
    cases = "".join(f"  - {{name: c{i}, task: t, asertions: []}}\n" for i in range(1, 14))
    write_skill(pytester, {"evals/cases.yaml": "cases:\n" + cases})

    result = run(pytester)

    assert len(refused(result, pytester)) == 10
    result.stdout.fnmatch_lines(
        [
            f"{PREFIX}*cases.yaml:11, case 'c10' (#10 in the file), field 'asertions': *",
            "  fix: did you mean 'assertions'? *",
            "...and 3 more in */skills/order-support/evals/cases.yaml (fix these and run again "
            "to see them)",
        ],
        consecutive=True,
    )


def test_a_file_with_a_mistake_is_refused_again_with_the_cache_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(pytester.path / "user-cache"))  # the cache's key
    write_skill(pytester, {"evals/cases.yaml": THREE_MISTAKES})

    for _ in range(2):  # the cache keeps files that loaded cleanly only
        result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "spy")
        assert len(refused(result, pytester)) == 3

    write_file(pytester.path / "skills/order-support/evals/cases.yaml", "cases:\n" + GOOD_CASE)
    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "spy")
    assert result.ret == 0, result.stdout.str()


# --- the line of the field ----------------------------------------------------------------


def test_an_undeclared_trajectory_name_points_at_its_own_line(pytester: pytest.Pytester) -> None:
    body = "tools:\n  - name: lookup_order\ntrajectory:\n  forbidden:\n    - issue_refund\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester, runner=None)

    assert refused(result, pytester) == [
        f"{PREFIX}{pytester.path}/skills/order-support/evals/cases.yaml:10, {BAD}, "
        "field 'trajectory.forbidden[0]': the trajectory names 'issue_refund', which the "
        "case does not declare in tools:; runner 'fake' can never see such a call"
    ]


def test_an_unfilled_placeholder_points_at_its_own_line(pytester: pytest.Pytester) -> None:
    body = "tags: [smoke]\nassertions:\n  - kind: contains\n    value: TODO(skill-lens)\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester)

    assert refused(result, pytester) == [
        f"{PREFIX}{pytester.path}/skills/order-support/evals/cases.yaml:9, {BAD}, "
        "field 'assertions[0].value': still holds the placeholder TODO(skill-lens)"
    ]


# --- YAML mistakes, in words --------------------------------------------------------------


def test_a_tab_and_a_double_quoted_regex_are_said_in_words(pytester: pytest.Pytester) -> None:
    write_skill(
        pytester,
        {
            "evals/a.yaml": "cases:\n  - name: a\n\ttask: hi\n",
            "evals/b.yaml": bad_case_file('assertions:\n  - kind: regex\n    value: "\\d+"\n'),
        },
    )

    result = run(pytester)

    assert len(refused(result, pytester)) == 2
    result.stdout.fnmatch_lines(
        [
            f"{PREFIX}*/evals/a.yaml:3: not valid YAML: a tab character in the indentation "
            "(YAML indents with spaces only)",
            "  fix: replace the tab with spaces; *",
            f"{PREFIX}*/evals/b.yaml:8: not valid YAML: the escape \\d in a double-quoted "
            "value is not one YAML knows",
            "  fix: single-quote the value so backslashes stay as written (value: '\\d+'), *",
        ],
        consecutive=True,
    )


# --- configuration: where a value came from -----------------------------------------------

UNLOADED_RUNNER = """\
from pytest_skill_lens.run.fake import FakeRunner


def pytest_skill_lens_runners(config):
    return {"scripted": lambda context: FakeRunner()}
"""


def test_an_unknown_runner_names_the_file_the_key_and_an_unloaded_conftest(
    pytester: pytest.Pytester,
) -> None:
    make_skill(pytester.path / "skills", "greet", [{"name": "hi", "task": "Say hi."}])
    write_file(pytester.path / "skill-lens.toml", 'default_runner = "scripted"\n')
    # A conftest.py pytest does not read: checks/ is neither collected nor named.
    write_file(pytester.path / "checks" / "conftest.py", UNLOADED_RUNNER)

    result = pytester.runpytest("--skill-lens", "skills")

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "Exit: skill-lens: */skill-lens.toml, field 'default_runner': "
            "unknown runner 'scripted'; "
            "available: claude-code, cli, codex, copilot, fake, gemini-cli, langchain, "
            "opencode, pydantic-ai",
            "  fix: name one of them with default_runner in skill-lens.toml, or register "
            "'scripted' with pytest_skill_lens_runners in a conftest.py this run loads "
            "(docs/extending.md)",
            "  note: checks/conftest.py registers 'scripted' (pytest_skill_lens_runners), but "
            "this run does not load it: pytest reads a conftest.py only in the rootdir (*), "
            "the paths on the command line and the directories it collects from; add checks "
            "to the command line (pytest checks --skill-lens skills), or move the hook into a "
            "conftest.py at or above skills",
        ],
        consecutive=True,
    )

    followed = pytester.runpytest("checks", "--skill-lens", "skills")  # the note, followed

    assert followed.ret == 0, followed.stdout.str()
    followed.assert_outcomes(passed=1)


def test_an_unknown_judge_names_an_unloaded_conftest_too(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "greet", [{"name": "hi", "task": "Say hi."}])
    write_file(
        pytester.path / "checks" / "conftest.py",
        "def pytest_skill_lens_judges(config):\n    return {'strict': lambda context: None}\n",
    )

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-judge", "strict")

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "  note: checks/conftest.py registers 'strict' (pytest_skill_lens_judges), but "
            "this run does not load it: *"
        ]
    )


def test_an_unknown_runner_from_the_flag_names_the_flag(pytester: pytest.Pytester) -> None:
    make_skill(pytester.path / "skills", "greet", [{"name": "hi", "task": "Say hi."}])

    result = pytester.runpytest("--skill-lens", "skills", "--skill-lens-runner", "scripted")

    assert result.ret == 2
    result.stderr.fnmatch_lines(
        [
            "Exit: skill-lens: --skill-lens-runner: unknown runner 'scripted'; available: *",
            "  fix: name one of them with --skill-lens-runner, or register 'scripted' *",
        ],
        consecutive=True,
    )
    result.stdout.no_fnmatch_line("*note:*")  # no conftest.py anywhere registers it


@pytest.mark.parametrize(
    ("toml", "args", "lines"),
    [
        pytest.param(
            "",
            ("--skill-lens-baseline", "none", "--skill-lens-min-delta", "2"),
            [
                "Exit: skill-lens: configuration error: --skill-lens-min-delta must be a "
                "pass-rate difference from -1.0 to 1.0, got 2.0",
                "  fix: give --skill-lens-min-delta another value: it must be a pass-rate "
                "difference from -1.0 to 1.0 (docs/configuration.md)",
            ],
            id="a-flag",
        ),
        pytest.param(
            "repeat = 0\n",
            (),
            [
                "Exit: skill-lens: configuration error: */skill-lens.toml, field 'repeat': "
                "repeat must be 1 or more, got 0",
                "  fix: change repeat in skill-lens.toml: it must be 1 or more "
                "(docs/configuration.md)",
            ],
            id="a-key-in-the-file",
        ),
        pytest.param(
            "min_pass_rat = 0.5\n",
            (),
            [
                "Exit: skill-lens: configuration error: */skill-lens.toml, field "
                "'min_pass_rat': unknown key 'min_pass_rat'",
                "  fix: did you mean 'min_pass_rate'? remove it or fix its spelling; see "
                "docs/configuration.md for every key",
            ],
            id="a-misspelt-key",
        ),
        pytest.param(
            "[runners.kodex]\n",
            (),
            [
                "Exit: skill-lens: configuration error: */skill-lens.toml, field "
                "'runners.kodex': [runners.kodex] is not a table this file takes; the tables "
                "under [runners] are 'copilot', 'claude-code', 'codex', 'gemini-cli', "
                "'opencode' or 'cli'",
                "  fix: rename the table to one of 'copilot', 'claude-code', 'codex', "
                "'gemini-cli', 'opencode' or 'cli', or remove it",
            ],
            id="a-table",
        ),
        pytest.param(
            "min_delta = 0.1\n",
            (),
            [
                "Exit: skill-lens: a minimum delta needs a baseline arm to compare against",
                # Not "drop --skill-lens-min-delta": no such flag was given.
                "  fix: add --skill-lens-baseline none (or previous), or drop min_delta in "
                "skill-lens.toml",
            ],
            id="a-rule-on-a-key-in-the-file",
        ),
    ],
)
def test_a_refused_setting_names_where_it_was_written(
    pytester: pytest.Pytester, toml: str, args: tuple[str, ...], lines: list[str]
) -> None:
    make_skill(pytester.path / "skills", "greet", [{"name": "hi", "task": "Say hi."}])
    if toml:
        write_file(pytester.path / "skill-lens.toml", toml)

    # In-process: tests/conftest.py's pytester reports a pytest.exit() at configure time.
    result = pytester.runpytest("--skill-lens", "skills", *args)

    assert result.ret == 2
    result.stderr.fnmatch_lines(literal(lines), consecutive=True)


# --- an eval file where discovery does not look -------------------------------------------


def test_a_cases_file_beside_skill_md_in_a_skill_with_no_eval_file_is_exit_2(
    pytester: pytest.Pytester,
) -> None:
    skill = write_skill(pytester, {"cases.yaml": "cases:\n" + GOOD_CASE})

    result = run(pytester)

    assert refused(result, pytester) == [
        f"{PREFIX}{skill}/cases.yaml: this file holds eval cases, but discovery does not read "
        "it (eval files are evals/*.yaml, evals/*.yml and evals/evals.json, or *.eval.yaml "
        "beside SKILL.md when there is no evals/ directory); the skill has no eval file "
        "discovery reads, so none of its cases would run"
    ]
    result.stdout.fnmatch_lines(
        [
            "  fix: move it to evals/cases.yaml (discovery reads every .yaml in evals/), or "
            "rename it cases.eval.yaml to keep it beside SKILL.md"
        ]
    )

    (skill / "evals").mkdir()  # the fix, followed
    (skill / "cases.yaml").rename(skill / "evals" / "cases.yaml")
    followed = run(pytester)
    assert followed.ret == 0, followed.stdout.str()
    followed.assert_outcomes(passed=1)


def test_an_evals_json_beside_skill_md_is_named_with_its_place(pytester: pytest.Pytester) -> None:
    evals = '{"evals": [{"id": 1, "prompt": "Say hi.", "assertions": ["It greets."]}]}'
    skill = write_skill(pytester, {"evals.json": evals})

    result = run(pytester)

    (line,) = refused(result, pytester)
    assert line.startswith(f"{PREFIX}{skill}/evals.json: this file holds eval cases")
    result.stdout.fnmatch_lines(["  fix: move it to evals/evals.json, where discovery reads it"])


def test_an_unread_eval_file_beside_cases_that_run_is_a_warning_naming_it(
    pytester: pytest.Pytester,
) -> None:
    # evals/ wins over *.eval.yaml beside SKILL.md (the seed's rule): the run goes on, and
    # the summary names the file that was left out.
    skill = write_skill(
        pytester,
        {"evals/cases.yaml": "cases:\n" + GOOD_CASE, "more.eval.yaml": "cases:\n" + GOOD_CASE},
    )

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*SkillLensWarning: */more.eval.yaml: this file holds eval cases, but discovery "
            "does not read it (*)",
            # pytest indents a warning's lines once more.
            "    fix: move it into evals/ (evals/more.eval.yaml), where discovery reads every "
            ".yaml file",
        ]
    )
    assert (skill / "more.eval.yaml").is_file()  # named, never moved or changed

    strict = run(pytester, "-W", "error::pytest_skill_lens.plugin.collect.SkillLensWarning")
    assert strict.ret == 2  # made fatal, as docs/authoring-errors.md says
    assert runner_calls(pytester) == ["spy::fine"]  # only the first run's one case


def test_a_cases_file_in_a_subdirectory_of_evals_is_named_never_silently_skipped(
    pytester: pytest.Pytester,
) -> None:
    # Discovery reads the files directly in evals/; a suite grouped into evals/smoke/ would
    # otherwise be a skill whose cases silently never run.
    skill = write_skill(pytester, {"evals/smoke/cases.yaml": "cases:\n" + GOOD_CASE})

    result = run(pytester)

    (line,) = refused(result, pytester)
    assert line.startswith(
        f"{PREFIX}{skill}/evals/smoke/cases.yaml: this file holds eval cases, but discovery "
        "does not read it"
    )
    assert line.endswith("so none of its cases would run")
    result.stdout.fnmatch_lines(
        [
            "  fix: move it to evals/cases.yaml (discovery reads the files directly in evals/, "
            "not evals/smoke/), renaming it if that name is taken"
        ]
    )
    assert runner_calls(pytester) == []

    (skill / "evals" / "smoke" / "cases.yaml").rename(skill / "evals" / "cases.yaml")
    followed = run(pytester)  # the fix, followed
    assert followed.ret == 0, followed.stdout.str()
    followed.assert_outcomes(passed=1)


def test_a_nested_eval_file_beside_cases_that_run_is_a_warning_and_links_are_not_followed(
    pytester: pytest.Pytester,
) -> None:
    outside = pytester.path / "elsewhere"
    outside.mkdir()
    (outside / "cases.yaml").write_text("cases:\n" + GOOD_CASE, encoding="utf-8")
    skill = write_skill(
        pytester,
        {
            "evals/cases.yaml": "cases:\n" + GOOD_CASE,
            "evals/more/deeper/extra.yml": "cases:\n" + GOOD_CASE,
            "evals/fixtures/config.yaml": "retries: 3\n",
        },
    )
    (skill / "evals" / "linked").symlink_to(outside, target_is_directory=True)

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        ["*SkillLensWarning: */evals/more/deeper/extra.yml: this file holds eval cases*"]
    )
    result.stdout.no_fnmatch_line("*config.yaml*")
    result.stdout.no_fnmatch_line("*linked*")


def test_a_yaml_file_without_cases_beside_skill_md_is_left_alone(
    pytester: pytest.Pytester,
) -> None:
    write_skill(pytester, {"config.yaml": "retries: 3\nitems:\n  - cases: 2\n"})

    result = run(pytester)

    assert result.ret == 1  # no case ran at all: a gate failure, never exit 2
    result.stdout.no_fnmatch_line("*discovery does not read*")


# --- no dead ends: a fix, followed, is not refused in turn --------------------------------


@pytest.mark.parametrize(
    ("body", "fix", "followed"),
    [
        pytest.param(
            "assertions:\n  - kind: file-produced\n",
            "add file: <path in the workspace> (or file_glob: for a pattern), and a "
            "workspace: block (workspace: {})",
            "assertions:\n  - kind: file-produced\n    file: report.md\nworkspace: {}\n",
            id="file-produced-without-a-workspace",
        ),
        pytest.param(
            "workspace: {}\nassertions:\n  - kind: file-produced\n    file_glob: [report.md]\n",
            "write it as file: report.md",
            "workspace: {}\nassertions:\n  - kind: file-produced\n    file: report.md\n",
            id="a-glob-list-of-one-literal-path",
        ),
        pytest.param(
            "workspace: {}\njudge:\n  rubric: [It is complete]\n  artifacts:\n"
            "    - glob: [report.md]\n",
            "list report.md as a plain entry instead",
            "workspace: {}\njudge:\n  rubric: [It is complete]\n  artifacts: [report.md]\n",
            id="an-artifact-glob-list-of-one-literal-path",
        ),
    ],
)
def test_a_fix_followed_loads(
    pytester: pytest.Pytester, body: str, fix: str, followed: str
) -> None:
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester, "--collect-only")

    assert len(refused(result, pytester)) == 1
    result.stdout.fnmatch_lines([f"  fix: {fix}"])

    write_skill(pytester, {"evals/cases.yaml": bad_case_file(followed)})
    assert run(pytester, "--collect-only").ret == 0


def test_a_built_in_named_without_a_workspace_is_fixed_by_adding_one(
    pytester: pytest.Pytester,
) -> None:
    body = "trajectory:\n  called: [write_file]\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester, runner=None)

    assert len(refused(result, pytester)) == 1
    result.stdout.fnmatch_lines(
        [
            "  fix: add a workspace: block (workspace: {}) to give the case the built-in "
            "write_file, or declare a mock 'write_file' under tools:"
        ]
    )
    write_skill(pytester, {"evals/cases.yaml": bad_case_file("workspace: {}\n" + body)})
    # Loads and runs: fake calls no tool, so the case fails; it is no authoring error.
    assert run(pytester, runner=None).ret == 1


def test_a_skill_offered_as_a_built_in_with_skill_triggered_is_not_told_to_load_it(
    pytester: pytest.Pytester,
) -> None:
    # mode: loaded would be refused in turn: skill_triggered needs mode: offered.
    body = "mode: offered\nworkspace: {}\ntrajectory:\n  skill_triggered: true\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)}, name="read-file")

    result = run(pytester)

    lines = refused(result, pytester)
    assert [line.split("field ")[1] for line in lines] == [
        "'mode': the skill is offered as the tool 'read_file', the name of a built-in tool "
        "in a workspace case"
    ]
    result.stdout.fnmatch_lines(["  fix: rename the skill (its tool name comes from its name)"])


# --- an unreachable endpoint --------------------------------------------------------------


@pytest.mark.slow  # a real agent framework
@pytest.mark.usefixtures("openai_key")
def test_an_unreachable_endpoint_says_which_and_how_many_attempts(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("pydantic_ai.models.openai")
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    make_skill(pytester.path / "skills", "greet", [{"name": "hi", "task": "Say hi."}])
    write_file(pytester.path / "skill-lens.toml", "retries = 1\nretry_backoff_seconds = 0.0\n")
    url = f"http://127.0.0.1:{port}/v1"

    result = pytester.runpytest(
        "--skill-lens",
        "skills",
        "--skill-lens-runner",
        "pydantic-ai",
        "--skill-lens-base-url",
        url,
        "--skill-lens-model",
        "openai:gpt-4o-mini",
        "-p",
        "no:cacheprovider",
    )

    assert result.ret == 1
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [f"error: *Connection error. [[]endpoint {url} (base_url); 2 attempts (retries = 1)[]]"]
    )
