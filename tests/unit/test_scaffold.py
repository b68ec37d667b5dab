"""The ``init`` scaffold's pure parts: the file name, where it goes, which skills a batch
writes for, and a text the loader refuses until every placeholder is filled."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.authoring.scaffold import (
    Pending,
    Skipped,
    plan_batch,
    safe_name,
    scaffold_target,
    scaffold_text,
    skill_files_under,
)
from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.loader import load_suite
from pytest_skill_lens.suite.rules import PLACEHOLDER
from pytest_skill_lens.suite.skill import load_skill
from pytest_skill_lens.suite.yamlload import load_yaml_text
from scaffold_fill import fill


def _skill(root: Path, name: str, frontmatter: str | None = None) -> Path:
    directory = root / name
    directory.mkdir(parents=True)
    front = frontmatter if frontmatter is not None else f"name: {name}\ndescription: Does {name}.\n"
    (directory / "SKILL.md").write_text(f"---\n{front}---\nDo it.\n", encoding="utf-8")
    return directory


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("order-support", "order-support"),
        ("Order Support", "Order-Support"),
        ("café au lait", "caf-au-lait"),
        ("a//b::c", "a-b-c"),
        ("..hidden.", "hidden"),
        ("-._", "_"),
        ("---", "skill"),
        ("日本語", "skill"),
        ("v1.2_beta", "v1.2_beta"),
    ],
)
def test_safe_name(name: str, expected: str) -> None:
    assert safe_name(name) == expected


def test_the_scaffold_goes_to_evals_unless_eval_yaml_files_sit_beside_skill_md(
    tmp_path: Path,
) -> None:
    plain = load_skill(_skill(tmp_path, "plain") / "SKILL.md")
    assert scaffold_target(plain) == plain.directory / "evals" / "plain.eval.yaml"

    beside = _skill(tmp_path, "beside")
    (beside / "old.eval.yaml").write_text("cases: []\n", encoding="utf-8")
    assert scaffold_target(load_skill(beside / "SKILL.md")) == beside / "beside.eval.yaml"

    both = _skill(tmp_path, "both")
    (both / "old.eval.yaml").write_text("cases: []\n", encoding="utf-8")
    (both / "evals").mkdir()  # discovery reads evals/ then, so the scaffold goes there
    assert scaffold_target(load_skill(both / "SKILL.md")) == both / "evals" / "both.eval.yaml"


def test_the_target_is_named_after_the_frontmatter_name(tmp_path: Path) -> None:
    directory = _skill(tmp_path, "dir", "name: Refund Desk\n")
    target = scaffold_target(load_skill(directory / "SKILL.md"))
    assert target == directory / "evals" / "Refund-Desk.eval.yaml"


def test_batch_plans_skills_by_name_and_skips_those_with_eval_files(tmp_path: Path) -> None:
    _skill(tmp_path, "zeta")
    done = _skill(tmp_path, "alpha")
    (done / "evals").mkdir()
    (done / "evals" / "a.yaml").write_text("cases: []\n", encoding="utf-8")
    (done / "evals" / "evals.json").write_text('{"evals": []}', encoding="utf-8")
    _skill(tmp_path / "nested" / "deeper", "mid")
    _skill(tmp_path / ".hidden", "ghost")  # pytest never collects it: no scaffold either
    _skill(tmp_path / "node_modules", "dep")
    plan = plan_batch(tmp_path)
    assert [(type(item).__name__, item.skill.name) for item in plan] == [
        ("Skipped", "alpha"),
        ("Pending", "mid"),
        ("Pending", "zeta"),
    ]
    skipped = plan[0]
    assert isinstance(skipped, Skipped) and skipped.eval_files == 2
    pending = plan[2]
    assert isinstance(pending, Pending)
    assert pending.target == tmp_path / "zeta" / "evals" / "zeta.eval.yaml"


def test_batch_never_follows_a_link_to_a_directory(tmp_path: Path) -> None:
    _skill(tmp_path, "real")
    (tmp_path / "real" / "loop").symlink_to(tmp_path)
    assert skill_files_under(tmp_path) == [tmp_path / "real" / "SKILL.md"]


def test_a_malformed_skill_md_stops_the_batch(tmp_path: Path) -> None:
    _skill(tmp_path, "good")
    _skill(tmp_path, "bad", "name: [unclosed\n")
    with pytest.raises(AuthoringError):
        plan_batch(tmp_path)


def test_the_scaffold_holds_five_cases_with_the_placeholder_in_every_author_value(
    tmp_path: Path,
) -> None:
    skill = load_skill(_skill(tmp_path, "order-support") / "SKILL.md")
    text = scaffold_text(skill)
    data = load_yaml_text(text, Path("s.yaml"))
    cases = data["cases"]
    assert [case.get("mode", "loaded") for case in cases] == [
        "loaded",
        "loaded",
        "offered",
        "offered",
        "loaded",
    ]
    assert all(case["task"] == PLACEHOLDER for case in cases)
    policy = cases[1]
    assert policy["trajectory"]["called"] == [PLACEHOLDER]
    assert policy["tools"][0]["parameters"] == {PLACEHOLDER: "string"}
    assert [c["trajectory"]["skill_triggered"] for c in cases[2:4]] == [True, False]
    produced = cases[4]
    assert produced["workspace"]["files"] == {PLACEHOLDER: PLACEHOLDER}
    assert [a["kind"] for a in produced["assertions"]] == ["file-produced", "contains"]


def test_the_scaffold_is_refused_until_filled_then_loads(tmp_path: Path) -> None:
    directory = _skill(tmp_path, "order-support")
    skill = load_skill(directory / "SKILL.md")
    target = directory / "evals" / "order-support.eval.yaml"
    target.parent.mkdir()
    text = scaffold_text(skill)
    target.write_text(text, encoding="utf-8")
    with pytest.raises(AuthoringError) as refused:
        load_suite(skill, [target])
    assert PLACEHOLDER in refused.value.message
    assert "case 'handles a common request'" in refused.value.message

    target.write_text(fill(text), encoding="utf-8")
    suite = load_suite(skill, [target])
    assert [loaded.name for loaded in suite.cases] == [
        "handles a common request",
        "holds the line on a policy edge",
        "reaches for the skill when it applies",
        "leaves an unrelated request alone",
        "writes the expected file",
    ]


def test_a_hostile_description_stays_inside_its_comment(tmp_path: Path) -> None:
    front = 'name: x\ndescription: "first\\u2028cases: [oops]\\nsecond"\n'
    skill = load_skill(_skill(tmp_path, "x", front) / "SKILL.md")
    data = load_yaml_text(scaffold_text(skill), Path("s.yaml"))
    assert len(data["cases"]) == 5
