"""``convert``'s logic: each layout of ``evals.json`` found in the wild, what maps to a case
field, and everything else kept as a note beside its case (never silently dropped).

The fixtures are written here, in the shapes those files take; none is a copy of one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.authoring.convert_model import Conversion
from pytest_skill_lens.authoring.convert_render import render_conversion
from pytest_skill_lens.authoring.convert_shapes import convert_document
from pytest_skill_lens.authoring.json_input import InputError
from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.loader import load_suite
from pytest_skill_lens.suite.rules import PLACEHOLDER
from pytest_skill_lens.suite.skill import Skill, load_skill
from pytest_skill_lens.suite.yamlload import load_yaml_text

EXTRA_KEYS = {
    "skill_name": "csv-charts",
    "evals": [
        {
            "id": 1,
            "name": "charts the top months",
            "category": "charts",
            "context": "The user is an analyst: #1 in their team",
            "prompt": "Chart the top 3 months by revenue.",
            "expected_behavior": ["Reads the CSV", "Draws a bar chart"],
            "assertions": ["The chart shows exactly 3 months"],
        }
    ],
}
TRIGGERS_IN_EVALS = {
    "skill_name": "csv-charts",
    "evals": [
        {"id": "t1", "query": "make a bar chart of sales.csv", "should_trigger": True},
        {"id": "t2", "query": "what is the capital of Egypt?", "should_trigger": False},
    ],
}
BARE_ARRAY = [
    {"prompt": "Chart it.", "expected_output": "A chart of the data."},
    {"prompt": "Chart it again.", "assertions": ["Has a title"]},
]
ASSERTION_OBJECTS = {
    "evals": [
        {
            "id": 7,
            "prompt": "Summarise the CSV.",
            "assertions": [
                {"type": "contains", "value": "north"},
                {"kind": "not-contains", "value": "error"},
                {"type": "regex", "value": "\\d+ units"},
                {"type": "equals", "value": "done"},
                {"type": "llm_judge", "description": "The summary is one paragraph"},
                {"text": "Names every region"},
                {"type": "contains", "value": "x", "case_sensitive": False},
                {"type": "file_exists", "path": "out.png"},
                {"type": "llm_judge", "description": "weighted", "weight": 2},
            ],
        }
    ]
}
SKILL_AND_CASES = {
    "skill": "csv-charts",
    "cases": [{"name": "smoke", "task": "Chart sales.csv", "expectations": ["A chart exists"]}],
}
TRIGGER_BLOCK = {
    "skill_name": "csv-charts",
    "evals": [{"id": 1, "prompt": "Chart it.", "assertions": ["A chart"]}],
    "trigger_tests": {
        "should_trigger": ["chart my sales", {"query": "plot revenue by month", "note": "edge"}],
        "should_not_trigger": ["tell me a joke"],
    },
}
WHOLE_FILE_TRIGGERS = {
    "should_trigger": ["chart my sales"],
    "should_not_trigger": ["tell me a joke", "write a poem"],
}

# Entry keys that become case fields; every other key must appear in a note.
MAPPED = {"id", "name", "prompt", "query", "task", "should_trigger", "assertions"}
MAPPED |= {"expectations", "expected_output", "files", "tags"}


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    directory = tmp_path / "csv-charts"
    (directory / "evals" / "files" / "inputs").mkdir(parents=True)
    (directory / "SKILL.md").write_text(
        "---\nname: csv-charts\ndescription: Charts CSV files.\n---\nChart it.\n", encoding="utf-8"
    )
    (directory / "evals" / "files" / "sales.csv").write_text("month,revenue\njan,10\n", "utf-8")
    (directory / "evals" / "files" / "inputs" / "a.txt").write_text("alpha\n", "utf-8")
    (directory / "evals" / "files" / "inputs" / "b.txt").write_text("beta", "utf-8")
    (directory / "evals" / "files" / "blob.bin").write_bytes(b"\xff\x00\xfe")
    return load_skill(directory / "SKILL.md")


def _convert(value: Any, skill: Skill | None) -> tuple[Conversion, list[dict[str, Any]], str]:
    conversion = convert_document(value, "evals.json", skill.directory if skill else None)
    text = render_conversion(conversion, "evals.json")
    cases = load_yaml_text(text, Path("out.yaml"))["cases"]
    return conversion, cases, text


def _loads_once_resolved(conversion: Conversion, skill: Skill, tmp_path: Path) -> list[str]:
    probe = tmp_path / "probe.eval.yaml"
    probe.write_text(render_conversion(conversion, "evals.json", check=True), encoding="utf-8")
    return [loaded.name for loaded in load_suite(skill, [probe]).cases]


def test_extra_keys_are_notes_beside_the_case_and_mark_it(skill: Skill, tmp_path: Path) -> None:
    conversion, (case,), text = _convert(EXTRA_KEYS, skill)
    assert case == {
        "name": "charts the top months",
        "task": "Chart the top 3 months by revenue.",
        "tags": [PLACEHOLDER],
        "judge": {"rubric": ["The chart shows exactly 3 months"]},
    }
    assert '  #   category: "charts" -- a tag (under tags:)' in text
    assert '  #   context: "The user is an analyst: #1 in their team" -- fold it into task:' in text
    assert '  #   expected_behavior: ["Reads the CSV", "Draws a bar chart"] -- grade it' in text
    assert "  # from evals[0]; evals.json id: 1" in text
    assert "# The evals.json names the skill 'csv-charts'." in text
    assert conversion.declared_skill == "csv-charts"
    assert _loads_once_resolved(conversion, skill, tmp_path) == ["charts the top months"]


def test_should_trigger_entries_are_offered_cases_checked_by_skill_triggered(
    skill: Skill, tmp_path: Path
) -> None:
    conversion, cases, _ = _convert(TRIGGERS_IN_EVALS, skill)
    assert cases == [
        {
            "name": "eval-t1",
            "mode": "offered",
            "task": "make a bar chart of sales.csv",
            "trajectory": {"skill_triggered": True},
        },
        {
            "name": "eval-t2",
            "mode": "offered",
            "task": "what is the capital of Egypt?",
            "trajectory": {"skill_triggered": False},
        },
    ]
    assert conversion.marked == 0
    assert _loads_once_resolved(conversion, skill, tmp_path) == ["eval-t1", "eval-t2"]


def test_a_bare_array_is_a_list_of_evals_with_numbered_names(skill: Skill) -> None:
    _, cases, text = _convert(BARE_ARRAY, skill)
    assert [case["name"] for case in cases] == ["eval-1", "eval-2"]
    assert cases[0]["judge"] == {
        "expected": "A chart of the data.",
        "rubric": ["The output satisfies: A chart of the data."],  # as the loader reads one
    }
    assert "  # from [1]" in text


def test_assertion_objects_map_exactly_or_become_notes(skill: Skill, tmp_path: Path) -> None:
    conversion, (case,), text = _convert(ASSERTION_OBJECTS, skill)
    assert case["assertions"] == [
        {"kind": "contains", "value": "north"},
        {"kind": "not_contains", "value": "error"},
        {"kind": "regex", "value": "\\d+ units"},
        {"kind": "equals", "value": "done"},
    ]
    assert case["judge"] == {"rubric": ["The summary is one paragraph", "Names every region"]}
    assert case["tags"] == [PLACEHOLDER]
    notes = [line for line in text.splitlines() if line.startswith("  #   ")]
    assert [line.split(":")[0].strip("# ") for line in notes] == [
        "assertions[6]",
        "assertions[7]",
        "assertions[8]",
    ]
    assert '"case_sensitive": false' in notes[0]
    assert _loads_once_resolved(conversion, skill, tmp_path) == ["eval-7"]


def test_skill_and_cases_files_take_name_task_and_expectations(skill: Skill) -> None:
    conversion, (case,), _ = _convert(SKILL_AND_CASES, skill)
    assert conversion.declared_skill == "csv-charts"
    assert case == {
        "name": "smoke",
        "task": "Chart sales.csv",
        "judge": {"rubric": ["A chart exists"]},
    }


def test_a_trigger_block_under_any_key_adds_offered_cases(skill: Skill, tmp_path: Path) -> None:
    conversion, cases, text = _convert(TRIGGER_BLOCK, skill)
    assert [(c["name"], c.get("trajectory")) for c in cases] == [
        ("eval-1", None),
        ("should-trigger-1", {"skill_triggered": True}),
        ("should-trigger-2", {"skill_triggered": True}),
        ("should-not-trigger-1", {"skill_triggered": False}),
    ]
    assert "  # from trigger_tests.should_trigger[1]" in text
    assert '  #   note: "edge"' in text  # an extra key of a trigger entry is a note too
    assert _loads_once_resolved(conversion, skill, tmp_path)[1:] == [
        "should-trigger-1",
        "should-trigger-2",
        "should-not-trigger-1",
    ]


def test_a_whole_file_trigger_set(skill: Skill) -> None:
    _, cases, _ = _convert(WHOLE_FILE_TRIGGERS, skill)
    assert [(c["name"], c["task"], c["trajectory"]["skill_triggered"]) for c in cases] == [
        ("should-trigger-1", "chart my sales", True),
        ("should-not-trigger-1", "tell me a joke", False),
        ("should-not-trigger-2", "write a poem", False),
    ]


def test_generated_names_never_repeat_a_given_one(skill: Skill) -> None:
    value = [{"prompt": "a", "assertions": ["x"]}, {"name": "EVAL-1", "prompt": "b"}]
    _, cases, _ = _convert(value, skill)
    assert [case["name"] for case in cases] == ["eval-2", "EVAL-1"]


@pytest.mark.parametrize(
    "fixture",
    [EXTRA_KEYS, TRIGGERS_IN_EVALS, BARE_ARRAY, ASSERTION_OBJECTS, SKILL_AND_CASES, TRIGGER_BLOCK],
    ids=["extra-keys", "triggers", "array", "assertion-objects", "skill-cases", "trigger-block"],
)
def test_no_key_is_silently_dropped(fixture: Any, skill: Skill) -> None:
    _, _, text = _convert(fixture, skill)
    entries = (
        fixture
        if isinstance(fixture, list)
        else [entry for key in ("evals", "cases") for entry in fixture.get(key, [])]
    )
    for entry in entries:
        for key in set(entry) - MAPPED:
            assert f"#   {key}: " in text


def test_top_level_extras_are_header_notes_and_mark_the_first_case(skill: Skill) -> None:
    value = {
        "version": "2",
        "owner": {"team": "data"},
        "evals": [{"id": 1, "prompt": "p", "assertions": ["s"]}],
    }
    _, (case,), text = _convert(value, skill)
    assert '#   version: "2" --' in text
    assert '#   owner: {"team": "data"} --' in text
    assert case["tags"] == [PLACEHOLDER]
    assert "(the file's top level) -- resolve the notes in the file's header" in text


def test_files_are_read_into_the_workspace_a_folder_file_by_file(
    skill: Skill, tmp_path: Path
) -> None:
    value = {
        "evals": [
            {
                "id": 1,
                "prompt": "p",
                "assertions": ["s"],
                "files": ["evals/files/sales.csv", "evals/files/inputs"],
            }
        ]
    }
    conversion, (case,), _ = _convert(value, skill)
    assert case["workspace"] == {
        "files": {
            "evals/files/sales.csv": "month,revenue\njan,10\n",
            "evals/files/inputs/a.txt": "alpha\n",
            "evals/files/inputs/b.txt": "beta",
        }
    }
    assert "tags" not in case
    assert _loads_once_resolved(conversion, skill, tmp_path) == ["eval-1"]


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("evals/files/missing.csv", "does not exist"),
        ("evals/files/blob.bin", "is not UTF-8 text"),
        ("../outside.txt", "not a path inside the skill directory"),
        ("/etc/hostname", "not a path inside the skill directory"),
    ],
)
def test_a_file_that_cannot_be_read_is_a_note(skill: Skill, path: str, problem: str) -> None:
    value = [{"prompt": "p", "assertions": ["s"], "files": [path]}]
    _, (case,), text = _convert(value, skill)
    assert "workspace" not in case or not case["workspace"]["files"]
    assert f"#   files[0]: {_json(path)} -- {problem}" in text
    assert case["tags"] == [PLACEHOLDER]


def test_without_a_skill_files_are_notes(tmp_path: Path) -> None:
    _, (case,), text = _convert([{"prompt": "p", "files": ["a.csv"]}], None)
    assert "no SKILL.md was found" in text
    assert case["tags"] == [PLACEHOLDER]


def test_an_eval_with_nothing_to_check_is_marked(skill: Skill) -> None:
    _, (case,), text = _convert([{"prompt": "just run"}], skill)
    assert "#   (checks) -- nothing to check" in text
    assert case["tags"] == [PLACEHOLDER]


def test_an_eval_without_a_prompt_gets_the_placeholder_as_its_task(skill: Skill) -> None:
    _, (case,), text = _convert([{"id": 3, "assertions": ["s"]}], skill)
    assert case["task"] == PLACEHOLDER
    assert "#   prompt -- the entry has no prompt: write the task" in text


def test_the_resolved_file_is_still_refused_for_a_real_mistake(
    skill: Skill, tmp_path: Path
) -> None:
    conversion, _, _ = _convert(
        [{"prompt": "p", "assertions": [{"type": "regex", "value": "(x"}]}], skill
    )
    with pytest.raises(AuthoringError) as refused:
        _loads_once_resolved(conversion, skill, tmp_path)
    assert "assertions[0].value" in refused.value.message


@pytest.mark.parametrize("value", [{}, [], {"notes": "x"}, "evals", 3])
def test_a_file_with_no_evals_is_refused(value: Any) -> None:
    with pytest.raises(InputError, match="holds no evals"):
        convert_document(value, "evals.json", None)


def _json(text: str) -> str:
    return '"' + text + '"'


def test_hostile_keys_and_values_stay_inside_their_comments(skill: Skill) -> None:
    value = [
        {
            "prompt": "p",
            "assertions": ["s"],
            "x\ncases: []": "a",
            "ls\u2028- name: injected": "b\u2029c\x85d",
            "context": "ends # here: and\n  - name: injected too",
        }
    ]
    conversion, cases, text = _convert(value, skill)
    assert [case["name"] for case in cases] == ["eval-1"]
    assert "injected" not in "".join(
        line for line in text.splitlines() if not line.lstrip().startswith("#")
    )
    assert conversion.cases[0].notes[0].key == "context"


def test_nothing_to_check_is_noted_beside_other_notes(skill: Skill) -> None:
    _, (case,), text = _convert([{"prompt": "p", "category": "x"}], skill)
    assert "#   (checks) -- nothing to check" in text
    assert '#   category: "x"' in text
    assert case["tags"] == [PLACEHOLDER]  # one marker, however many notes
