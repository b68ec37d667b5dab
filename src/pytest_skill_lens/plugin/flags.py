"""Every ``--skill-lens-*`` flag in one table: its option, how its value is read, and the
``skill-lens.toml`` key it overrides.

:mod:`.options` declares the options from it, :mod:`.configure` merges them from it
(flag > ``skill-lens.toml`` > default) and names a refused value's flag from it. Values
are taken as text and read here, not by argparse: argparse would turn a bad value into
pytest's usage error (exit 4), while a mistake in a skill-lens flag is a user error that
exits 2 with the fix. Light on purpose: options are declared in every pytest run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

import pytest

from .run_config import ChangedAsk, Shard

Read = Callable[["Flag", Any], Any]  # the flag and what argparse kept -> the value


def user_error(message: str, fix: str | None = None) -> NoReturn:
    """Stop the run with exit 2, the mistake and its fix (before anything is spent)."""
    text = f"skill-lens: {message}"
    if fix:
        text += f"\n  fix: {fix}"
    pytest.exit(text, returncode=2)


def as_given(flag: Flag, value: Any) -> Any:
    return value


def _number(flag: Flag, text: str | None, *, whole: bool = False) -> Any:
    if text is None:
        return None
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        user_error(f"{flag.option} expects {kind}, got {text!r}")
    if not math.isfinite(value):
        user_error(f"{flag.option} must be a finite number, got {text!r}")
    return value


# A flag that overrides a setting is only parsed here: its bounds are the setting's,
# checked once where it is declared (settings.py), in the same words for the file.
def number(flag: Flag, text: str | None) -> float | None:
    return _number(flag, text)  # type: ignore[no-any-return]


def whole(flag: Flag, text: str | None) -> int | None:
    return _number(flag, text, whole=True)  # type: ignore[no-any-return]


def positive(flag: Flag, text: str | None) -> int | None:
    """A whole number of 1 or more, for a flag no setting declares."""
    value = whole(flag, text)
    if value is not None and value < 1:
        user_error(f"{flag.option} must be 1 or more, got {value}")
    return value


def repeat(flag: Flag, text: str | None) -> int | str | None:
    """``N``, ``auto`` or ``auto:N`` (repeat_spec.py): a count, or ``auto:N`` as written.

    A whole number is only parsed: its bound is the setting's, as for every count."""
    if text is None:
        return None
    if text.strip().lstrip("+-").isdigit():
        return int(text)
    from ..repeat_spec import RepeatError, parse_repeat

    try:
        spec = parse_repeat(text)
    except RepeatError as exc:
        user_error(f"{flag.option} {exc.problem}", exc.fix)
    return spec.text if spec.auto else spec.count


# A choice is only parsed here: which values it takes is the setting's (a Literal, or the
# baseline's validator), checked once in Settings and refused naming the flag. The one
# thing only the flag knows: in the file an empty value leaves the setting unset, and a
# flag given an empty value is a mistake.
def choice(flag: Flag, text: str | None) -> str | None:
    if text is not None and not text:
        user_error(f"{flag.option} needs a value: one of {', '.join(flag.choices)}; got ''")
    return text


def arms(flag: Flag, text: str | None) -> str | list[str] | None:
    """One baseline arm, or several comma-separated (``none,placebo``): a list."""
    if text is None or "," not in text:
        return choice(flag, text)
    return text.split(",")


def names(flag: Flag, given: list[str] | None) -> list[str] | None:
    return given if given else None  # repeatable; an empty list is no flag


def shard(flag: Flag, text: str | None) -> Shard | None:
    """``K/N``: this machine's shard K of N, 1 <= K <= N."""
    if text is None:
        return None
    fix = "give each of N machines its own K/N: 1/3, 2/3 and 3/3 for three (docs/ci.md)"
    found = re.fullmatch(r"([0-9]+)/([0-9]+)", text)
    if found is None:
        user_error(f"{flag.option} expects K/N (shard K of N), got {text!r}", fix)
    index, count = int(found.group(1)), int(found.group(2))
    if count < 1 or not 1 <= index <= count:
        user_error(f"{flag.option} {text}: K must be from 1 to N, and N at least 1", fix)
    return Shard(index, count)


def changed(flag: Flag, given: str | bool | None) -> ChangedAsk | None:
    """``--skill-lens-changed`` alone (``True``: argparse's const) or with its REF.

    A REF that is really a path (``--skill-lens-changed skills``, the flag taking the
    skill path) is refused where git reads it (:mod:`..run.history.changed`), naming the fix."""
    if given is None:
        return None
    return ChangedAsk(None if given is True else str(given))


@dataclass(frozen=True)
class Flag:
    """One ``--skill-lens-<name>`` option."""

    name: str  # what follows --skill-lens- ("" for --skill-lens itself)
    metavar: str | None
    help: str
    key: str | None = None  # the setting it overrides; None: the run reads it itself
    read: Read = as_given
    choices: tuple[str, ...] = ()
    # switch: --x / --no-x; many: repeated; optional: --x alone, or --x VALUE
    kind: Literal["value", "switch", "many", "optional"] = "value"
    dest_name: str | None = None  # argparse's attribute, where it is not the name's

    @property
    def option(self) -> str:
        return f"--skill-lens-{self.name}" if self.name else "--skill-lens"

    @property
    def dest(self) -> str:
        return self.dest_name or "skill_lens_" + self.name.replace("-", "_")

    def value(self, option: Any) -> Any:
        """The flag's value as read (``None`` where it was not given)."""
        return self.read(self, getattr(option, self.dest))


