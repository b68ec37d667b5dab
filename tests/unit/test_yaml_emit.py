"""The hand-written YAML of the authoring tools: whatever a value holds, the plugin's loader
(and a stock YAML reader) reads back exactly that value, and no comment can end early."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_skill_lens.authoring.yaml_emit import (
    Todo,
    check_round_trip,
    comment,
    literal_block,
    mapping_lines,
    scalar,
)
from pytest_skill_lens.suite.yamlload import load_yaml_text

HOSTILE_TEXTS = [
    "",
    " ",
    "a: b",
    "a #b",
    "#start",
    "- x",
    "-",
    "? x",
    "*alias",
    "&anchor",
    "!tag",
    "%directive",
    "@at",
    "`tick",
    "[flow",
    "{flow",
    "yes",
    "No",
    "on",
    "null",
    "~",
    "true",
    "1.0",
    "0x1F",
    "1e3",
    ".inf",
    "2024-01-01",
    "'quoted'",
    '"double"',
    "trailing space ",
    "line\nbreak",
    "two\n\nbreaks\n\n",
    "  indented first\nline",
    "\nleading break",
    "ends with break\n",
    "crlf\r\nline",
    "tab\tinside",
    "\tleading tab\nx",
    "nel\x85here",
    "ls\u2028here",
    "ps\u2029here",
    "bom\ufeffhere",
    "esc\x1b[2Jhere",
    "nul\x00here",
    "del\x7fhere",
    "bidi\u202ehere",
    "nbsp\u00a0here",
    "emoji 🎉 and 中文",
    "x" * 1500,
    " \n",  # only a space and a break: no line of a block would hold text
    "  \n\t\n",
]


def _read(text: str) -> Any:
    return load_yaml_text(text, Path("t.yaml"))


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_a_hostile_string_reads_back_as_itself_as_a_value_and_as_a_key(text: str) -> None:
    data = {"value": text, text: "as a key", "list": [text]}
    document = "\n".join(mapping_lines(data, 0)) + "\n"
    assert _read(document) == data
    assert yaml.safe_load(document) == data  # a person's own YAML tools agree


@pytest.mark.parametrize("text", [t for t in HOSTILE_TEXTS if "\n" in t])
def test_text_with_line_breaks_is_a_literal_block_when_one_can_hold_it(text: str) -> None:
    lines = mapping_lines({"task": text}, 0)
    block = literal_block(text, 2)
    if "\r" in text or not text.strip() or "\x85" in text:
        assert block is None  # double-quoted, with escapes
        assert lines[0].startswith('task: "')
    else:
        assert block is not None
        assert lines[0].startswith("task: |")


def test_plain_scalars_are_only_boring_words() -> None:
    assert scalar("handles a common request") == "handles a common request"
    assert scalar("what is the capital of Egypt?") == "what is the capital of Egypt?"
    assert scalar("get-pull-request") == "get-pull-request"
    assert scalar("yes") == "'yes'"  # a stock YAML 1.1 reader would read a boolean
    assert scalar("it's") == "it's"
    assert scalar("a: b") == "'a: b'"
    assert scalar("1234") == "'1234'"
    assert scalar("tab\there") == '"tab\\there"'


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (-12, "-12"),
        (10**30, str(10**30)),
        (1.5, "1.5"),
        (1e20, "1.0e+20"),
        (1e-7, "1.0e-07"),
        (Todo(), "TODO(skill-lens)"),
    ],
)
def test_numbers_booleans_and_the_placeholder(value: Any, text: str) -> None:
    assert scalar(value) == text
    assert _read(f"v: {text}\n") == {"v": "TODO(skill-lens)" if isinstance(value, Todo) else value}


def test_a_placeholder_is_written_neutral_when_checking() -> None:
    data = {"tags": [Todo(neutral="resolved", note="delete me")]}
    assert mapping_lines(data, 0) == ["tags:", "  - TODO(skill-lens)  # delete me"]
    assert mapping_lines(data, 0, check=True) == ["tags:", "  - resolved"]


@pytest.mark.parametrize("text", ["a\nb", "x\x85y", "x\u2028y", "x\u2029y", "x\ry", "x\x0cy"])
def test_a_comment_holds_no_line_break_of_any_kind(text: str) -> None:
    made = comment(text)
    assert len(f"# {made}\nk: v\n".splitlines()) == 2
    assert _read(f"# {made}\nk: v\n") == {"k": "v"}


def test_the_round_trip_check_catches_a_document_that_says_something_else() -> None:
    check_round_trip("a: 1\n", {"a": 1})
    with pytest.raises(Exception, match="does not read back"):
        check_round_trip("a: 2\n", {"a": 1})


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",))),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(st.characters(exclude_categories=("Cs",))), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(deadline=None)  # examples: the profile's (tests/conftest.py)
@given(st.dictionaries(st.text(st.characters(exclude_categories=("Cs",))), json_values))
def test_any_json_document_reads_back_as_itself(data: dict[str, Any]) -> None:
    document = "\n".join(mapping_lines(data, 0)) + "\n" if data else "{}\n"
    assert _read(document) == data
