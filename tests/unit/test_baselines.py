"""What each skill's baseline arm acts with: the emptied skill, or its previous version."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pytest_skill_lens.gate.delta import BaselineNote
from pytest_skill_lens.plugin.baselines import (
    OFFERED_UNDER_NONE,
    BaselineArms,
    _withholding_the_same,
)
from pytest_skill_lens.run.models.prompt import NEUTRAL_PROMPT, system_prompt
from pytest_skill_lens.run.tools.bundle_tools import skill_bundle
from pytest_skill_lens.suite.loaded import LoadedCase
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill


def skill_at(directory: Path) -> Skill:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "references").mkdir(exist_ok=True)
    (directory / "references" / "style.md").write_text("house style\n", encoding="utf-8")
    text = "---\nname: greet\ndescription: Greets people.\nversion: '2'\n---\nSay hello.\n"
    (directory / "SKILL.md").write_text(text, encoding="utf-8")
    return Skill("greet", "Greets people.", "Say hello.", directory / "SKILL.md", version="2")


def loaded(mode: str) -> LoadedCase:
    case = EvalCase.model_validate({"name": "c", "task": "t", "mode": mode})
    return LoadedCase(case=case, file=Path("evals/cases.yaml"), line=1, index=0)


def test_the_none_baseline_keeps_the_name_and_nothing_else(tmp_path: Path) -> None:
    skill = skill_at(tmp_path / "greet")
    none = BaselineArms("none").skill_for(skill)
    assert isinstance(none, Skill)
    assert (none.name, none.path, none.variant) == ("greet", skill.path, "baseline")
    assert (none.description, none.instructions, none.version) == ("", "", None)
    assert system_prompt(none) == NEUTRAL_PROMPT  # the name never reaches the prompt
    assert not skill_bundle(none)  # and the bundle stays with the candidate
    assert skill_bundle(skill)


def test_an_offered_case_has_no_none_baseline_but_has_a_previous_one(tmp_path: Path) -> None:
    skill = skill_at(tmp_path / "greet")
    assert BaselineArms("none").case_note(skill, loaded("offered")) == BaselineNote(
        "greet", "skipped", OFFERED_UNDER_NONE, "c"
    )
    assert BaselineArms("none").case_note(skill, loaded("loaded")) is None
    assert BaselineArms("previous").case_note(skill, loaded("offered")) is None


def test_previous_outside_git_is_a_note_resolved_once(tmp_path: Path) -> None:
    skill = skill_at(tmp_path / "greet")
    arms = BaselineArms("previous")
    first = arms.skill_for(skill)
    assert isinstance(first, BaselineNote) and first.kind == "unavailable"
    assert "not inside a git repository" in first.reason
    (tmp_path / "greet" / "SKILL.md").unlink()  # a second resolution would now say "cannot read"
    assert arms.skill_for(skill) == first
    arms.close()
    arms.close()  # twice is harmless


def test_the_previous_bundle_withholds_what_the_candidate_withholds(tmp_path: Path) -> None:
    candidate = dataclasses.replace(
        skill_at(tmp_path / "now"),
        withheld=(tmp_path / "now" / "cases.yaml", tmp_path / "elsewhere.yaml"),
    )
    previous = skill_at(tmp_path / "then")
    moved = _withholding_the_same(previous, candidate)
    assert moved.withheld == (tmp_path / "then" / "cases.yaml",)
    assert _withholding_the_same(previous, skill_at(tmp_path / "plain")) is previous