def _choices(*values: str) -> dict[str, Any]:
    return {"choices": values, "metavar": "|".join(values), "read": choice}


FLAGS: tuple[Flag, ...] = (
    Flag(
        "",
        "PATH",
        "collect the skills under PATH (repeatable): a dir holding SKILL.md is one skill",
        kind="many",
        dest_name="skill_lens_paths",
    ),
    Flag(
        "runner",
        "NAME",
        "runner to perform cases (repeatable; replaces default_runner)",
        "default_runner",
        names,
        kind="many",
        dest_name="skill_lens_runners",
    ),
    Flag("model", "MODEL", "model id for keyed runners", "model"),
    Flag("base-url", "URL", "OpenAI-compatible endpoint for keyed runners", "base_url"),
    Flag("judge", "NAME", "judge that grades judge: rubrics (replaces judge in the toml)", "judge"),
    Flag("judge-model", "MODEL", "model id for a keyed judge", "judge_model"),
    Flag("evals", "PATH", "read eval cases from PATH instead of beside each SKILL.md"),
    Flag("config", "FILE", "skill-lens.toml to use (default: searched upward from the cwd)"),
    Flag(
        help="also run a baseline arm: no skill, the previous version, or neutral text "
        "(several side by side: none,placebo)",
        name="baseline",
        key="baseline",
        **{**_choices("none", "previous", "placebo"), "read": arms},
    ),
    Flag(
        "repeat",
        "N|auto[:N]",
        "run every case N times per arm; auto[:N]: in rounds until the gate's question is "
        "decided, N (10) at most",
        "repeat",
        repeat,
    ),
    Flag(
        "min-pass-rate",
        "RATE",
        "required candidate pass rate, 0.0-1.0 (default 1.0)",
        "min_pass_rate",
        number,
    ),
    Flag(
        "min-delta", "DELTA", "required pass-rate gain over the baseline arm", "min_delta", number
    ),
    Flag(
        "min-delta-confidence",
        "LEVEL",
        "also require the delta's interval at LEVEL (e.g. 0.95) to clear --skill-lens-min-delta",
        "min_delta_confidence",
        number,
    ),
    Flag(
        "min-case-pass-rate",
        "RATE",
        "required pass rate of every candidate case across its repetitions, 0.0-1.0",
        "min_case_pass_rate",
        number,
    ),
    Flag(
        "max-spend",
        "USD",
        "start no new case once this much has been spent",
        "max_spend_usd",
        number,
    ),
    Flag("concurrency", "N", "cases run at once", "concurrency", whole),
    Flag(
        "case-timeout",
        "S",
        "seconds one case's runner and judge calls may take (600)",
        "case_timeout_seconds",
        number,
    ),
    Flag(
        "progress-interval",
        "S",
        "seconds between progress lines when the output is no terminal (30; 0: no progress)",
        "progress_interval_seconds",
        number,
    ),
    Flag(
        "keep-workspace",
        None,
        "keep every case's workspace and print where",
        "keep_workspace",
        kind="switch",
    ),
    Flag(
        "allow-scripts",
        None,
        "let the agent run the skill's bundled scripts",
        "allow_scripts",
        kind="switch",
    ),
    Flag(
        help="how product runners are contained",
        name="product-sandbox",
        key="product_sandbox",
        **_choices("auto", "required", "off"),
    ),
    Flag(
        "full-output",
        None,
        "print whole outputs in failure reports (no 500-char cap)",
        "full_output",
        kind="switch",
    ),
    Flag(
        "strict-skill-md",
        None,
        "make every SKILL.md warning an authoring error (exit 2)",
        "strict_skill_md",
        kind="switch",
    ),
    Flag("json", "PATH", "write the JSON report to PATH"),
    Flag("markdown", "PATH", "write a Markdown summary to PATH"),
    Flag(
        "markdown-max-chars",
        "N",
        "fit the Markdown summary into N characters",
        read=positive,
    ),
    Flag("html", "PATH", "write a self-contained HTML report to PATH"),
    Flag("shard", "K/N", "run only shard K of N, every case whole on one shard", read=shard),
    Flag(
        "changed",
        "REF",
        "run only the skills whose run could differ from REF (default: the merge base with "
        "the default branch); deselect the others",
        read=changed,
        kind="optional",
    ),
    Flag(
        help="cassettes: replay only (none), record what is missing (once), re-record (all)",
        name="record",
        key="record",
        **_choices("none", "once", "all"),
    ),
    Flag(
        "cassettes",
        "DIR",
        "where cassettes live (default: cassettes/ by each eval file)",
        "cassettes",
    ),
    Flag(
        "reuse",
        "DIR",
        "reuse outcomes recorded by content in DIR (a directory CI caches); run the rest "
        "and add them to it",
        "reuse",
    ),
)
BY_NAME = {flag.name: flag for flag in FLAGS}
BY_KEY = {flag.key: flag for flag in FLAGS if flag.key is not None}


def overrides(option: Any) -> dict[str, Any]:
    """Each setting a flag gave, read (``None`` where it was not given: the file's or the
    default stands)."""
    return {key: flag.value(option) for key, flag in BY_KEY.items()}


def flag_names() -> dict[str, str]:
    """The flag of each setting, so a refused value names what was typed."""
    return {key: flag.option for key, flag in BY_KEY.items()}
