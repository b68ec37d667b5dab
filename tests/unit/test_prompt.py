from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.run.prompt import NEUTRAL_PROMPT, system_prompt
from pytest_skill_lens.spec.skill import Skill


def skill(name: str = "pdf", description: str = "", instructions: str = "") -> Skill:
    return Skill(name, description, instructions, Path("/skills") / name / "SKILL.md")


def test_name_description_and_instructions_in_that_order() -> None:
    prompt = system_prompt(skill("pdf", "Summarises PDFs.", "Read the file.\n\nThen summarise."))
    assert prompt == "# pdf\n\nSummarises PDFs.\n\nRead the file.\n\nThen summarise."


@pytest.mark.parametrize(
    ("description", "instructions", "expected"),
    [
        ("Summarises PDFs.", "", "# pdf\n\nSummarises PDFs."),
        ("", "Read the file.", "# pdf\n\nRead the file."),
        (
            "  Summarises PDFs.\n",
            "\nRead the file.\n\n",
            "# pdf\n\nSummarises PDFs.\n\nRead the file.",
        ),
    ],
)
def test_an_empty_part_leaves_no_blank_section(
    description: str, instructions: str, expected: str
) -> None:
    assert system_prompt(skill("pdf", description, instructions)) == expected


@pytest.mark.parametrize("blank", ["", "  \n\t", "\n\n"])
def test_an_empty_skill_gets_the_neutral_prompt_without_its_name(blank: str) -> None:
    prompt = system_prompt(skill("order-support", blank, blank))
    assert prompt == "You are a helpful assistant." == NEUTRAL_PROMPT
    assert "order-support" not in prompt


def test_the_rule_reads_the_skill_not_the_arm() -> None:
    # A baseline-variant skill that still has text is prompted like any other.
    text = Skill("pdf", "d", "i", Path("/x/SKILL.md"), variant="baseline")
    assert system_prompt(text) == "# pdf\n\nd\n\ni"
    empty = Skill("pdf", "", "", Path("/x/SKILL.md"), variant="candidate")
    assert system_prompt(empty) == NEUTRAL_PROMPT
