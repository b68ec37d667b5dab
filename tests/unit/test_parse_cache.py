"""The content-keyed cache of parsed eval files."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.spec import loader
from pytest_skill_lens.spec.errors import AuthoringError
from pytest_skill_lens.spec.parse_cache import ParseCache

CASES = (
    "cases:\n  - name: greets\n    task: say hi\n"
    "    assertions:\n      - {kind: contains, value: hi}\n"
)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every eval file the loader really parses (a cache hit parses nothing)."""
    seen: list[Path] = []
    real = loader._parse_yaml_eval_file

    def spy(path: Path, text: str, skill_name: str | None) -> list[loader.LoadedCase]:
        seen.append(path)
        return real(path, text, skill_name)

    monkeypatch.setattr(loader, "_parse_yaml_eval_file", spy)
    return seen


def write(tmp_path: Path, text: str = CASES) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_second_load_of_the_same_text_is_served_from_the_cache(
    tmp_path: Path, parses: list[Path]
) -> None:
    cache = ParseCache(tmp_path / "cache")
    path = write(tmp_path)
    first = loader.load_yaml_eval_file(path, "greeting", cache)
    second = loader.load_yaml_eval_file(path, "greeting", cache)
    assert parses == [path]
    assert [c.case for c in second] == [c.case for c in first]
    assert second[0].line == 2 and second[0].file == path


def test_changed_text_or_skill_name_is_parsed_again(tmp_path: Path, parses: list[Path]) -> None:
    cache = ParseCache(tmp_path / "cache")
    path = write(tmp_path)
    loader.load_yaml_eval_file(path, "greeting", cache)
    write(tmp_path, CASES.replace("say hi", "say hello"))
    edited = loader.load_yaml_eval_file(path, "greeting", cache)
    assert edited[0].case.task == "say hello"
    loader.load_yaml_eval_file(path, "another-name", cache)
    assert len(parses) == 3


def test_a_file_importing_tool_libraries_is_never_cached(
    tmp_path: Path, parses: list[Path]
) -> None:
    cache = ParseCache(tmp_path / "cache")
    (tmp_path / "lib.yaml").write_text("tools:\n  - {name: t, returns: x}\n", encoding="utf-8")
    path = write(tmp_path, "tool_libraries: [lib.yaml]\n" + CASES)
    loader.load_yaml_eval_file(path, "greeting", cache)
    loader.load_yaml_eval_file(path, "greeting", cache)
    assert parses == [path, path]
    assert not (tmp_path / "cache").exists()


def test_an_authoring_error_is_never_cached(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    path = write(tmp_path, CASES.replace("assertions", "assertion"))
    for _ in range(2):
        with pytest.raises(AuthoringError, match="unknown key 'assertion'"):
            loader.load_yaml_eval_file(path, "greeting", cache)


def test_a_corrupt_slot_is_a_miss_not_a_crash(tmp_path: Path, parses: list[Path]) -> None:
    cache = ParseCache(tmp_path / "cache")
    path = write(tmp_path)
    loader.load_yaml_eval_file(path, "greeting", cache)
    for slot in (tmp_path / "cache").iterdir():
        slot.write_bytes(b"not a pickle")
    assert loader.load_yaml_eval_file(path, "greeting", cache)[0].name == "greets"
    assert parses == [path, path]
