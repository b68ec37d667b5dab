"""Where the progress line is written, and how, without disturbing pytest's own output.

pytest's terminal reporter owns the terminal: its line of dots (or, under ``-v``, the
running item's node id) is left unfinished while an item runs, and it tracks the width
of that line itself to place its ``[ 50%]``. Everything here keeps that accounting true.
It is written with pytest's own ``TerminalWriter`` facts (its width, its markup, its
cell widths from ``_pytest._io.wcwidth``, the measure it tracks its line by) and no
third-party library: rich, tqdm and enlighten each own the cursor or ``sys.stdout``,
which is why pytest-rich and pytest-sugar replace pytest's reporter outright.

* On a terminal, :class:`StatusLine` draws on the row *below* pytest's unfinished line
  and puts the cursor back where pytest left it (save, index down, draw, restore), so
  pytest's next dot lands where it would have; before pytest writes again the row is
  erased, so nothing of it is ever left between pytest's lines.
* Elsewhere (CI), :class:`PlainLines` writes whole lines: pytest's unfinished line is
  ended, the progress line follows, and pytest's line is begun again up to the column
  pytest counts it at (its path, or its ``-v`` prefix, then spaces), so its later
  dots and ``[ 50%]`` fall exactly where it computes them.

Both write to a duplicate of the terminal's descriptor taken before any item runs:
while an item runs, pytest's capture points descriptor 1 at a temporary file.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any, Protocol

from _pytest._io.wcwidth import wcswidth, wcwidth

_SAVE, _RESTORE = "\x1b7", "\x1b8"  # DECSC, DECRC: the cursor's place, wherever it is
_DOWN, _UP = "\x1bD", "\x1bM"  # IND, RI: a row down (scrolling at the bottom), a row up
_ERASE_ROW = "\r\x1b[2K"
_ELLIPSIS = "..."
# pytest's reporter marks a line it ends itself before writing again with this value.
_PYTEST_ENDS_LINE = -2


class Output:
    """The terminal pytest writes to, reached past pytest's output capture."""

    def __init__(self, file: Any) -> None:
        self._file = file
        self.encoding = getattr(file, "encoding", None) or "utf-8"
        self._fd: int | None = None
        with contextlib.suppress(AttributeError, OSError, ValueError, io.UnsupportedOperation):
            self._fd = os.dup(file.fileno())  # a file with no descriptor is written as is

    def isatty(self) -> bool:
        try:
            return bool(self._file.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    def columns(self, otherwise: int) -> int:
        """The terminal's width, asked of its own descriptor: pytest's writer asks
        descriptor 1, which its capture has pointed at a file while an item runs."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                return os.get_terminal_size(self._fd).columns
        return otherwise

    def write(self, text: str) -> None:
        if self._fd is None:
            self._file.write(text)
            self._file.flush()
            return
        data = text.encode(self.encoding, "replace")
        while data:  # one call in the common case: the terminal gets the sequence whole
            data = data[os.write(self._fd, data) :]

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


class Screen(Protocol):
    shown: bool

    def show(self, text: str) -> None: ...

    def clear(self) -> None: ...


class StatusLine:
    """A status row under pytest's current line, redrawn in place (a terminal)."""

    def __init__(self, output: Output, writer: Any) -> None:
        self._output = output
        self._writer = writer  # pytest's TerminalWriter: its width and its markup
        self.shown = False

    def show(self, text: str) -> None:
        # Never as wide as the screen: a wrap at the bottom row would scroll, and the
        # saved cursor would no longer be on pytest's line.
        columns = self._output.columns(otherwise=self._writer.fullwidth)
        body = self._writer.markup(fit(text, columns - 1), cyan=True)
        room = "" if self.shown else _DOWN + _UP  # scroll once if pytest is on the last row
        self._output.write(room + _SAVE + _DOWN + _ERASE_ROW + body + _RESTORE)
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self._output.write(_SAVE + _DOWN + _ERASE_ROW + _RESTORE)
            self.shown = False


class PlainLines:
    """Whole progress lines between pytest's, at an interval (no terminal: CI)."""

    shown = False  # nothing stays drawn: there is nothing to erase

    def __init__(self, output: Output, reporter: Any) -> None:
        self._output = output
        self._reporter = reporter

    def show(self, text: str) -> None:
        writer = self._reporter._tw
        width = writer.width_of_current_line
        line = writer.markup(text, cyan=True)
        if width == 0:
            self._output.write(line + "\n")
        elif self._reporter.currentfspath == _PYTEST_ENDS_LINE:
            self._output.write("\n" + line)  # pytest begins its next line itself
        else:
            self._output.write("\n" + line + "\n" + self._resumed(width))

    def clear(self) -> None:
        pass

    def _resumed(self, width: int) -> str:
        """pytest's unfinished line begun again: its head, then spaces to its column."""
        where = self._reporter.currentfspath
        head = ""
        if isinstance(where, Path):  # the line of dots of one file
            with contextlib.suppress(ValueError):
                head = os.path.relpath(where, self._reporter.startpath) + " "
        elif isinstance(where, str):  # -v: the running item's node id
            head = where
        cells = wcswidth(head)
        if cells < 0 or cells > width:
            head, cells = "", 0
        return head + " " * (width - cells)


def fit(text: str, cells: int) -> str:
    """``text`` cut to at most ``cells`` terminal cells, ending in ``...`` when cut."""
    widths = [max(0, wcwidth(char)) for char in text]
    if sum(widths) <= cells:
        return text
    room = cells - len(_ELLIPSIS)
    if room < 0:
        return ""
    used = 0
    for index, width in enumerate(widths):
        if used + width > room:
            return text[:index] + _ELLIPSIS
        used += width
    return text  # pragma: no cover - the sum above says it does not fit
