"""What a name may hold: one line of text that reads as what it is.

A case name is part of a pytest node id, and case, skill, tag and tool names reach
the terminal, JUnit XML and the Markdown report. A control character there acts
on the reader's screen (``ESC[2J`` clears it) or splits a line; a bidirectional
override or another invisible format character makes a name read differently
from what it is ("Trojan Source", CVE-2021-42574), in a pull request as in a
report. Such a name is refused, and shown escaped (``repr``) in the message.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING

from .errors import AuthoringError
from .quoting import shown

if TYPE_CHECKING:
    from .model import EvalCase

# Cc: C0 (tab and newline included), DEL, C1. Cf: bidi controls, zero-width
# characters, the BOM, tag characters. Cs: a lone surrogate, which no report can
# encode. Zl, Zp: line and paragraph separators.
_HIDDEN = {
    "Cc": "the control character",
    "Cf": "the invisible format character",
    "Cs": "the lone surrogate",
    "Zl": "the line break",
    "Zp": "the line break",
}
HIDDEN_FIX = (
    "remove it: a name must be one line of visible text (names are shown in node ids, "
    "the terminal and every report)"
)
SEPARATOR_FIX = "write the name without '::' (a single ':' or a '-' reads the same)"
BRACKET_FIX = "write the name without '[' and ']' (use '(' and ')' instead)"
SPACE_FIX = "remove the space at the start or end"

Fail = Callable[[str, str, str | None], AuthoringError]


def _show(char: str) -> str:
    name = unicodedata.name(char, "")  # control characters have no name
    code = f"U+{ord(char):04X}"
    return f"{char!r} ({code} {name})" if name else f"{char!r} ({code})"


def hidden_problem(text: str, *, spaces: bool = True) -> str | None:
    """What the first character no reader sees as written is, or ``None``.

    With ``spaces``, a space other than U+0020 (a no-break space, an em space)
    counts too: in a name it makes two different names look the same.
    """
    if text.isascii() and text.isprintable():  # U+0020 to U+007E: nothing hidden
        return None
    for char in text:
        category = unicodedata.category(char)
        if category in _HIDDEN:
            return f"{_HIDDEN[category]} {_show(char)}"
        if spaces and category == "Zs" and char != " ":
            return f"the space {_show(char)}, which is not a plain space"
    return None


def name_problem(label: str, name: str) -> tuple[str, str] | None:
    """The problem and the fix for a name shown in reports (skill, tag, tool, version)."""
    hidden = hidden_problem(name)
    if hidden is not None:
        return f"{label} {shown(name)} holds {hidden}", HIDDEN_FIX
    return None


def case_name_problem(label: str, name: str) -> tuple[str, str] | None:
    """As :func:`name_problem`, plus what keeps a node id from selecting the case.

    pytest splits a node id at ``::`` and reads everything from the first ``[``
    as the parameter part, so ``SKILL.md::<name>`` could not select a name holding
    either; a space at either end makes two names that read the same.
    """
    found = name_problem(label, name)
    if found is not None:
        return found
    if "::" in name:
        return f"{label} {shown(name)} holds '::', pytest's node id separator", SEPARATOR_FIX
    bracket = next((char for char in name if char in "[]"), None)
    if bracket is not None:
        return (
            f"{label} {shown(name)} holds {bracket!r}, which pytest reads as the start of the "
            "runner part of a node id ('<case>[<runner>]')",
            BRACKET_FIX,
        )
    if name != name.strip(" "):
        return f"{label} {shown(name)} starts or ends with a space", SPACE_FIX
    return None


def check_case_name(case: EvalCase, fail: Fail) -> None:
    """The case's own name."""
    found = case_name_problem("the case name", case.name)
    if found is not None:
        raise fail(found[0], "name", found[1])


def other_names(case: EvalCase, fail: Fail) -> list[Callable[[], None]]:
    """A check per tag and trajectory tool name (declared tools have their own rule),
    each independent of the others."""
    named: list[tuple[str, str, str]] = [
        (f"tags[{i}]", "the tag", tag) for i, tag in enumerate(case.tags)
    ]
    if case.trajectory is not None:
        trajectory = case.trajectory
        for key in ("called", "forbidden", "order"):
            names: list[str] = getattr(trajectory, key)
            named += [(f"trajectory.{key}[{i}]", "the tool name", n) for i, n in enumerate(names)]
        named += [
            (f"trajectory.call_args[{i}].tool", "the tool name", entry.tool)
            for i, entry in enumerate(trajectory.call_args)
        ]

    def check(field: str, label: str, name: str) -> Callable[[], None]:
        def run() -> None:
            found = name_problem(label, name)
            if found is not None:
                raise fail(found[0], field, found[1])

        return run

    return [check(*entry) for entry in named]
