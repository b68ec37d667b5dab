"""Each bound of a setting is checked once, by the setting (issue 32 part 3): a value
from the file and the same value from its flag are refused in the same words, and the
flag's reader only parses the text."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_skill_lens.plugin.flags import BY_KEY, BY_NAME
from pytest_skill_lens.settings import load_settings
from pytest_skill_lens.suite.errors import ConfigError

BOUNDS = [
    ("repeat", 0, "must be 1 or more"),
    ("concurrency", -2, "must be 1 or more"),
    ("min_pass_rate", 1.5, "must be between 0.0 and 1.0"),
    ("min_case_pass_rate", -0.25, "must be between 0.0 and 1.0"),
    ("min_delta_confidence", 1.0, "must be more than 0 and less than 1"),
    ("max_spend_usd", 0.0, "must be more than 0"),
    ("case_timeout_seconds", -5.0, "must be more than 0"),
    ("progress_interval_seconds", -1.0, "must be at least 0"),
]


def refusal(path: Path | None, given: dict[str, object] | None = None) -> str:
    flags = {key: flag.option for key, flag in BY_KEY.items()}
    with pytest.raises(ConfigError) as refused:
        load_settings(path, given, flags, products=())
    return refused.value.problem


@pytest.mark.parametrize(("key", "value", "words"), BOUNDS)
def test_a_bound_reads_the_same_from_the_file_and_from_its_flag(
    tmp_path: Path, key: str, value: float, words: str
) -> None:
    config = tmp_path / "skill-lens.toml"
    config.write_text(f"{key} = {value!r}\n", encoding="utf-8")
    assert refusal(config) == f"{key} {words}, got {value!r}"
    assert refusal(None, {key: value}) == f"{BY_KEY[key].option} {words}, got {value!r}"


@pytest.mark.parametrize(("key", "value", "words"), BOUNDS)
def test_a_flag_reads_its_value_and_leaves_the_bound_to_the_setting(
    key: str, value: float, words: str
) -> None:
    flag = BY_KEY[key]
    assert flag.value(SimpleNamespace(**{flag.dest: str(value)})) == value


def test_the_other_bounded_settings_use_the_same_words(tmp_path: Path) -> None:
    config = tmp_path / "skill-lens.toml"
    config.write_text("max_files = 0\n", encoding="utf-8")
    assert refusal(config) == "max_files must be 1 or more, got 0"
    config.write_text("per_skill_min_confidence = 0.0\n", encoding="utf-8")
    assert (
        refusal(config) == "per_skill_min_confidence must be more than 0 and less than 1, got 0.0"
    )
    config.write_text("[per_skill_min]\ngreet = 2.0\n", encoding="utf-8")
    assert refusal(config) == "per_skill_min.greet must be between 0.0 and 1.0, got 2.0"


def test_a_flag_no_setting_declares_checks_its_own_bound() -> None:
    flag = BY_NAME["markdown-max-chars"]
    with pytest.raises(pytest.exit.Exception) as refused:
        flag.value(SimpleNamespace(**{flag.dest: "0"}))
    assert "--skill-lens-markdown-max-chars must be 1 or more, got 0" in str(refused.value.msg)
