"""Names that would rewrite the terminal, disguise themselves, or defeat node-id selection.

A case name becomes part of a pytest node id; case, skill, tag and tool names reach
the terminal, JUnit XML and the Markdown report. A control character (``ESC[2J``
clears the reader's screen), a bidirectional override or an invisible format
character is an authoring error, shown escaped. So are ``::`` and brackets in a case
name, which pytest's node-id syntax reads as its own. Every name that is accepted can
be selected by its node id, with or without the runner part.
"""

from __future__ import annotations

import json

import pytest
from runs import LensRun, Report
from test_authoring_rules import (
    GOOD_CASE,
    SKILL,
    Expect,
    assert_refused,
    cases_seen,
    run,
    runner_calls,
    write_skill,
)

# (id, the name as written in a double-quoted YAML scalar, the name itself)
HIDDEN = [
    ("escape", r"wipe\e[2Jscreen", "wipe\x1b[2Jscreen", "the control character '\\x1b' (U+001B)"),
    ("newline", r"two\nlines", "two\nlines", "the control character '\\n' (U+000A)"),
    ("carriage-return", r"over\rwrite", "over\rwrite", "the control character '\\r' (U+000D)"),
    ("nul", r"nul\0byte", "nul\0byte", "the control character '\\x00' (U+0000)"),
    ("tab", r"tab\there", "tab\there", "the control character '\\t' (U+0009)"),
    ("delete", r"del\x7fete", "del\x7fete", "the control character '\\x7f' (U+007F)"),
    ("c1-csi", r"csi\x9b2J", "csi\x9b2J", "the control character '\\x9b' (U+009B)"),
    (
        "bidi-override",
        r"refund-\u202eok",
        "refund-\u202eok",
        "the invisible format character '\\u202e' (U+202E RIGHT-TO-LEFT OVERRIDE)",
    ),
    (
        "bidi-isolate",
        r"a\u2066b",
        "a\u2066b",
        "the invisible format character '\\u2066' (U+2066 LEFT-TO-RIGHT ISOLATE)",
    ),
    (
        "zero-width-space",
        r"gre\u200bet",
        "gre\u200bet",
        "the invisible format character '\\u200b' (U+200B ZERO WIDTH SPACE)",
    ),
    (
        "line-separator",
        r"a\u2028b",
        "a\u2028b",
        "the line break '\\u2028' (U+2028 LINE SEPARATOR)",
    ),
    (
        "no-break-space",
        r"a\u00a0b",
        "a\xa0b",
        "the space '\\xa0' (U+00A0 NO-BREAK SPACE), which is not a plain space",
    ),
]


def case_with_name(yaml_name: str) -> str:
    return f'cases:\n{GOOD_CASE}  - name: "{yaml_name}"\n    task: Say hello.\n'


@pytest.mark.parametrize(
    ("yaml_name", "name", "shown"),
    [(y, n, s) for _, y, n, s in HIDDEN],
    ids=[i for i, *_ in HIDDEN],
)
def test_a_case_name_with_a_hidden_character_is_refused_and_shown_escaped(
    pytester: pytest.Pytester, yaml_name: str, name: str, shown: str
) -> None:
    write_skill(pytester, {"evals/cases.yaml": case_with_name(yaml_name)})

    result = run(pytester, "--junitxml", "junit.xml", "--skill-lens-markdown", "report.md", "-v")

    message = assert_refused(
        result,
        pytester,
        Expect(
            "evals/cases.yaml",
            f"the case name {name!r} holds {shown}",
            "remove it",
            "name",
            f"case {name!r} (#2 in the file)",
        ),
    )
    assert message.startswith(f"{pytester.path / 'skills/order-support/evals/cases.yaml'}:4,")
    hidden = next(ch for ch in name if not ch.isalnum() and ch not in "-[]")
    for text in (result.stdout.str(), *written(pytester, "junit.xml", "report.md")):
        assert name not in text, "the raw name reached the output"
        assert hidden == "\n" or hidden not in text, "the raw character reached the output"


def written(pytester: pytest.Pytester, *names: str) -> list[str]:
    return [
        (pytester.path / n).read_text(encoding="utf-8")
        for n in names
        if (pytester.path / n).exists()
    ]


