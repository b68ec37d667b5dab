from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_skill_lens.matching import (
    RAW_KEY,
    clip,
    contains,
    equals,
    explain,
    quote,
    render_json,
)


@pytest.mark.parametrize(
    ("expected", "arguments", "matched"),
    [
        ({"status": "active"}, {"status": "active", "limit": 5}, True),
        ({"status": "active"}, {"status": "all"}, False),
        ({"status": "active"}, {}, False),
        ({"filter": {"state": "open"}}, {"filter": {"state": "open", "page": 2}}, True),
        ({"filter": {"state": "open"}}, {"filter": {"state": "closed"}}, False),
        ({"filter": {"state": "open"}}, {"filter": "open"}, False),
        ({"labels": ["bug"]}, {"labels": ["bug"]}, True),
        ({"labels": ["bug"]}, {"labels": ["bug", "urgent"]}, False),
        ({"labels": ["bug", "urgent"]}, {"labels": ["bug"]}, False),
        ({"labels": ["urgent", "bug"]}, {"labels": ["bug", "urgent"]}, False),
        ({"items": [{"id": 1}]}, {"items": [{"id": 1, "name": "x"}]}, True),
        ({"items": [{"id": 1}]}, {"items": {"id": 1}}, False),
        ({"id": None}, {"id": None}, True),
        ({"id": None}, {"id": ""}, False),
    ],
)
def test_contains_is_a_subset_at_every_level(
    expected: dict[str, Any], arguments: dict[str, Any], matched: bool
) -> None:
    assert contains(expected, arguments) is matched


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ({"id": "1"}, {"id": 1}),
        ({"id": 1}, {"id": "1"}),
        ({"limit": 1}, {"limit": True}),
        ({"limit": True}, {"limit": 1}),
        ({"limit": 0}, {"limit": False}),
        ({"flag": False}, {"flag": 0}),
        ({"flag": True}, {"flag": 1.0}),
        ({"n": {"deep": 1}}, {"n": {"deep": True}}),
        ({"list": [1]}, {"list": [True]}),
        ({"answer": "yes"}, {"answer": True}),
    ],
)
def test_nothing_is_coerced(expected: dict[str, Any], actual: dict[str, Any]) -> None:
    assert not contains(expected, actual)
    assert not equals(expected, actual)


def test_a_boolean_equals_a_boolean() -> None:
    assert contains({"flag": True}, {"flag": True})
    assert not contains({"flag": True}, {"flag": False})


def test_an_integer_equals_the_same_float() -> None:
    assert contains({"n": 1}, {"n": 1.0})
    assert equals({"n": 1.0}, {"n": 1})
    assert not contains({"n": 1}, {"n": 1.5})


def test_equals_needs_exactly_the_named_keys() -> None:
    assert equals({"thread_id": 42, "body": "x"}, {"body": "x", "thread_id": 42})
    assert not equals({"thread_id": 42}, {"thread_id": 42, "body": "x"})
    assert not equals({"thread_id": 42, "body": "x"}, {"thread_id": 42})


def test_equals_is_exact_at_every_nested_level() -> None:
    expected = {"filter": {"state": "open"}}
    assert equals(expected, {"filter": {"state": "open"}})
    assert not equals(expected, {"filter": {"state": "open", "page": 2}})
    assert contains(expected, {"filter": {"state": "open", "page": 2}})
    in_list = {"items": [{"id": 1}]}
    assert not equals(in_list, {"items": [{"id": 1, "name": "x"}]})


def test_equals_empty_means_no_arguments() -> None:
    assert equals({}, {})
    assert not equals({}, {"a": 1})


@pytest.mark.parametrize("check", [contains, equals])
def test_unparsed_arguments_never_match(check: Any) -> None:
    raw = {RAW_KEY: '{"status": "active"'}
    assert not check({}, raw)
    assert not check({RAW_KEY: '{"status": "active"'}, raw)
    assert not contains({"status": "active"}, {**raw, "status": "active"})


def test_explain_says_where_and_what_differs() -> None:
    assert explain({"a": {"b": 1}}, {"a": {"b": True}}, exact=False) == (
        "$.a.b: expected 1 (integer), got true (boolean)"
    )
    assert explain({"id": "1"}, {"id": 1}, exact=False) == (
        '$.id: expected "1" (string), got 1 (integer)'
    )
    assert explain({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}}, exact=True) == (
        '$.a: unexpected key "c" (equals names every key)'
    )
    assert explain({"l": ["bug"]}, {"l": ["bug", "urgent"]}, exact=False) == (
        '$.l: expected a list of 1, got a list of 2: ["bug", "urgent"]'
    )
    assert explain({"odd key": 1}, {}, exact=False) == '$["odd key"]: missing (expected 1)'
    assert explain({"l": [1, 2]}, {"l": [1, 3]}, exact=False) == (
        "$.l[1]: expected 2 (integer), got 3 (integer)"
    )
    raw = explain({"a": 1}, {RAW_KEY: "oops"}, exact=False)
    assert raw is not None and "could not parse" in raw
    assert explain({"a": 1}, {"a": 1, "b": 2}, exact=False) is None


def test_arguments_that_are_not_a_mapping_do_not_match() -> None:
    assert not contains({"a": 1}, None)
    assert not contains({"a": 1}, ["a"])
    assert explain({"a": 1}, "a=1", exact=False) == '$: expected an object, got "a=1"'


def test_render_json_sorts_keys_and_shows_what_json_cannot_encode() -> None:
    assert render_json({"b": 1, "a": [True, None]}) == '{"a": [true, null], "b": 1}'

    class Odd:
        def __str__(self) -> str:
            return "odd!"

    assert render_json({"x": Odd()}) == '{"x": "odd!"}'
    assert render_json({1: "a", "b": 2}) == '{"1": "a", "b": 2}'  # unsortable keys still render


def test_clip_states_how_much_was_removed() -> None:
    assert clip("abc", 3) == "abc"
    assert clip("abcdef", 2) == "ab... [4 characters removed]"
    assert quote("a\nb") == '"a\\nb"'
    assert quote("abcdef", 2) == '"ab"... [4 characters removed]'


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=10,
)


@given(st.dictionaries(st.text(min_size=1, max_size=3), json_values, max_size=4))
def test_a_value_matches_itself(arguments: dict[str, Any]) -> None:
    if RAW_KEY in arguments:
        return
    assert contains(arguments, arguments)
    assert equals(arguments, arguments)
