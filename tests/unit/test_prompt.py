from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.run.models.prompt import (
    NEUTRAL_PROMPT,
    WORKSPACE_PREAMBLE,
    system_prompt,
    workspace_preamble,
)
from pytest_skill_lens.suite.skill import Skill


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


# --- the workspace preamble ---------------------------------------------------------------


def test_the_workspace_preamble_is_byte_identical_whatever_the_skill() -> None:
    pdf = skill("pdf", "Summarises PDFs.", "Read the file.")
    orders = skill("order-support", "Handles refunds.", "Look up the order first.")
    baseline = skill("order-support", "", "")
    preambles = {
        system_prompt(s, workspace=True).removeprefix(system_prompt(s))
        for s in (pdf, orders, baseline)
    }
    assert preambles == {"\n\n" + workspace_preamble()}
    assert workspace_preamble() == WORKSPACE_PREAMBLE


def test_the_preamble_names_no_skill_and_says_how_to_use_the_tools() -> None:
    text = workspace_preamble()
    for tool in ("list_files", "read_file", "write_file"):
        assert tool in text
    assert "working directory" in text
    for word in ("pdf", "order", "skill", "#"):
        assert word not in text.lower()


def test_without_a_workspace_there_is_no_preamble() -> None:
    pdf = skill("pdf", "Summarises PDFs.", "Read the file.")
    assert (
        system_prompt(pdf)
        == system_prompt(pdf, workspace=False)
        == "# pdf\n\nSummarises PDFs.\n\nRead the file."
    )
    assert "list_files" not in system_prompt(pdf)
    assert "list_files" not in system_prompt(skill("pdf"))
    assert (
        system_prompt(skill("pdf"), workspace=True) == NEUTRAL_PROMPT + "\n\n" + WORKSPACE_PREAMBLE
    )
