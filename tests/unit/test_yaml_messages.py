"""What a YAML mistake, and a value quoted in any message, reads like.

libyaml names the parser's state ("found character that cannot start any token"), not
the character; the loader reads the text at the mark and says what happened. Values an
author wrote are quoted in messages, bounded and escaped, whatever they hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.suite.errors import AuthoringError, AuthoringErrors, Where
from pytest_skill_lens.suite.quoting import escaped, shown
from pytest_skill_lens.suite.yamlload import load_yaml_text

FILE = Path("skills/s/evals/cases.yaml")
TAB_PROBLEM = "not valid YAML: a tab character in the indentation (YAML indents with spaces only)"
TAB_FIX = (
    "replace the tab with spaces; many editors have a setting that inserts spaces for the Tab key"
)
ESCAPE_FIX = (
    "single-quote the value so backslashes stay as written (value: '\\d+'), or double the "
    'backslash inside double quotes ("\\\\d+")'
)


def refusal(text: str) -> AuthoringError:
    with pytest.raises(AuthoringError) as caught:
        load_yaml_text(text, FILE)
    return caught.value


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("cases:\n\t- name: a\n", 2),
        ("cases:\n  - name: a\n\ttask: b\n", 3),
        ("cases:\n  -\tname: a\n    task: b\n", 2),
        ("cases:\n  - name: a\n    tags:\n    \t- x\n", 4),
    ],
    ids=["a-tab-before-the-dash", "a-tab-before-a-key", "a-tab-after-the-dash", "spaces-then-tab"],
)
def test_a_tab_in_the_indentation_says_tab_and_how_to_fix_it(text: str, line: int) -> None:
    error = refusal(text)

    assert error.message == f"{FILE}:{line}: {TAB_PROBLEM}\n  fix: {TAB_FIX}"


def test_a_tab_inside_a_quoted_value_is_text() -> None:
    assert load_yaml_text('cases:\n  - name: a\n    task: "x\\ty"\n', FILE)["cases"][0] == {
        "name": "a",
        "task": "x\ty",
    }


@pytest.mark.parametrize(
    ("value", "escape"),
    [('"\\d+ orders"', "\\d"), ('"a\\.b"', "\\."), ('"[\\w-]+"', "\\w")],
    ids=["digit", "dot", "word"],
)
def test_an_unknown_escape_in_double_quotes_says_to_single_quote(value: str, escape: str) -> None:
    text = f"cases:\n  - name: a\n    assertions:\n      - kind: regex\n        value: {value}\n"

    error = refusal(text)

    assert error.message == (
        f"{FILE}:5: not valid YAML: the escape {escape} in a double-quoted value is not one "
        f"YAML knows\n  fix: {ESCAPE_FIX}"
    )


def test_the_single_quoted_form_the_fix_names_loads_the_regex_as_written() -> None:
    text = "cases:\n  - name: a\n    assertions:\n      - kind: regex\n        value: '\\d+'\n"

    assert load_yaml_text(text, FILE)["cases"][0]["assertions"][0]["value"] == "\\d+"


def test_other_yaml_mistakes_keep_the_generic_hint() -> None:
    error = refusal("cases:\n  - name: a\n    task: say: hi\n")

    assert error.message == (
        f"{FILE}:3: not valid YAML: mapping values are not allowed in this context\n"
        "  fix: check the indentation and quoting at that line; quote a value that starts "
        "with '*', '&', '[' or '{', or holds ': '"
    )


def test_a_number_past_pythons_digit_limit_is_refused_not_a_crash() -> None:
    error = refusal("cases:\n  - name: a\n    task: " + "9" * 5000 + "\n")

    assert error.message == (
        f"{FILE}:3, case 'a' (#1 in the file), field 'task': the number "
        f"'{'9' * 40}'... (5,000 characters) has more digits than Python reads (5,000)\n"
        "  fix: quote it if it is text; no count or limit needs that many digits"
    )


# --- quoting --------------------------------------------------------------------------------


def test_a_short_value_is_quoted_as_written() -> None:
    assert shown("report.md") == "'report.md'"
    assert shown("tool's output") == '"tool\'s output"'
    assert shown({"id": "1"}) == "{'id': '1'}"


def test_a_hostile_value_is_bounded_and_escaped() -> None:
    value = "\x1b[2J" + "a" * 1_000_000

    quoted = shown(value)

    assert quoted == repr(value[:120]) + "... (1,000,004 characters)"
    assert "\x1b" not in quoted and "\\x1b[2J" in quoted


def test_escaped_text_shows_hidden_characters_and_is_cut() -> None:
    assert escaped("ok\u202eko") == "ok\\u202eko"
    assert escaped("x" * 50, 10) == "x" * 10 + "... (50 characters)"


def test_every_part_of_a_message_is_escaped_and_bounded() -> None:
    error = AuthoringError(
        "bad \x1b[31m" + "p" * 5000,
        where=Where(FILE, 3, "n\x07" + "c" * 500, 0, "f\x1b" + "d" * 500),
        fix="fix \x1b",
    )

    message = error.message

    assert "\x1b" not in message and "\x07" not in message
    assert len(message) < 3000
    assert "case 'n\\x07" in message and "(502 characters)" in message


# --- several mistakes ------------------------------------------------------------------------


def mistake(file: str, line: int) -> AuthoringError:
    return AuthoringError(
        f"problem on {line}", where=Where(Path(file), line, field="task"), fix="do it"
    )


def test_several_mistakes_are_listed_per_file_in_the_order_the_files_came() -> None:
    errors = AuthoringErrors([mistake("a.yaml", 2), mistake("b.yaml", 4), mistake("a.yaml", 9)])

    assert errors.render("> ") == (
        "> a.yaml:2, field 'task': problem on 2\n  fix: do it\n"
        "> a.yaml:9, field 'task': problem on 9\n  fix: do it\n"
        "> b.yaml:4, field 'task': problem on 4\n  fix: do it"
    )
    assert (errors.problem, errors.where.line, errors.fix) == ("problem on 2", 2, "do it")


def test_past_ten_mistakes_in_a_file_the_rest_are_counted() -> None:
    errors = AuthoringErrors([mistake("a.yaml", line) for line in range(1, 14)])

    lines = errors.render().splitlines()

    assert len([line for line in lines if line.startswith("a.yaml:")]) == 10
    assert lines[-1] == "...and 3 more in a.yaml (fix these and run again to see them)"
