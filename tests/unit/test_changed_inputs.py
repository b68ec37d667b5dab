"""The files a skill's run reads, as the loader resolved them (``--skill-lens-changed``'s map)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pytest_skill_lens.suite.inputs import skill_inputs
from pytest_skill_lens.suite.loader import load_suite
from pytest_skill_lens.suite.skill import Skill

LIBRARY = """\
tools:
  - name: lookup
    description: Finds an order.
    parameters: {id: string}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def make_skill(root: Path) -> Skill:
    skill_md = write(root / "skills/orders/SKILL.md", "---\nname: orders\ndescription: d\n---\n")
    return Skill(name="orders", description="d", instructions="", path=skill_md)


def test_a_tool_library_file_and_a_library_directory_are_inputs_of_the_skill(
    tmp_path: Path,
) -> None:
    skill = make_skill(tmp_path)
    library = write(tmp_path / "shared/tools.yaml", LIBRARY)
    write(tmp_path / "more/extra.yaml", LIBRARY.replace("lookup", "refund"))
    cases = write(
        skill.directory / "evals/cases.yaml",
        """\
        tool_libraries: [../../../shared/tools.yaml, ../../../more]
        cases:
          - name: a
            task: t
            tools: [{ref: lookup, returns: found}]
        """,
    )

    inputs = skill_inputs(load_suite(skill, [cases]))

    assert inputs.name == "orders"
    assert inputs.directory == skill.directory.resolve()
    assert inputs.paths == frozenset(
        {
            skill.directory.resolve(),
            cases.resolve(),
            library.resolve(),
            (tmp_path / "more").resolve(),
        }
    )


def test_an_eval_file_outside_the_skill_and_an_extra_path_are_inputs(tmp_path: Path) -> None:
    skill = make_skill(tmp_path)
    outside = write(tmp_path / "evals-elsewhere/orders.yaml", "cases:\n  - {name: a, task: t}\n")

    inputs = skill_inputs(load_suite(skill, [outside]), extra=[tmp_path / "evals-elsewhere"])

    assert inputs.paths == frozenset(
        {skill.directory.resolve(), outside.resolve(), (tmp_path / "evals-elsewhere").resolve()}
    )


def test_a_file_without_libraries_adds_none(tmp_path: Path) -> None:
    skill = make_skill(tmp_path)
    cases = write(skill.directory / "evals/cases.yaml", "cases:\n  - {name: a, task: t}\n")

    (loaded,) = load_suite(skill, [cases]).cases

    assert loaded.libraries == ()
