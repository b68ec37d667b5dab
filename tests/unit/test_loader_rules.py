"""Direct checks of ``load_suite``: what a file becomes, where the pytester tests cannot look.

The refusals themselves are proven end to end in ``tests/plugin/test_authoring_rules*.py``;
these tests pin what an accepted file turns into.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.loaded import SkillSuite
from pytest_skill_lens.suite.loader import load_suite
from pytest_skill_lens.suite.skill import Skill


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    directory = tmp_path / "order-support"
    (directory / "evals").mkdir(parents=True)
    (directory / "SKILL.md").write_text(
        "---\nname: order-support\ndescription: Handles orders.\n---\nHelp.\n", "utf-8"
    )
    return Skill(
        name="order-support",
        description="Handles orders.",  # an offered case needs one
        instructions="",
        path=directory / "SKILL.md",
    )


def load(skill: Skill, files: dict[str, str | bytes]) -> SkillSuite:
    paths = []
    for relative, content in files.items():
        path = skill.directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content), encoding="utf-8")
        if relative.startswith("evals/") and relative.count("/") == 1:
            paths.append(path)
    return load_suite(skill, sorted(paths))


def test_evals_json_becomes_a_judged_case_with_its_files_seeded(skill: Skill) -> None:
    document = {
        "skill_name": "order-support",
        "evals": [
            {
                "id": 1,
                "prompt": "Find the top 3 months.",
                "expected_output": "A bar chart of three months.",
                "files": ["evals/files/sales.csv"],
                "expectations": ["The chart shows exactly 3 months"],
            }
        ],
    }
    suite = load(
        skill,
        {
            "evals/files/sales.csv": "month,revenue\njan,3\n",
            "evals/evals.json": b"\xef\xbb\xbf" + json.dumps(document).encode(),
        },
    )

    (loaded,) = suite.cases
    case = loaded.case
    assert case.name == "eval-1"
    assert case.task == "Find the top 3 months."
    assert case.judge is not None
    assert case.judge.rubric == ["The chart shows exactly 3 months"]
    assert case.judge.expected == "A bar chart of three months."
    assert case.workspace is not None
    assert case.workspace.files == {"evals/files/sales.csv": "month,revenue\njan,3\n"}


def test_an_eval_without_files_gets_no_workspace(skill: Skill) -> None:
    suite = load(
        skill,
        {
            "evals/evals.json": json.dumps(
                {"evals": [{"id": "a", "prompt": "p", "assertions": ["x"]}]}
            )
        },
    )

    assert suite.cases[0].case.workspace is None


def test_one_anchored_tools_list_resolves_in_every_case_that_aliases_it(skill: Skill) -> None:
    suite = load(
        skill,
        {
            "shared/tools.yaml": """\
                tools:
                  - name: lookup_order
                    description: Look up an order
                    parameters: {order_id: string}
                """,
            "evals/cases.yaml": """\
                tool_libraries: [../shared/tools.yaml]
                cases:
                  - name: first
                    task: t
                    tools: &tools
                      - ref: lookup_order
                        returns: scripted
                  - name: second
                    task: t
                    tools: *tools
                """,
        },
    )

    for loaded in suite.cases:
        (tool,) = loaded.case.tools
        assert (tool.name, tool.description, tool.returns) == (
            "lookup_order",
            "Look up an order",
            "scripted",
        )


def test_yaml_1_1_words_stay_text_and_only_true_false_are_booleans(skill: Skill) -> None:
    suite = load(
        skill,
        {
            "evals/cases.yaml": """\
                cases:
                  - name: words
                    task: t
                    tags: [yes, no, on, off, Yes, OFF]
                    assertions:
                      - kind: equals
                        value: no
                  - name: offered
                    task: t
                    mode: offered
                    trajectory: {skill_triggered: FALSE}
                """
        },
    )

    words, offered = (loaded.case for loaded in suite.cases)
    assert words.tags == ["yes", "no", "on", "off", "Yes", "OFF"]
    assert words.assertions[0].value == "no"
    assert offered.trajectory is not None
    assert offered.trajectory.skill_triggered is False


@pytest.mark.parametrize(
    "line",
    [
        "It proposes a mock for the HTTP client",
        "It names the tool it would use",
        "The mockup has three panels",
        "The toolset is listed",
        "It mocks the response object in the test it writes",
    ],
)
def test_a_rubric_line_about_mocks_or_tools_in_general_is_kept(skill: Skill, line: str) -> None:
    text = f"cases:\n  - name: x\n    task: t\n    judge:\n      rubric: [{json.dumps(line)}]\n"

    suite = load(skill, {"evals/cases.yaml": text})

    (loaded,) = suite.cases
    assert loaded.case.judge is not None
    assert loaded.case.judge.rubric == [line]  # kept as written, not refused nor rewritten


def test_the_placeholder_in_a_comment_is_ignored_but_not_in_a_quoted_value(skill: Skill) -> None:
    commented = "cases:\n  - name: x  # TODO(skill-lens)\n    task: t\n"
    (loaded,) = load(skill, {"evals/cases.yaml": commented}).cases
    assert (loaded.case.name, loaded.case.task) == ("x", "t")

    quoted = "cases:\n  - name: x\n    task: '# TODO(skill-lens)'\n"
    with pytest.raises(AuthoringError, match=r"placeholder TODO\(skill-lens\)"):
        load(skill, {"evals/cases.yaml": quoted})


def test_a_placeholder_in_any_case_is_reported_before_a_broken_import(skill: Skill) -> None:
    text = """\
        tool_libraries: [../missing.yaml]
        cases:
          - name: first
            task: t
            tools: [{ref: lookup_order}]
          - name: second
            task: TODO(skill-lens)
        """

    with pytest.raises(AuthoringError) as caught:
        load(skill, {"evals/cases.yaml": text})

    assert caught.value.where.case_name == "second"
    assert caught.value.where.field == "task"


@pytest.mark.parametrize(
    ("first", "second", "shadowed"),
    [
        ("{n: 1}", "{n: true}", False),  # a boolean never equals a number
        ('{n: "1"}', "{n: 1}", False),  # nor does text
        ("{n: 1, m: 2}", "{n: 1}", False),  # broader after narrower can still answer
        ("{n: 1}", "{n: 1.0}", True),  # 1 equals 1.0
        ("{n: {a: 1}}", "{n: {a: 1, b: 2}}", True),  # narrowing a nested mapping
        ("{n: [1, 2]}", "{n: [1, 2]}", True),
        ("{n: [1]}", "{n: [1, 2]}", False),  # lists match at equal length only
    ],
)
def test_which_lookup_entries_an_earlier_one_shadows(
    skill: Skill, first: str, second: str, shadowed: bool
) -> None:
    text = f"""\
        cases:
          - name: x
            task: t
            tools:
              - name: lookup
                input_schema: {{type: object}}
                returns:
                  - when: {first}
                    value: one
                  - when: {second}
                    value: two
        """
    if not shadowed:
        assert load(skill, {"evals/cases.yaml": text}).cases
        return
    with pytest.raises(
        AuthoringError, match="this entry of tool 'lookup' can never answer"
    ) as caught:
        load(skill, {"evals/cases.yaml": text})
    assert caught.value.where.field == "tools[0].returns[1]"