@pytest.mark.parametrize(
    ("name", "problem", "fix"),
    [
        ("refund::late", "holds '::', pytest's node id separator", "without '::'"),
        ("refund[late]", "holds '[', which pytest reads as the start of", "without '[' and ']'"),
        ("late]", "holds ']', which pytest reads as the start of", "without '[' and ']'"),
        (" greet", "starts or ends with a space", "remove the space"),
        ("greet ", "starts or ends with a space", "remove the space"),
    ],
    ids=["double-colon", "brackets", "closing-bracket", "leading-space", "trailing-space"],
)
def test_a_case_name_no_node_id_could_select_is_refused(
    pytester: pytest.Pytester, name: str, problem: str, fix: str
) -> None:
    write_skill(pytester, {"evals/cases.yaml": case_with_name(name)})

    result = run(pytester)

    assert_refused(
        result,
        pytester,
        Expect("evals/cases.yaml", f"the case name {name!r} {problem}", fix, "name"),
    )


ACCEPTED = [
    "refund/late",
    "refund late, with a space",
    "back\\slash",
    "a:b",
    "(parenthesised) & 'quoted'",
    "accentué-ünïcode",
    "日本語のケース",
    "emoji 🙂",
    "e\u0301-combining",
]


def test_every_accepted_name_is_selected_by_its_node_id(pytester: pytest.Pytester) -> None:
    write_skill(
        pytester,
        {
            "evals/cases.yaml": json.dumps(
                {"cases": [{"name": n, "task": "t"} for n in ACCEPTED]}, ensure_ascii=False
            )
        },
    )
    base = "skills/order-support/SKILL.md::"

    full = run(pytester, "--collect-only", "-q", *(f"{base}{n}[spy]" for n in ACCEPTED))
    bare = run(pytester, "--collect-only", "-q", *(f"{base}{n}" for n in ACCEPTED))

    for result in (full, bare):
        assert result.ret == 0, result.stdout.str()
        collected = [line for line in result.outlines if line.startswith(base)]
        assert collected == [f"{base}{n}[spy]" for n in ACCEPTED], result.stdout.str()


# --- the other names: tags, trajectory tool names, the skill's name and version, ids --------


@pytest.mark.parametrize(
    ("body", "field", "what"),
    [
        ('tags: [smoke, "sm\\e[2Joke"]\n', "tags[1]", "the tag 'sm\\x1b[2Joke'"),
        (
            'trajectory:\n  called: ["look\\u202eup"]\n',
            "trajectory.called[0]",
            "the tool name 'look\\u202eup'",
        ),
        (
            'trajectory:\n  forbidden: [ok, "bad\\nname"]\n',
            "trajectory.forbidden[1]",
            "the tool name 'bad\\nname'",
        ),
        (
            'trajectory:\n  order: ["x\\ry"]\n',
            "trajectory.order[0]",
            "the tool name 'x\\ry'",
        ),
        (
            'trajectory:\n  call_args:\n    - {tool: "a\\tb", contains: {k: 1}}\n',
            "trajectory.call_args[0].tool",
            "the tool name 'a\\tb'",
        ),
    ],
    ids=["tag", "called", "forbidden", "order", "call-args-tool"],
)
def test_other_case_names_with_a_hidden_character_are_refused(
    pytester: pytest.Pytester, body: str, field: str, what: str
) -> None:
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    text = f"cases:\n{GOOD_CASE}  - name: bad\n    task: Say hello.\n{indented}"
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester)

    assert_refused(
        result,
        pytester,
        Expect(
            "evals/cases.yaml", f"{what} holds", "remove it", field, "case 'bad' (#2 in the file)"
        ),
    )
    assert "\x1b" not in result.stdout.str() and "\u202e" not in result.stdout.str()


@pytest.mark.parametrize(
    ("frontmatter", "field", "what", "line"),
    [
        ('name: "order\\e[2J"\n', "name", "the skill name 'order\\x1b[2J'", 2),
        ('description: d\nname: "order\\u202e"\n', "name", "the skill name 'order\\u202e'", 3),
        (
            'name: order-support\nversion: "1.0\\e[31m"\n',
            "version",
            "the version '1.0\\x1b[31m'",
            3,
        ),
    ],
    ids=["name-escape", "name-bidi", "version-escape"],
)
def test_a_skill_md_name_with_a_hidden_character_is_refused(
    pytester: pytest.Pytester, frontmatter: str, field: str, what: str, line: int
) -> None:
    write_skill(pytester, {"evals/cases.yaml": f"cases:\n{GOOD_CASE}"}, frontmatter=frontmatter)

    result = run(pytester)

    message = assert_refused(
        result, pytester, Expect("SKILL.md", f"{what} holds", "remove it", field)
    )
    assert message.startswith(f"{pytester.path / 'skills/order-support/SKILL.md'}:{line},")
    assert "\x1b" not in result.stdout.str() and "\u202e" not in result.stdout.str()


