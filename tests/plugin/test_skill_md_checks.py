"""SKILL.md read as carefully as an eval file, against the Agent Skills specification.

Each test writes a real skill folder and runs pytest on it in-process, as an author would.
A departure from the specification (agentskills.io/specification) is a ``SkillLensWarning``
in pytest's warnings summary, naming the file and line, the field, the value and the fix;
the run goes on. Frontmatter that does not parse, is not a mapping or is never closed, a
``TODO(skill-lens)`` left in SKILL.md, and an offered case of a skill with no description
stop the run (exit 2, no runner called). ``strict_skill_md`` makes every warning an error.
Frontmatter in the shapes public skills use keeps loading.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from runs import Report
from skillfactory import write_file
from test_authoring_rules import (
    GOOD_CASE,
    Expect,
    assert_refused,
    run,
    runner_calls,
    write_conftest,
    write_skill,
)

WARNING = "SkillLensWarning: "
SKILL_MD = "*/skills/order-support/SKILL.md"
CASES: dict[str, str | bytes | None] = {"evals/cases.yaml": "cases:\n" + GOOD_CASE}


def warned(result: pytest.RunResult, count: int) -> None:
    """The run went on: exit 0, the case ran, ``count`` warnings."""
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, warnings=count)


# --- departures from the specification: a warning each, the run goes on --------------------

WARNED = {
    "no-description": (
        "name: order-support\n",
        [
            f"*{WARNING}{SKILL_MD}:1, field 'description': no description: the Agent Skills "
            "specification requires one, and it is what an agent reads to decide whether to use "
            "the skill",
            "    fix: add description: <what the skill does and when to use it> (at most 1024 "
            "characters)",
        ],
    ),
    "description-typo": (
        "name: order-support\ndescripton: Handles refunds.\n",
        [
            f"*{WARNING}{SKILL_MD}:3, field 'descripton': unknown key 'descripton' with value "
            "'Handles refunds.': it is not in the Agent Skills specification and skill-lens "
            "does not read it",
            "    fix: did you mean 'description'? otherwise remove it or move it under metadata:, "
            "unless a product you use reads it",
        ],
    ),
    "capitalised-name": (
        "name: Release Notes\ndescription: Writes release notes.\n",
        [
            f"*{WARNING}{SKILL_MD}:2, field 'name': the name 'Release Notes' is not a valid "
            "Agent Skills name: it holds characters other than lowercase a-z, 0-9 and '-' "
            "('R', ' ', 'N')",
            "    fix: write name: release-notes (lowercase a-z, 0-9 and single hyphens, at most "
            "64 characters), and rename its directory 'order-support' to match",
        ],
    ),
    "doubled-hyphen": (
        "name: order--support\ndescription: Handles refunds.\n",
        [
            f"*{WARNING}{SKILL_MD}:2, field 'name': the name 'order--support' is not a valid "
            "Agent Skills name: it holds '--'",
            "    fix: write name: order-support (lowercase a-z, 0-9 and single hyphens, at most "
            "64 characters)",
        ],
    ),
    "name-not-its-directory": (
        "name: order-help\ndescription: Handles refunds.\n",
        [
            f"*{WARNING}{SKILL_MD}:2, field 'name': the name 'order-help' does not match its "
            "directory 'order-support' (the specification requires them to be the same)",
            "    fix: rename the directory to 'order-help', or write name: order-support",
        ],
    ),
    "no-name": (
        "description: Handles refunds.\n",
        [
            f"*{WARNING}{SKILL_MD}:1, field 'name': no name: the Agent Skills specification "
            "requires one; skill-lens names the skill after its directory, 'order-support'",
            "    fix: add name: order-support",
        ],
    ),
    "description-too-long": (
        "name: order-support\ndescription: " + "x" * 1030 + "\n",
        [
            f"*{WARNING}{SKILL_MD}:3, field 'description': the description is 1,030 characters; "
            "the specification allows at most 1024",
            "    fix: shorten it to 1024 characters or fewer, and move the detail into the "
            "instructions below the frontmatter",
        ],
    ),
    "compatibility-too-long": (
        "name: order-support\ndescription: Handles refunds.\ncompatibility: " + "y" * 501 + "\n",
        [
            f"*{WARNING}{SKILL_MD}:4, field 'compatibility': compatibility is 501 characters; "
            "the specification allows 1 to 500",
            "    fix: shorten it to 500 characters or fewer",
        ],
    ),
    "metadata-value-not-text": (
        "name: order-support\ndescription: Handles refunds.\nmetadata:\n  version: 1.0\n",
        [
            f"*{WARNING}{SKILL_MD}:5, field 'metadata.version': metadata values must be text "
            "(the specification's metadata maps text to text), got float 1.0",
            '    fix: quote it: version: "1.0"',
        ],
    ),
    "metadata-not-a-mapping": (
        "name: order-support\ndescription: Handles refunds.\nmetadata: [a, b]\n",
        [
            f"*{WARNING}{SKILL_MD}:4, field 'metadata': metadata must be a mapping of text keys "
            "to text values, got a list ['a', 'b']",
            "    fix: write it as indented 'key: value' lines under metadata:",
        ],
    ),
    "allowed-tools-a-list": (
        "name: order-support\ndescription: Handles refunds.\nallowed-tools:\n  - Read\n  - Grep\n",
        [
            f"*{WARNING}{SKILL_MD}:4, field 'allowed-tools': allowed-tools must be one line of "
            "tool names separated by spaces, got a list ['Read', 'Grep']",
            "    fix: write allowed-tools: Read Grep",
        ],
    ),
    "unknown-key": (
        "name: order-support\ndescription: Handles refunds.\nuser-invocable: false\n",
        [
            f"*{WARNING}{SKILL_MD}:4, field 'user-invocable': unknown key 'user-invocable' with "
            "value False: it is not in the Agent Skills specification and skill-lens does not "
            "read it",
            "    fix: remove it or move it under metadata:, unless a product you use reads it",
        ],
    ),
}


@pytest.mark.parametrize(("frontmatter", "lines"), WARNED.values(), ids=WARNED.keys())
def test_a_departure_from_the_specification_is_a_warning_naming_the_fix(
    pytester: pytest.Pytester, frontmatter: str, lines: list[str]
) -> None:
    write_skill(pytester, CASES, frontmatter=frontmatter)

    result = run(pytester)

    warned(result, 1)
    result.stdout.fnmatch_lines([line.replace("[", "[[]") for line in lines])
    assert runner_calls(pytester) == ["spy::fine"]


def test_a_skill_md_without_frontmatter_loads_with_one_warning(pytester: pytest.Pytester) -> None:
    skill = write_skill(pytester, CASES)
    (skill / "SKILL.md").write_text("# Order support\n\nHandle refunds.\n", encoding="utf-8")

    result = run(pytester)

    warned(result, 1)
    result.stdout.fnmatch_lines(
        [
            f"*{WARNING}{SKILL_MD}:1: SKILL.md has no frontmatter: the Agent Skills "
            "specification asks for a '---' block with name: and description: at the top; "
            "skill-lens names the skill after its directory, 'order-support', and gives it no "
            "description",
            "    fix: start the file with a '---' line, then name: order-support, description: "
            "<what the skill does and when to use it>, then a '---' line",
        ]
    )


def test_a_skill_md_the_specification_accepts_gives_no_warning(
    pytester: pytest.Pytester,
) -> None:
    write_skill(
        pytester,
        CASES,
        frontmatter=(
            "name: order-support\ndescription: Handles refunds.\nlicense: MIT\n"
            "compatibility: Needs network access\nmetadata:\n  author: someone\n"
            '  version: "1.0"\nallowed-tools: Read Bash(git:*)\nversion: "2.1"\n'
        ),
    )

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, warnings=0)


# --- errors: exit 2 before any runner call ---------------------------------------------------


def test_an_unclosed_frontmatter_is_an_authoring_error(pytester: pytest.Pytester) -> None:
    skill = write_skill(pytester, CASES)
    (skill / "SKILL.md").write_text(
        "---\nname: order-support\ndescription: Handles refunds.\n# Order support\n",
        encoding="utf-8",
    )

    result = run(pytester)

    message = assert_refused(
        result,
        pytester,
        Expect(
            "SKILL.md",
            "the frontmatter opened by '---' on line 1 is never closed: no line holding only "
            "'---' follows it",
            "add a line holding only '---' after the frontmatter's last key, before the "
            "instructions",
        ),
    )
    assert message.startswith(f"{skill}/SKILL.md:1: ")


@pytest.mark.parametrize(
    "frontmatter", ["name: order-support\n", "name: order-support\ndescription: ''\n"]
)
def test_an_offered_case_of_a_skill_with_no_description_is_an_authoring_error(
    pytester: pytest.Pytester, frontmatter: str
) -> None:
    offered = "  - name: reaches\n    mode: offered\n    task: Refund order 1234.\n"
    skill = write_skill(
        pytester, {"evals/cases.yaml": "cases:\n" + GOOD_CASE + offered}, frontmatter=frontmatter
    )

    result = run(pytester)

    message = assert_refused(
        result,
        pytester,
        Expect(
            "SKILL.md",
            f"the skill has no description, but case 'reaches' ({skill}/evals/cases.yaml:4) is "
            "mode: offered: an offered skill is shown to the agent only by its description, so "
            "the case would measure nothing",
            "add description: <what the skill does and when to use it> to SKILL.md, or drop "
            "mode: offered from the case",
            "description",
        ),
    )
    assert message.startswith(f"{skill}/SKILL.md:")


def test_a_placeholder_left_in_skill_md_is_an_authoring_error(pytester: pytest.Pytester) -> None:
    skill = write_skill(
        pytester,
        CASES,
        frontmatter="name: order-support\ndescription: TODO(skill-lens) what it does\n",
    )

    result = run(pytester)

    message = assert_refused(
        result,
        pytester,
        Expect(
            "SKILL.md",
            "still holds the placeholder TODO(skill-lens)",
            "write what the skill does and when to use it",
            "description",
        ),
    )
    assert message.startswith(f"{skill}/SKILL.md:3, ")


# --- strict_skill_md: every warning an error -------------------------------------------------


def test_strict_skill_md_makes_every_warning_an_authoring_error(
    pytester: pytest.Pytester,
) -> None:
    write_skill(pytester, CASES, frontmatter="name: Order Support\n")

    flagged = run(pytester, "--skill-lens-strict-skill-md")

    message = assert_refused(
        flagged,
        pytester,
        Expect("SKILL.md", "the name 'Order Support' is not a valid", "write name: order-support"),
    )
    assert "field 'description': no description" in message  # both, in one run

    write_file(pytester.path / "skill-lens.toml", "strict_skill_md = true\n")
    assert run(pytester).ret == 2
    lenient = run(pytester, "--skill-lens-no-strict-skill-md")  # the flag wins over the file
    warned(lenient, 2)


def test_strict_skill_md_must_be_true_or_false(pytester: pytest.Pytester) -> None:
    write_skill(pytester, CASES)
    write_file(pytester.path / "skill-lens.toml", 'strict_skill_md = "yes"\n')

    result = run(pytester)

    assert result.ret == 2
    result.stderr.fnmatch_lines(["*strict_skill_md must be true or false, got 'yes'*"])


# --- the warnings in the JSON report ---------------------------------------------------------


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_the_warnings_are_in_the_json_report(pytester: pytest.Pytester, workers: list[str]) -> None:
    skill = write_skill(pytester, CASES, frontmatter="name: Order Support\n")

    result = run(pytester, "--skill-lens-json", "report.json", *workers)

    # Every xdist worker collects every skill, and pytest counts each worker's warnings;
    # the summary shows each text once, and the report lists each warning once.
    warned(result, 4 if workers else 2)
    data = Report.read(pytester.path / "report.json")
    assert data["skill_md_warnings"] == [
        {
            "file": str(skill / "SKILL.md"),
            "line": 2,
            "field": "name",
            "problem": "the name 'Order Support' is not a valid Agent Skills name: it holds "
            "characters other than lowercase a-z, 0-9 and '-' ('O', ' ', 'S')",
            "fix": "write name: order-support (lowercase a-z, 0-9 and single hyphens, at most "
            "64 characters)",
        },
        {
            "file": str(skill / "SKILL.md"),
            "line": 1,
            "field": "description",
            "problem": "no description: the Agent Skills specification requires one, and it is "
            "what an agent reads to decide whether to use the skill",
            "fix": "add description: <what the skill does and when to use it> (at most 1024 "
            "characters)",
        },
    ]


# --- public skills keep loading ---------------------------------------------------------------

# The frontmatter shapes public skills are written in (anthropics/skills, the skills shipped
# inside pydantic-ai, playwright and GitHub Copilot, skills published elsewhere), written
# here afresh: each loads and runs, with the warnings its departures earn.
PUBLIC_SHAPES = {
    "name-and-description": ("pdf-tools", "name: pdf-tools\ndescription: Works on PDFs.\n", 0),
    "with-license": (
        "doc-writer",
        "name: doc-writer\ndescription: Writes documents.\nlicense: Complete terms in "
        "LICENSE.txt\n",
        0,
    ),
    "metadata-and-compatibility": (
        "agent-builder",
        "name: agent-builder\ndescription: Builds agents.\nlicense: MIT\ncompatibility: "
        'Requires Python 3.11+\nmetadata:\n  version: "1.1.2"\n  author: someone\n',
        0,
    ),
    "allowed-tools-string": (
        "browser-cli",
        "name: browser-cli\ndescription: Drives a browser.\nallowed-tools: Bash(browser:*) "
        "Bash(npx browser:*)\n",
        0,
    ),
    "allowed-tools-list-and-product-key": (
        "find-resources",
        "name: find-resources\ndescription: >-\n  Finds resources\n  for the user.\n"
        "user-invocable: false\nallowed-tools:\n    - search\n    - select\n",
        2,
    ),
    "capitalised-name-with-spaces": (
        "brand-voice",
        "name: Brand Voice\ndescription: Keeps the brand's voice.\n",
        1,
    ),
    "title-case-name-and-version": (
        "changelog",
        "name: Changelog Writer\ndescription: Writes changelogs.\nversion: 1.0.0\n",
        1,
    ),
    "product-only-keys": (
        "deploy",
        "name: deploy\ndescription: Deploys the app.\ndisable-model-invocation: true\n"
        "argument-hint: '[environment]'\n",
        2,
    ),
    "no-name": ("summariser", "description: Summarises text.\n", 1),
}


@pytest.mark.parametrize(
    ("dirname", "frontmatter", "count"), PUBLIC_SHAPES.values(), ids=PUBLIC_SHAPES.keys()
)
def test_skills_in_the_shapes_public_skills_use_keep_loading(
    pytester: pytest.Pytester, dirname: str, frontmatter: str, count: int
) -> None:
    write_skill(pytester, CASES, dirname=dirname, frontmatter=frontmatter)

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, warnings=count)


def _installed_skills() -> list[Path]:
    """The SKILL.md files that installed packages ship (pydantic-ai's, playwright's)."""
    found: list[Path] = []
    for entry in sys.path:
        root = Path(entry)
        for package in ("pydantic_ai", "playwright"):
            if (root / package).is_dir():
                found += sorted((root / package).rglob("SKILL.md"))
    return found


def test_the_public_skills_installed_packages_ship_load_and_run(
    pytester: pytest.Pytester,
) -> None:
    installed = _installed_skills()
    if not installed:
        pytest.skip("no installed package ships a SKILL.md here")
    write_conftest(pytester)
    for skill_md in installed:  # each copied as it is, beside one case of ours
        directory = pytester.path / "skills" / skill_md.parent.name
        write_file(directory / "evals" / "cases.yaml", "cases:\n" + GOOD_CASE)
        (directory / "SKILL.md").write_bytes(skill_md.read_bytes())

    result = run(pytester)

    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=len(installed))


# --- an eval file's top-level cases: key ------------------------------------------------------


def test_a_top_level_case_key_gets_a_did_you_mean(pytester: pytest.Pytester) -> None:
    write_skill(pytester, {"evals/cases.yaml": "# the suite\ncase:\n" + GOOD_CASE})

    result = run(pytester)

    message = assert_refused(
        result,
        pytester,
        Expect(
            "evals/cases.yaml",
            "an eval file needs a top-level 'cases:' list",
            "did you mean 'cases'? rename 'case:' to 'cases:'",
            "case",
        ),
    )
    assert "evals/cases.yaml:2, field 'case'" in message


def test_a_hostile_value_in_a_warning_is_shown_escaped_never_raw(
    pytester: pytest.Pytester,
) -> None:
    # YAML accepts a bidirectional override in a value; the terminal must never get it raw.
    write_skill(
        pytester,
        CASES,
        frontmatter="name: order-support\ndescription: Refunds.\nowner: 'ab\u202ecd'\n",
    )

    result = run(pytester)

    warned(result, 1)
    assert "\u202e" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*unknown key 'owner' with value 'ab\\u202ecd'*"])
