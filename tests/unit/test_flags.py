"""The one table of flags (issue 32): it declares the options, reads their values and
names a refused value's flag; nothing else keeps a list of them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pytest_skill_lens.plugin.flags import BY_KEY, FLAGS, flag_names, overrides
from pytest_skill_lens.settings import ConfigError, Settings, load_settings


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


@pytest.mark.parametrize(
    ("dest", "text", "said"),
    [
        ("record", "sometimes", "must be one of 'none', 'once' or 'all', got 'sometimes'"),
        ("product_sandbox", "maybe", "must be one of 'auto', 'required' or 'off', got 'maybe'"),
        ("baseline", "sham", "must name arms from 'none', 'previous' and 'placebo'; 'sham'"),
        ("baseline", "none,none", "must name each baseline arm once; 'none' is named twice"),
    ],
)
def test_a_choice_is_checked_once_by_settings_naming_the_flag(
    dest: str, text: str, said: str
) -> None:
    # The flag's reader only parses (a comma list into arms); the setting says what it takes.
    given = {flag.dest: None for flag in FLAGS} | {f"skill_lens_{dest}": text}
    read = overrides(SimpleNamespace(**given))
    assert read[dest] == (text.split(",") if "," in text else text)
    with pytest.raises(ConfigError) as refused:
        load_settings(None, read, flag_names(), products=[])
    flag = flag_names()[dest]
    assert refused.value.message.startswith(f"{flag} {said}")
    assert refused.value.fix is not None and refused.value.fix.startswith(f"give {flag} ")


def test_an_empty_choice_on_the_flag_is_refused_though_the_file_may_leave_it_unset() -> None:
    given = {flag.dest: None for flag in FLAGS} | {"skill_lens_record": ""}
    with pytest.raises(pytest.exit.Exception) as refused:
        overrides(SimpleNamespace(**given))
    assert refused.value.returncode == 2
    assert "--skill-lens-record needs a value: one of none, once, all; got ''" in str(
        refused.value.msg
    )
    assert load_settings(None, {"record": ""}, products=[]).record == ""  # the file's unset


def test_a_runner_named_twice_is_refused_once_by_settings_naming_the_flag() -> None:
    given = {flag.dest: None for flag in FLAGS} | {"skill_lens_runners": ["fake", "fake"]}
    with pytest.raises(ConfigError) as refused:
        load_settings(None, overrides(SimpleNamespace(**given)), flag_names(), products=[])
    assert refused.value.message.startswith(
        "--skill-lens-runner must name each runner once; runner 'fake' is named twice, "
        "got ['fake', 'fake']"
    )
    assert refused.value.fix == (
        "give --skill-lens-runner another value: it must name each runner once "
        "(docs/configuration.md)"
    )


def test_what_was_not_given_overrides_nothing() -> None:
    given = {flag.dest: None for flag in FLAGS} | {"skill_lens_runners": []}
    assert set(overrides(SimpleNamespace(**given)).values()) == {None}