@pytest.mark.parametrize(
    "given",
    ["skills", "skills/order\x1b[2J", "skills/order\x1b[2J/SKILL.md"],
    ids=["parent", "skill-dir", "skill-md"],
)
@pytest.mark.parametrize(
    "frontmatter", [None, "description: no name key\n"], ids=["named", "unnamed"]
)
def test_a_skill_directory_name_with_a_hidden_character_is_refused(
    pytester: pytest.Pytester, given: str, frontmatter: str | None
) -> None:
    """The directory's name is part of every node id below it (and, without ``name:``,
    the skill's name), so it is refused, before pytest prints any node id of it."""
    write_skill(
        pytester,
        {"evals/cases.yaml": f"cases:\n{GOOD_CASE}"},
        dirname="order\x1b[2J",
        frontmatter=frontmatter,
    )

    # A refusal at start-up is pytest.exit in pytest_configure (tests/conftest.py's pytester
    # reports it in-process, as a real process would).
    result = LensRun(skills=given, options=("-p", "no:cacheprovider"))(pytester)

    out = result.stdout.str() + result.stderr.str()
    assert result.ret == 2, out
    assert "the directory name 'order\\x1b[2J' holds the control character '\\x1b'" in out, out
    assert "\x1b" not in out, "the raw escape reached the terminal"


@pytest.mark.parametrize(
    ("raw_id", "problem", "fix"),
    [
        ('"a\\u001b[2J"', "the id 'a\\x1b[2J' holds the control character '\\x1b'", "remove it"),
        (
            '"x\\u202ey"',
            "the id 'x\\u202ey' holds the invisible format character '\\u202e'",
            "remove it",
        ),
        ('"a::b"', "the id 'a::b' holds '::'", "without '::'"),
        ('"[1]"', "the id '[1]' holds '['", "without '[' and ']'"),
    ],
    ids=["escape", "bidi", "double-colon", "brackets"],
)
def test_an_evals_json_id_takes_the_case_name_rules(
    pytester: pytest.Pytester, raw_id: str, problem: str, fix: str
) -> None:
    write_skill(
        pytester,
        {
            "evals/evals.json": (
                '{"evals": [{"id": 1, "prompt": "p", "expected_output": "o"},'
                f' {{"id": {raw_id}, "prompt": "p", "expected_output": "o"}}]}}'
            )
        },
    )

    result = run(pytester)

    assert_refused(result, pytester, Expect("evals/evals.json", problem, fix, "id"))
    assert "\x1b" not in result.stdout.str() and "\u202e" not in result.stdout.str()


def test_ordinary_names_still_load_and_run(pytester: pytest.Pytester) -> None:
    """Ordinary names, tags and tool names still load and run, each as written: in the
    node id, the case the runner is handed, its trajectory check and the JSON report."""
    name = "greets in French (formal)"
    write_skill(
        pytester,
        {
            "evals/cases.yaml": (
                f"cases:\n  - name: {name}\n    tags: [smoke, fr-FR]\n"
                "    task: Say hello.\n    trajectory:\n      forbidden: [delete_all]\n"
            )
        },
    )

    result = run(pytester, "-v", "--skill-lens-json", "report.json")

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"skills/{SKILL}/SKILL.md::{name}[[]spy[]] PASSED*"])
    assert runner_calls(pytester) == [f"spy::{name}"]
    handed = cases_seen(pytester)[name]
    assert handed["tags"] == ["smoke", "fr-FR"]
    assert handed["trajectory"]["forbidden"] == ["delete_all"]
    (outcome,) = Report.read(pytester.path / "report.json").outcomes
    assert (outcome["skill_name"], outcome["case_name"]) == (SKILL, name)
    assert outcome["status"] == "passed"
    (trajectory,) = [s for s in outcome["scores"] if s["evaluator"] == "trajectory"]
    assert [(c["id"], c["passed"], c["evidence"]) for c in trajectory["checks"]] == [
        ("forbidden:delete_all", True, "delete_all was never called")
    ]
