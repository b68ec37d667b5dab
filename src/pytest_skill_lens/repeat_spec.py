"""What ``--skill-lens-repeat`` (or ``repeat`` in skill-lens.toml) asks for: N runs, or auto:N.

``N`` (a whole number, 1 or more) runs every case N times. ``auto`` or ``auto:N`` runs the
cases in rounds until the gate's question is decided, N rounds at most (10 for ``auto``);
the rule is :mod:`pytest_skill_lens.gate.sequential`, the reasons in docs/comparing.md.

Only the parsing and its messages live here, for the flag and the file alike. The rounds
themselves are not wired yet: the options still take a whole number only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_AUTO_MAX = 10
_DIGITS = re.compile(r"[0-9]+")
_SHOWN = 40  # characters of a bad value quoted back; a hostile one may be any length
_EXAMPLES = "e.g. 3, auto or auto:10"


@dataclass(frozen=True)
class RepeatSpec:
    """``count`` runs of every case, or with ``auto`` at most ``count`` rounds."""

    count: int
    auto: bool = False

    @property
    def text(self) -> str:
        return f"auto:{self.count}" if self.auto else str(self.count)


class RepeatError(ValueError):
    """A bad repeat value: ``problem`` says what is wrong, ``fix`` what to write instead."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}; {fix}")
        self.problem = problem
        self.fix = fix


def parse_repeat(text: str) -> RepeatSpec:
    """``N``, ``auto`` or ``auto:N``, exactly (no spaces, no signs, lowercase)."""
    if text == "auto":
        return RepeatSpec(DEFAULT_AUTO_MAX, auto=True)
    if text.startswith("auto:"):
        return RepeatSpec(_rounds(text.removeprefix("auto:")), auto=True)
    if not _DIGITS.fullmatch(text):
        raise RepeatError(
            f"expects a whole number or auto[:N], got {_quoted(text)}",
            f"write a whole number of runs or auto with at most N rounds, {_EXAMPLES}",
        )
    return _runs(int(text))


def repeat_from_setting(value: object) -> RepeatSpec:
    """The ``repeat`` key of skill-lens.toml: a whole number, or the same text as the flag."""
    if isinstance(value, str):
        return parse_repeat(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return _runs(value)
    raise RepeatError(
        f"expects a whole number or auto[:N], got {_quoted(repr(value))}",
        f'write repeat = 3 or repeat = "auto:10" ({_EXAMPLES})',
    )


def _runs(count: int) -> RepeatSpec:
    if count < 1:
        raise RepeatError(
            f"must be 1 or more, got {count}", "give a whole number of runs, 1 or more"
        )
    return RepeatSpec(count)


def _rounds(text: str) -> int:
    fix = "write auto (at most 10 rounds) or auto:N with N a whole number, 2 or more, e.g. auto:10"
    if not text:
        raise RepeatError("auto:N needs the most rounds to run after the colon", fix)
    if not _DIGITS.fullmatch(text):
        raise RepeatError(f"auto:N takes a whole number of rounds, got {_quoted(text)}", fix)
    if len(text) > 9:  # more rounds than any run will do; also keeps int() cheap
        raise RepeatError(f"auto:N takes a whole number of rounds, got {_quoted(text)}", fix)
    rounds = int(text)
    if rounds < 2:
        raise RepeatError(
            f"auto:N needs at least 2 rounds to stop early, got {rounds}",
            "write --skill-lens-repeat 1 for a single run, or auto:N with N of 2 or more",
        )
    return rounds


def _quoted(text: str) -> str:
    """The value as Python would print it, cut short: no control character gets through."""
    shown = text if len(text) <= _SHOWN else text[:_SHOWN] + "..."
    return repr(shown)
