"""The strict YAML reader: typing of scalars, duplicates, aliases, merges, marks."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.yamlload import MarkedDict, MarkedList, load_yaml_text

FILE = Path("cases.yaml")


def load(text: str) -> object:
    return load_yaml_text(text, FILE)


def test_only_true_and_false_are_booleans() -> None:
    data = load("v: [yes, No, on, OFF, y, true, False, TRUE]\n")
    assert data == {"v": ["yes", "No", "on", "OFF", "y", True, False, True]}


def test_numbers_nulls_and_dates() -> None:
    data = load("v: [1, -2, +3, 1_000, 0x1f, 1.5, .5, 1e3, .inf, ~, null, '', 2024-01-01, 1:20]\n")
    assert data == {
        "v": [
            1,
            -2,
            3,
            1000,
            31,
            1.5,
            0.5,
            1000.0,
            float("inf"),
            None,
            None,
            "",
            "2024-01-01",
            "1:20",
        ]
    }


def test_quoted_and_tagged_scalars_stay_text() -> None:
    assert load("a: '12'\nb: \"true\"\nc: !!str 7\nd: |\n  x\n") == {
        "a": "12",
        "b": "true",
        "c": "7",
        "d": "x\n",
    }


def test_marks_give_lines_of_containers_keys_and_items() -> None:
    data = load("cases:\n  - name: a\n    task: t\n  - name: b\n")
    assert isinstance(data, MarkedDict)
    cases = data["cases"]
    assert isinstance(cases, MarkedList)
    assert cases.item_lines == [2, 4]
    assert cases[0].key_lines == {"name": 2, "task": 3}


def test_a_duplicate_key_is_refused_with_both_lines() -> None:
    with pytest.raises(AuthoringError) as info:
        load("cases:\n  - name: a\n    task: t\n    task: u\n")
    assert "duplicate key 'task' (first on line 3)" in info.value.message
    assert "cases.yaml:4" in info.value.message


def test_a_merge_supplies_keys_that_an_explicit_key_overrides() -> None:
    data = load("b: &x {k: 1, j: 3}\nc: {<<: *x, k: 2}\nd: {k: 5, <<: *x}\n")
    assert data == {"b": {"k": 1, "j": 3}, "c": {"k": 2, "j": 3}, "d": {"k": 5, "j": 3}}


def test_a_key_repeated_after_a_merge_override_is_still_a_duplicate() -> None:
    with pytest.raises(AuthoringError, match="duplicate key 'k'"):
        load("c: {<<: {k: 1}, k: 2, k: 3}\n")


def test_a_recursive_alias_is_an_authoring_error() -> None:
    with pytest.raises(AuthoringError, match="recursive anchor"):
        load("a: &x [*x]\n")


@pytest.mark.parametrize(("text", "hint"), [("g: *.md\n", "'*'"), ("g: [a\n", "'['")])
def test_an_unquoted_pattern_names_the_quoting_fix(text: str, hint: str) -> None:
    with pytest.raises(AuthoringError) as info:
        load(text)
    assert "not valid YAML" in info.value.message
    assert hint in info.value.message


def test_explicit_tags_type_by_the_plain_rules_and_keep_text_they_do_not_spell() -> None:
    text = (
        "a: !!bool true\nb: !!bool yes\nc: !!int 0x1f\nd: !!int 1.5\ne: !!float 1\n"
        "f: !!float .inf\ng: !!null ~\nh: !!null x\ni: !!int true\n"
    )
    assert load(text) == {
        "a": True,
        "b": "yes",
        "c": 31,
        "d": "1.5",
        "e": 1.0,
        "f": float("inf"),
        "g": None,
        "h": "x",
        "i": "true",
    }
