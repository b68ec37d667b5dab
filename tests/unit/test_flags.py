"""The one table of flags (issue 32): it declares the options, reads their values and
names a refused value's flag; nothing else keeps a list of them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pytest_skill_lens.plugin.flags import BY_KEY, FLAGS, flag_names, overrides
from pytest_skill_lens.settings import Settings


def test_every_flag_of_the_table_is_declared_and_read_back_under_its_dest(
    pytestconfig: pytest.Config,
) -> None:
    # This very session has the plugin installed: its options are the table's.
    for flag in FLAGS:
        assert pytestconfig.getoption(flag.dest) == ([] if flag.name == "" else None)


def test_help_lists_every_flag_with_its_choices(pytester: pytest.Pytester) -> None:
    shown = pytester.runpytest("--help").stdout.str()
    for flag in FLAGS:
        assert flag.option in shown
        if flag.choices:
            assert "|".join(flag.choices) in shown


def test_every_setting_a_flag_overrides_is_a_setting_and_named_by_its_flag() -> None:
    assert set(BY_KEY) <= set(Settings.model_fields)
    assert flag_names()["max_spend_usd"] == "--skill-lens-max-spend"
    assert flag_names()["default_runner"] == "--skill-lens-runner"


def test_a_choice_outside_the_flags_choices_is_refused_naming_them() -> None:
    given = {flag.dest: None for flag in FLAGS} | {"skill_lens_record": "sometimes"}
    with pytest.raises(pytest.exit.Exception) as refused:
        overrides(SimpleNamespace(**given))
    assert refused.value.returncode == 2
    assert "--skill-lens-record must be one of none, once, all; got 'sometimes'" in str(
        refused.value.msg
    )


def test_what_was_not_given_overrides_nothing() -> None:
    given = {flag.dest: None for flag in FLAGS} | {"skill_lens_runners": []}
    assert set(overrides(SimpleNamespace(**given)).values()) == {None}
