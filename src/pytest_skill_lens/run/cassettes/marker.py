"""A marker in a cassette's place: the case errored when it was recorded.

An errored case was not measured, so nothing of it is kept; but a later replay would
then find no file and advise recording it, which was just tried. So a recording run
writes a small marker where the cassette would be: a cassette file (same store, same
rules: never through a link, one rename, bounded, strict on reading) with no calls and
``not_recorded`` saying the case errored, with the error's first line and the day.
Replaying only reads it to give the true reason; ``once`` records over it, as over a
missing file. A marker never replaces a recording: a case that errors where a real
cassette stands (a stale one, or one ``all`` was to renew) leaves that cassette as it
was, since a passing failure must not destroy a good recording.

The error's line is the runner's or the product's words, and cassettes are committed:
the values of environment variables whose names say they are credentials are replaced
before it is written, as a product's sign-in values are in its recorded start.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from ...credentials import names_credential
from .files import (
    FORMAT,
    MAX_ERROR,
    CassetteError,
    CassetteFile,
    NotRecorded,
    read_cassette,
)
from .workspace_changes import Redactor

Standing = Literal["nothing", "marker", "cassette"]

# Control characters and the bidirectional overrides: a line a terminal shows as written.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def error_line(error: str, environment: Mapping[str, str] | None = None) -> str:
    """The first line of ``error`` that says something, as a marker keeps it: every
    credential-named variable's value replaced, nothing unprintable, at most
    :data:`~.files.MAX_ERROR` characters (saying it was cut)."""
    line = next((ln.strip() for ln in error.splitlines() if ln.strip()), "") or "no error text"
    line = _credentials(os.environ if environment is None else environment).text(line)
    line = _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", line)
    if len(line) > MAX_ERROR:
        line = line[: MAX_ERROR - 1] + "…"
    return line


def _credentials(environment: Mapping[str, str]) -> Redactor:
    return Redactor([value for name, value in environment.items() if names_credential(name)])


def marker(item: dict[str, Any], key: dict[str, Any], error: str, today: str) -> CassetteFile:
    """The marker of an item that errored while it was recorded under ``key``."""
    return CassetteFile(
        cassette=FORMAT,
        item=item,
        key=key,
        calls=[],
        not_recorded=NotRecorded(reason="errored", error=error_line(error), at=today),
    )


def standing(path: Path, root: Path) -> Standing:
    """What stands at ``path`` now: nothing, a marker, or a cassette (anything else that
    is there, readable or not, counts as a cassette: a marker never replaces it)."""
    try:
        found = read_cassette(path, root)
    except CassetteError:
        return "cassette"
    if found is None:
        return "nothing"
    return "marker" if found.not_recorded is not None else "cassette"
