"""Where discovery does not look, a file holding eval cases is named: the bounds of that look.

The pytester tests in tests/plugin/test_authoring_messages.py show the messages; these
check what is looked into, directly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.suite import discovery
from pytest_skill_lens.suite.discovery import misplaced_eval_files

CASES = "cases:\n  - name: a\n    task: t\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_nested_files_with_cases_are_named_nearest_first_and_data_is_left_alone(
    tmp_path: Path,
) -> None:
    read = [write(tmp_path / "evals/cases.yaml", CASES)]
    deep = write(tmp_path / "evals/a/b/deep.yml", CASES)
    near = write(tmp_path / "evals/z/near.yaml", CASES)
    write(tmp_path / "evals/a/data.yaml", "items:\n  cases: 2\n")  # no top-level cases:
    write(tmp_path / "evals/a/schema.json", '{"evals": 1}')  # JSON other than evals.json
    nested_json = write(tmp_path / "evals/z/evals.json", '{"evals": []}')

    found = [(m.path, m.fix) for m in misplaced_eval_files(tmp_path, read)]

    assert [path for path, _ in found] == [nested_json, near, deep]  # by name in a directory
    assert found[2][1] == (
        "move it to evals/deep.yml (discovery reads the files directly in evals/, "
        "not evals/a/b/), renaming it if that name is taken"
    )


def test_the_look_below_evals_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read = [write(tmp_path / "evals/cases.yaml", CASES)]
    for n in range(5):
        write(tmp_path / f"evals/a/data-{n}.yaml", "x: 1\n")
    late = write(tmp_path / "evals/b/late.yaml", CASES)
    assert [m.path for m in misplaced_eval_files(tmp_path, read)] == [late]

    monkeypatch.setattr(discovery, "_MISPLACED_FILES", 5)  # spent on evals/a/ before b/
    assert misplaced_eval_files(tmp_path, read) == []
    monkeypatch.setattr(discovery, "_MISPLACED_FILES", 500)
    monkeypatch.setattr(discovery, "_MISPLACED_DIRS", 1)  # evals/a/ only
    assert misplaced_eval_files(tmp_path, read) == []


def test_a_linked_directory_below_evals_is_not_followed(tmp_path: Path) -> None:
    outside = write(tmp_path.parent / f"{tmp_path.name}-outside/cases.yaml", CASES).parent
    read = [write(tmp_path / "skill/evals/cases.yaml", CASES)]
    (tmp_path / "skill/evals/linked").symlink_to(outside, target_is_directory=True)

    assert misplaced_eval_files(tmp_path / "skill", read) == []
